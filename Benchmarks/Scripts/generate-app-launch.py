#!/usr/bin/env python3
"""Writes the Swift sources of the app-launch benchmark ("00 app launch" in KeystoneBenchmarks.swift).

    Benchmarks/Scripts/generate-app-launch.py           # writes the files below
    Benchmarks/Scripts/generate-app-launch.py --check   # fails if a checked-in file differs from its output

The app is made up, but shaped like a real one: 300 registrations in 10 assemblies, of 290 classes in five
tiers (a root, feature screens, services, helpers, infrastructure), each class taking its dependencies in
its initializer. Scopes are mixed (`.container`, `.graph`, `.transient`), ten service classes are registered
under two names each, and six helpers take a runtime argument. Launching the app is building the container
from the assemblies and resolving the root, whose graph is some 150 objects; the other registrations are
what an app registers at launch but resolves later.

The output is the same on every run (the dependencies are picked by a fixed pseudo-random sequence, not by
Python's `random`, whose algorithms may change between versions), so the checked-in files are exactly what
this script writes. It writes, in Benchmarks/KeystoneBenchmarks/AppLaunch/:

- AppServices.swift: the classes, shared by every suite, and the facts each suite's setup checks.
- KeystoneSuite+AppLaunch.swift and SwinjectSuite+AppLaunch.swift: the assemblies, the same code line for
  line against either library (only the import and the extended suite differ).
- BaselineSuite+AppLaunch.swift: the same registrations on the hand-written dictionary container.
- LeanSuite+AppLaunch.swift: the same registrations on the leanest hand-written container, with no object
  per registration.
- DirectSuite+AppLaunch.swift: the composition root written by hand, which calls the initializers directly.
"""

import argparse
import pathlib
import sys
from dataclasses import dataclass, field

OUTPUT_DIRECTORY = pathlib.Path(__file__).resolve().parent.parent / "Benchmarks" / "KeystoneBenchmarks" / "AppLaunch"
SCRIPT_NAME = "Benchmarks/Scripts/generate-app-launch.py"

ASSEMBLY_COUNT = 10
# The tiers, in order: each class depends only on classes after it, so the graph has no cycle.
ROOT, FEATURE, SERVICE, HELPER, INFRASTRUCTURE = "root", "feature", "service", "helper", "infrastructure"
TIER_SIZES = [(ROOT, 1), (FEATURE, 59), (SERVICE, 110), (HELPER, 60), (INFRASTRUCTURE, 60)]
NAMED_SERVICE_COUNT = 10  # service classes registered twice, under each of NAMES
NAMES = ("primary", "secondary")
ARGUMENT_HELPER_COUNT = 6  # helpers whose factory takes an `Int`; always `.transient`
ROOT_FEATURE_COUNT = 8  # the root's dependencies: the app's tabs


class Sequence:
    """A 64-bit linear congruential generator (Knuth's MMIX constants): the same numbers everywhere."""

    def __init__(self, seed):
        self.state = seed

    def below(self, bound):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return (self.state >> 33) % bound

    def chance(self, numerator, denominator):
        return self.below(denominator) < numerator

    def distinct(self, candidates, count):
        """`count` different elements of `candidates` (fewer if there are not as many), in picking order."""
        pool = list(candidates)
        picked = []
        while pool and len(picked) < count:
            picked.append(pool.pop(self.below(len(pool))))
        return picked


@dataclass
class Dependency:
    """What a factory resolves: a class, under a name or with an argument when it has one."""

    service: "ServiceClass"
    name: str | None = None
    argument: int | None = None


@dataclass
class ServiceClass:
    index: int
    tier: str
    scope: str  # "container", "graph" or "transient"
    names: tuple = (None,)  # the names it is registered under; (None,) for a single unnamed registration
    takes_argument: bool = False
    dependencies: list = field(default_factory=list)

    @property
    def swift_name(self):
        return f"AppService{self.index:03d}"


