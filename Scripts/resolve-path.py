#!/usr/bin/env python3
"""Reads ARCHITECTURE.md's resolve path and checks it against a callgrind trace; used by check-resolve-path.sh.

    resolve-path.py scenarios ARCHITECTURE.md
        One line per traced list: `scenario<TAB>entry`, the entry being the list's first step.
    resolve-path.py entry-symbols ENTRY SYMBOLS
        The mangled names, among SYMBOLS (`mangled<TAB>simplified demangling` lines), of the function ENTRY names.
    resolve-path.py check ARCHITECTURE.md SCENARIO CALLGRIND_OUT ENTRY_SYMBOL...
        Prints the Keystone frames that ran beneath the entry and compares them with the scenario's list.

The lists live in the section `## The resolve path`. A line `<!-- trace: SCENARIO -->` (a scenario of
Benchmarks/InstructionCounts) starts a traced list; its steps are lines `N. \`Type.name(labels:)\` — \`file\``,
or `N. closure in \`Type.name(labels:)\` — \`file\`` for the closure a function returns or passes on. The check:
- every step ran, in the file named, and the first is the traced entry;
- the steps are in call order: each is called (directly or not) by an earlier one, never by a later one;
- every other Keystone function that ran is named in backticks in the section (`name`, `Type.name` or
  `name(labels:)`; for an initializer, its type), or is a closure of a function named there, or is one of
  the frames the compiler generates (COMPILER_FRAMES below), which have no declaration to name.
Exits 1 on a mismatch, 2 when the document or the trace cannot be read.
"""

import re
import subprocess
import sys

SECTION = "## The resolve path"
MARKER = re.compile(r"^<!-- trace: ([a-z0-9-]+) -->\s*$")
STEP_START = re.compile(r"^(\d+)\. ")
STEP = re.compile(r"^(\d+)\. (closure in )?`((?:[A-Za-z_][A-Za-z0-9_]*\.)*[A-Za-z_][A-Za-z0-9_]*\([^`]*\))` — `([^`]+\.swift)`")

# Frames the compiler generates for code in the module (thunks, outlined value operations, metadata and
# witness-table accessors, value witnesses, `defer` bodies, autoclosures): they run on the path but have no
# declaration of their own, so they are shown in the trace but need no name in the document.
COMPILER_FRAMES = (
    "outlined ",
    "partial apply for ",
    "protocol witness for ",
    "dispatch thunk of ",
    "reabstraction thunk",
    "thunk for ",
    "merged ",
    "type metadata ",
    "lazy protocol witness table ",
    "associated type ",
    "implicit closure ",
    "$defer #",
    "initializeWithCopy for ",
    "initializeWithTake for ",
    "initializeBufferWithCopyOfBuffer for ",
    "assignWithCopy for ",
    "assignWithTake for ",
    "destroy for ",
    "getEnumTag",
    "storeEnumTag",
    "destructiveInjectEnumTag",
    "destructiveProjectEnumData",
    "__swift_",
)
ACCESSORS = (".getter", ".setter", ".modify", ".read", "._modify", "._read", ".unsafeMutableAddressor",
             ".unsafeAddressor", ".didset", ".willset")


def fail(message, code=2):
    print(f"resolve-path: {message}", file=sys.stderr)
    sys.exit(code)


def normalize(name):
    """`closure #1 in static ServiceEntry.erasedResolve<A>(taking:)` -> `closure in ServiceEntry.erasedResolve(taking:)`."""
    name = re.sub(r"^(generic |function signature )?specialized ", "", name)
    name = re.sub(r"closure #\d+ ", "closure ", name)
    name = name.replace(" in static ", " in ")
    name = re.sub(r"^static ", "", name)
    previous = None
    while previous != name:
        previous = name
        name = re.sub(r"<[^<>()]*>", "", name)
    return name


def read_section(path):
    try:
        lines = open(path, encoding="utf-8").read().split("\n")
    except OSError as error:
        fail(f"cannot read {path}: {error}")
    try:
        start = lines.index(SECTION)
    except ValueError:
        fail(f"{path} has no section '{SECTION}'")
    section = [lines[start]]
    for line in lines[start + 1:]:
        if line.startswith("## "):
            break
        section.append(line)
    return section