def make_app():
    sequence = Sequence(seed=2024)
    classes = []
    for tier, size in TIER_SIZES:
        for _ in range(size):
            classes.append(ServiceClass(index=len(classes), tier=tier, scope="container"))
    by_tier = {tier: [c for c in classes if c.tier == tier] for tier, _ in TIER_SIZES}

    # Scopes: the root and infrastructure are shared for the app's life; features live for one graph, one
    # in four made anew each time; services mostly shared, a third per graph; helpers always new.
    for c in by_tier[FEATURE]:
        c.scope = "transient" if c.index % 4 == 3 else "graph"
    for c in by_tier[SERVICE]:
        c.scope = "graph" if c.index % 3 == 0 else "container"
    for c in by_tier[HELPER]:
        c.scope = "transient"
    for c in sequence.distinct(by_tier[SERVICE], NAMED_SERVICE_COUNT):
        c.names = NAMES
    for c in sequence.distinct(by_tier[HELPER], ARGUMENT_HELPER_COUNT):
        c.takes_argument = True

    def later(tier, after, window):
        return [c for c in by_tier[tier] if after.index < c.index <= after.index + window]

    def dependency_on(service):
        # A named class is asked for under one of its names, an argument helper with a small argument.
        name = NAMES[sequence.below(len(NAMES))] if service.names != (None,) else None
        argument = 1 + sequence.below(9) if service.takes_argument else None
        return Dependency(service, name, argument)

    root = classes[0]
    root.dependencies = [Dependency(c) for c in sequence.distinct(by_tier[FEATURE][:24], ROOT_FEATURE_COUNT)]
    for c in by_tier[FEATURE]:
        picked = sequence.distinct(later(FEATURE, c, 12), 1 + sequence.below(2) if sequence.chance(1, 2) else 0)
        picked += sequence.distinct(by_tier[SERVICE], 2 + sequence.below(2))
        picked += sequence.distinct(by_tier[HELPER], 1 + sequence.below(2))
        c.dependencies = [dependency_on(d) for d in picked]
    for c in by_tier[SERVICE]:
        picked = sequence.distinct(later(SERVICE, c, 30), sequence.below(3))
        picked += sequence.distinct(by_tier[INFRASTRUCTURE], sequence.below(2))
        c.dependencies = [dependency_on(d) for d in picked]
    for c in by_tier[HELPER]:
        c.dependencies = [dependency_on(d) for d in sequence.distinct(by_tier[INFRASTRUCTURE], sequence.below(3))]
    for c in by_tier[INFRASTRUCTURE]:
        c.dependencies = [dependency_on(d) for d in sequence.distinct(later(INFRASTRUCTURE, c, 20), sequence.below(3))]
    return classes


def registrations_of(classes):
    """Every registration, as (class, name), in the order the assemblies make them."""
    return [(c, name) for c in classes for name in c.names]


def census(root):
    """The objects one launch creates and the references among them, as the containers create them: a
    shared (`.container` or `.graph`) registration once per launch, a transient one at every resolve."""
    created = set()
    by_tier = {tier: 0 for tier, _ in TIER_SIZES}
    references = 0

    def resolve(c, name):
        nonlocal references
        if c.scope != "transient" and (c.index, name) in created:
            return
        for d in c.dependencies:
            resolve(d.service, d.name)
        created.add((c.index, name))
        by_tier[c.tier] += 1
        references += len(c.dependencies)

    resolve(root, None)
    return sum(by_tier.values()), references, by_tier


# MARK: - Swift


def header(purpose):
    return (
        f"// GENERATED by {SCRIPT_NAME}: do not edit; change the script and run it again.\n"
        "//\n"
        + "".join(f"// {line}\n" if line else "//\n" for line in purpose)
    )


def call(function, arguments, indent):
    """`function(arguments...)` on one line when it fits in 110 columns (the line may go on after it), else
    one argument per line."""
    one_line = f"{function}({', '.join(arguments)})"
    if len(indent) + len(one_line) <= 110 or not arguments:
        return one_line
    inner = indent + "    "
    return f"{function}(\n" + "".join(f"{inner}{a},\n" for a in arguments)[:-2] + f"\n{indent})"


def own_arguments(c, name):
    """The initializer's arguments that are not dependencies: the registration's name or argument."""
    if c.names != (None,):
        return [f'label: "{name}"']
    if c.takes_argument:
        return ["id: id"]
    return []


def class_source(c):
    fields, parameters, assignments = [], [], []
    if c.names != (None,):
        fields.append("let label: String")
        parameters.append("label: String")
        assignments.append("self.label = label")
    if c.takes_argument:
        fields.append("let id: Int")
        parameters.append("id: Int")
        assignments.append("self.id = id")
    for position, d in enumerate(c.dependencies):
        fields.append(f"let d{position}: {d.service.swift_name}")
        parameters.append(f"_ d{position}: {d.service.swift_name}")
        assignments.append(f"self.d{position} = d{position}")
    lines = [f"final class {c.swift_name}: AppObject {{"]
    lines += [f"    {f}" for f in fields]
    if fields:
        lines.append("")
    signature = call("    init", parameters, "    ")
    lines.append(f"{signature} {{")
    lines += [f"        {a}" for a in assignments]
    lines.append("    }")
    lines.append("")
    held = ", ".join(f"d{p}" for p in range(len(c.dependencies)))
    lines.append(f"    var dependencies: [any AppObject] {{ [{held}] }}")
    lines.append("}")
    return "\n".join(lines)