def traced_lists(path):
    """{scenario: [(number, is_closure, name, file)]}, in the document's order."""
    lists, scenario = {}, None
    for line in read_section(path):
        marker = MARKER.match(line)
        if marker:
            scenario = marker.group(1)
            if scenario in lists:
                fail(f"{path}: scenario {scenario} is traced twice")
            lists[scenario] = []
            continue
        if not STEP_START.match(line):
            continue
        step = STEP.match(line)
        if not step:
            fail(f"{path}: a step of the resolve path does not read `N. [closure in ]`name(labels:)` — `file``: {line[:100]}")
        if scenario is None:
            fail(f"{path}: a step comes before any <!-- trace: SCENARIO --> line: {line[:100]}")
        lists[scenario].append((int(step.group(1)), bool(step.group(2)), step.group(3), step.group(4)))
    if not lists:
        fail(f"{path}: the section '{SECTION}' has no <!-- trace: SCENARIO --> list")
    for scenario, steps in lists.items():
        if len(steps) < 2:
            fail(f"{path}: the list traced as {scenario} has fewer than two steps")
        if [s[0] for s in steps] != list(range(1, len(steps) + 1)):
            fail(f"{path}: the steps traced as {scenario} are not numbered 1, 2, 3, ...")
        if steps[0][1] or "." not in steps[0][2]:
            fail(f"{path}: the first step traced as {scenario} must be a method named with its type (the entry)")
    return lists


def step_text(step):
    number, is_closure, name, file = step
    return f"{number}. {'closure in ' if is_closure else ''}{name} — {file}"


def matches(step, frame, file):
    _, is_closure, name, step_file = step
    expected = f"closure in {name}" if is_closure else name
    # A function's own frame only: not a closure, `defer` body or thunk in it (those read `... in name`).
    if is_closure:
        inner = frame[len("closure in "):] if frame.startswith("closure in ") else None
        same_name = inner is not None and " in " not in inner and (inner == name or inner.endswith("." + name))
    else:
        same_name = " in " not in frame and (frame == expected or frame.endswith("." + expected))
    if step_file.startswith("/") or file.startswith("//") or not file:
        return False
    return same_name and (file == step_file or file.endswith("/" + step_file))


def parse_callgrind(path):
    """Functions (mangled) with their file, and the calls between them, by call-site line."""
    names, file_of, calls = {}, {}, {}
    current_file = current_fn = callee = None
    expect_position = False

    def name(kind, text):
        compressed = re.match(r"\((\d+)\)(?: (.*))?$", text)
        if not compressed:
            return text
        key = (kind, compressed.group(1))
        if compressed.group(2) is not None:
            names[key] = compressed.group(2)
        return names.get(key, text)

    try:
        handle = open(path, encoding="utf-8", errors="replace")
    except OSError as error:
        fail(f"cannot read the trace {path}: {error}")
    with handle:
        for line in handle:
            line = line.rstrip("\n")
            if expect_position:
                expect_position = False
                position = line.split()[0] if line.split() else ""
                site = int(position) if position.isdigit() else 0
                sites = calls.setdefault(current_fn, {})
                sites[callee] = min(sites.get(callee, site), site)
            elif line.startswith("fl="):
                current_file = name("fl", line[3:])
            elif line.startswith(("fi=", "fe=")):
                name("fl", line[3:])
            elif line.startswith(("cfi=", "cfl=")):
                name("fl", line[4:])
            elif line.startswith("fn="):
                current_fn = name("fn", line[3:])
                file_of.setdefault(current_fn, current_file)
            elif line.startswith("cfn="):
                callee = name("fn", line[4:])
            elif line.startswith("calls="):
                expect_position = True
    return file_of, calls


def demangle(symbols):
    try:
        result = subprocess.run(["swift", "demangle", "--simplified", "--compact"], input="\n".join(symbols) + "\n",
                                capture_output=True, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as error:
        fail(f"swift demangle failed: {error}")
    lines = result.stdout.split("\n")[:len(symbols)]
    if len(lines) != len(symbols):
        fail(f"swift demangle returned {len(lines)} names for {len(symbols)} symbols")
    return dict(zip(symbols, lines))


def command_scenarios(path):
    for scenario, steps in traced_lists(path).items():
        print(f"{scenario}\t{steps[0][2]}")


def command_entry_symbols(entry, symbols_path):
    found = []
    for line in open(symbols_path, encoding="utf-8"):
        mangled, _, demangled = line.rstrip("\n").partition("\t")
        if mangled.startswith("$s") and normalize(demangled) == entry:
            found.append(mangled)
    if not found:
        fail(f"no function of the executable is named {entry}")
    print("\n".join(found))


def command_check(path, scenario, trace, entries):
    steps = traced_lists(path).get(scenario)
    if steps is None:
        fail(f"{path} traces no list as {scenario}")
    section = "\n".join(read_section(path))
    named = set()
    for span in re.findall(r"`([^`\n]+)`", section):
        last = re.sub(r"\(.*", "", span).split(".")[-1].strip()
        if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", last):
            named.add(last)

    file_of, calls = parse_callgrind(trace)
    roots = [e for e in entries if e in file_of]
    if not roots:
        fail(f"the trace {trace} does not contain the entry ({', '.join(entries)}): was the resolve traced?")

    # Everything beneath the entry, in call-site order.
    order, depth_of, parent_of = [], {}, {}
    def walk(fn, depth, parent):
        if fn in depth_of:
            return
        depth_of[fn], parent_of[fn] = depth, parent
        order.append(fn)
        for callee in sorted(calls.get(fn, {}), key=lambda c: calls[fn][c]):
            walk(callee, depth + 1, fn)
    sys.setrecursionlimit(20000)
    for root in roots:
        walk(root, 0, None)

    demangled = demangle(order)
    def is_keystone(fn):
        return fn.startswith("$s8Keystone") or "/Sources/Keystone/" in (file_of.get(fn) or "")
    def short_file(fn):
        file = file_of.get(fn) or "???"
        return file.split("/Sources/Keystone/", 1)[1] if "/Sources/Keystone/" in file else file

    def reachable(start):
        seen, stack = set(), [start]
        while stack:
            fn = stack.pop()
            for callee in calls.get(fn, {}):
                if callee not in seen:
                    seen.add(callee)
                    stack.append(callee)
        return seen

    # Which frame each step is, and what every Keystone frame counts as.
    step_frame, kind = {}, {}
    problems = []
    for fn in order:
        if not is_keystone(fn):
            continue
        frame = normalize(demangled[fn])
        for step in steps:
            if matches(step, frame, file_of.get(fn) or ""):
                if step[0] in step_frame and step_frame[step[0]] != fn:
                    problems.append(f"step {step_text(step)} matches two frames: name it with its type")
                step_frame[step[0]] = fn
                kind[fn] = str(step[0])
    def covered(frame):
        if frame.startswith(COMPILER_FRAMES):
            return "~"
        while frame.startswith("closure in "):
            frame = frame[len("closure in "):]
            if any(normalize(demangled[f]) == frame for f in kind if kind[f].isdigit()):
                return "+"
        base = re.sub(r"\(.*", "", frame)
        for accessor in ACCESSORS:
            if base.endswith(accessor):
                base = base[: -len(accessor)]
        parts = base.split(".")
        identifier = parts[-1]
        if identifier in ("init", "__allocating_init", "deinit") and len(parts) > 1:
            identifier = parts[-2]
        return "+" if identifier in named else None
    unnamed = []
    for fn in order:
        if is_keystone(fn) and fn not in kind:
            mark = covered(normalize(demangled[fn]))
            kind[fn] = mark or "!"
            if not mark:
                unnamed.append(fn)

    print(f"Keystone frames beneath {steps[0][2]} in scenario {scenario} (N: step N; +: named in the section;")
    print(f"~: generated by the compiler; !: not in {path}):")
    for fn in order:
        if fn in kind:
            depth, ancestor = 0, parent_of[fn]
            while ancestor is not None:
                depth += 1 if ancestor in kind else 0
                ancestor = parent_of[ancestor]
            print(f"  {kind[fn]:>2} {'  ' * depth}{normalize(demangled[fn])}  [{short_file(fn)}]")

    # The steps: present, and in call order.
    if step_frame.get(1) not in roots:
        problems.append(f"step 1 ({step_text(steps[0])}) is not the traced entry")
    descendants = {number: reachable(fn) for number, fn in step_frame.items()}
    for step in steps:
        number = step[0]
        if number not in step_frame:
            problems.append(f"step {step_text(step)} did not run (no such frame, or not in that file)")
            continue
        fn = step_frame[number]
        later = [other for other in step_frame if other > number and fn in descendants[other]]
        if later:
            problems.append(f"step {number} is called by step {later[0]}, which the list puts after it")
        if number > 1 and not any(fn in descendants[earlier] for earlier in step_frame if earlier < number):
            problems.append(f"step {number} is called by no earlier step")
    for fn in unnamed:
        problems.append(f"{normalize(demangled[fn])} [{short_file(fn)}] ran but is not named in the section")

    if problems:
        print(f"\nMISMATCH between {path} and the trace of scenario {scenario}:")
        print("  the list says:")
        for step in steps:
            print(f"    {step_text(step)}")
        print("  the trace's frames for those steps, and what else ran:")
        for fn in order:
            if fn in kind and (kind[fn] == "!" or kind[fn].isdigit()):
                print(f"    {kind[fn]:>2} {normalize(demangled[fn])}  [{short_file(fn)}]")
        for problem in problems:
            print(f"  - {problem}")
        sys.exit(1)
    print(f"{scenario}: the {len(steps)} steps of the list ran in order; every other Keystone frame is named or generated")


def main(argv):
    if len(argv) >= 2 and argv[0] == "scenarios" and len(argv) == 2:
        command_scenarios(argv[1])
    elif len(argv) == 3 and argv[0] == "entry-symbols":
        command_entry_symbols(argv[1], argv[2])
    elif len(argv) >= 5 and argv[0] == "check":
        command_check(argv[1], argv[2], argv[3], argv[4:])
    else:
        fail(__doc__.strip().split("\n\n")[0])


if __name__ == "__main__":
    main(sys.argv[1:])