def services_file(classes, objects, references, by_tier):
    counts = {
        scope: sum(len(c.names) for c in classes if c.scope == scope) for scope in ("container", "graph", "transient")
    }
    registrations = len(registrations_of(classes))
    lines = [header([
        "The app of the app-launch benchmark: its classes, shared by every suite, and what one launch makes.",
        f"{len(classes)} classes, {registrations} registrations: {counts['container']} `.container`, "
        f"{counts['graph']} `.graph`, {counts['transient']} `.transient`.",
        f"{NAMED_SERVICE_COUNT} classes are registered under two names; {ARGUMENT_HELPER_COUNT} "
        "take an `Int` argument and are `.transient`.",
        f"Resolving the root makes {objects} objects: "
        + ", ".join(f"{count} {tier}" for tier, count in by_tier.items()) + ".",
    ])]
    lines.append("/// What one launch of the app makes, which every suite's setup checks (see `AppCensus`).")
    lines.append("enum AppLaunch {")
    lines.append(f"    static let assemblyCount = {ASSEMBLY_COUNT}")
    lines.append(f"    static let registrationCount = {registrations}")
    lines.append(f"    static let objectCount = {objects}")
    lines.append("    /// The objects and the references between them that resolving the root creates.")
    lines.append(f"    static let census = AppCensus(objects: {objects}, references: {references})")
    lines.append("}")
    lines.append("")
    lines.append("/// The class the launch resolves.")
    lines.append(f"typealias AppRoot = {classes[0].swift_name}")
    for c in classes:
        lines.append("")
        lines.append(class_source(c))
    return "\n".join(lines) + "\n"


def assemblies(classes):
    """The registrations split into the assemblies, round robin, as modules of an app would each hold
    some of every tier."""
    split = [[] for _ in range(ASSEMBLY_COUNT)]
    for position, registration in enumerate(registrations_of(classes)):
        split[position % ASSEMBLY_COUNT].append(registration)
    return split


def assembly_list():
    """The array of every assembly, five a line."""
    names = [f"AppAssembly{k}()" for k in range(ASSEMBLY_COUNT)]
    rows = [", ".join(names[start:start + 5]) for start in range(0, len(names), 5)]
    return ["        ["] + [f"            {row}," for row in rows] + ["        ]"]


def resolve_expression(d):
    arguments = [f"{d.service.swift_name}.self"]
    if d.name is not None:
        arguments.append(f'name: "{d.name}"')
    if d.argument is not None:
        arguments.append(f"argument: {d.argument}")
    return f"r.resolve({', '.join(arguments)})!"


def registration_source(c, name, baseline, indent="            "):
    """One registration, at `indent`: the same code for Keystone and Swinject, or the baseline's."""
    key = [f"{c.swift_name}.self"]
    if name is not None:
        key.append(f'name: "{name}"')
    if baseline and c.scope != "graph" and not c.takes_argument:
        key.append(f"scope: .{c.scope}")
    parameters = "r, id" if c.takes_argument else ("r" if c.dependencies else "_")
    arguments = own_arguments(c, name) + [resolve_expression(d) for d in c.dependencies]
    body = call(c.swift_name, arguments, indent + "    ")
    # `.graph` is both libraries' default scope and is left implicit, as an app would.
    scope = "" if baseline or c.scope == "graph" else f".inObjectScope(.{c.scope})"
    return (
        f"{indent}container.register({', '.join(key)}) {{ {parameters} in\n"
        f"{indent}    {body}\n"
        f"{indent}}}{scope}"
    )


def library_file(classes, library, other):
    lines = [header([
        f"The app-launch benchmark's assemblies against {library}.",
        "",
        f"IDENTICAL TO {other}Suite+AppLaunch.swift apart from these comments, the import and the suite extended,",
        "as the suites themselves are: both libraries run exactly the same code.",
    ])]
    lines.append(f"import {library}")
    lines.append("")
    lines.append(f"extension {library}Suite {{")
    lines.append("    /// The app's assemblies, made anew by each launch as an app makes them once.")
    lines.append("    static func appAssemblies() -> [any Assembly] {")
    lines += assembly_list()
    lines.append("    }")
    lines += assembly_structs(classes, "Assembly", "Container", baseline=False)
    lines.append("}")
    return "\n".join(lines) + "\n"


def assembly_structs(classes, protocol, container, baseline):
    """The ten assemblies, each a struct conforming to `protocol` whose `assemble` registers its share."""
    lines = []
    for k, registrations in enumerate(assemblies(classes)):
        lines.append("")
        lines.append(f"    struct AppAssembly{k}: {protocol} {{")
        lines.append(f"        func assemble(container: {container}) {{")
        lines += [registration_source(c, name, baseline=baseline) for c, name in registrations]
        lines.append("        }")
        lines.append("    }")
    return lines


def baseline_file(classes, suite, container):
    """The assemblies on a hand-written container: `BaselineLaunchContainer` and `LeanLaunchContainer` take
    the same calls."""
    lines = [header([
        "The app-launch benchmark's assemblies on a hand-written container: the same registrations as",
        f"KeystoneSuite+AppLaunch.swift, in the same scopes, on `{container}`.",
    ])]
    lines.append(f"extension {suite}Suite {{")
    lines.append("    /// The app's assemblies, made anew by each launch as the libraries' suites make theirs.")
    lines.append(f"    static func appAssemblies() -> [any {suite}Assembly] {{")
    lines += assembly_list()
    lines.append("    }")
    lines += assembly_structs(classes, f"{suite}Assembly", container, baseline=True)
    lines.append("}")
    return "\n".join(lines) + "\n"


def direct_file(classes):
    """The composition root by hand: every shared object made once, in an order where dependencies come
    first, and every transient one made where it is needed."""
    shared = {}  # (index, name) -> variable, for the shared registrations the root reaches
    order = []

    def visit(c, name):
        if c.scope != "transient":
            if (c.index, name) in shared:
                return
        for d in c.dependencies:
            visit(d.service, d.name)
        if c.scope != "transient":
            shared[(c.index, name)] = f"s{c.index:03d}" + ("" if name is None else name.capitalize())
            order.append((c, name))

    def expression(c, name, argument, indent):
        arguments = []
        if c.names != (None,):
            arguments.append(f'label: "{name}"')
        if c.takes_argument:
            arguments.append(f"id: {argument}")
        for d in c.dependencies:
            if d.service.scope != "transient":
                arguments.append(shared[(d.service.index, d.name)])
            else:
                arguments.append(expression(d.service, d.name, d.argument, indent + "    "))
        return call(c.swift_name, arguments, indent)

    root = classes[0]
    visit(root, None)
    lines = [header([
        "The app-launch benchmark without a container: the composition root written by hand, which calls the",
        "initializers directly and registers nothing. It makes the same objects as a container's launch (one",
        "of each shared registration, a new one for each use of a transient one): the physical limit.",
    ])]
    lines.append("extension DirectSuite {")
    lines.append("    /// Makes the app's object graph and returns its root.")
    lines.append("    static func makeAppRoot() -> AppRoot {")
    for c, name in order:
        variable = shared[(c.index, name)]
        if c is root:
            lines.append(f"        return {expression(c, name, None, '        ')}")
        else:
            lines.append(f"        let {variable} = {expression(c, name, None, '        ')}")
    lines.append("    }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def outputs(classes):
    objects, references, by_tier = census(classes[0])
    return {
        "AppServices.swift": services_file(classes, objects, references, by_tier),
        "KeystoneSuite+AppLaunch.swift": library_file(classes, "Keystone", "Swinject"),
        "SwinjectSuite+AppLaunch.swift": library_file(classes, "Swinject", "Keystone"),
        "BaselineSuite+AppLaunch.swift": baseline_file(classes, "Baseline", "BaselineLaunchContainer"),
        "LeanSuite+AppLaunch.swift": baseline_file(classes, "Lean", "LeanLaunchContainer"),
        "DirectSuite+AppLaunch.swift": direct_file(classes),
    }, (objects, references, by_tier)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="fail if a checked-in file differs from the output")
    options = parser.parse_args()

    classes = make_app()
    files, (objects, references, by_tier) = outputs(classes)
    stale = []
    for name, text in files.items():
        path = OUTPUT_DIRECTORY / name
        if options.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            OUTPUT_DIRECTORY.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
    if stale:
        sys.exit(f"out of date (run {SCRIPT_NAME}): " + ", ".join(stale))
    registrations = len(registrations_of(classes))
    print(f"{len(classes)} classes, {registrations} registrations in {ASSEMBLY_COUNT} assemblies; "
          f"a launch makes {objects} objects holding {references} references "
          f"({', '.join(f'{count} {tier}' for tier, count in by_tier.items())})", file=sys.stderr)


if __name__ == "__main__":
    main()
