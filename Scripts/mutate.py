#!/usr/bin/env python3
"""Plants small bugs in the engine, one at a time, and tells which tests catch each.

    python3 Scripts/mutate.py                 # every mutation below
    python3 Scripts/mutate.py cycle-reuse     # only the named ones
    python3 Scripts/mutate.py --list          # the names and what each plants

The package (sources, tests, manifest) is copied into a scratch folder (KEYSTONE_MUTANTS, default
/tmp/keystone-mutants), whose build is kept between runs: each mutation edits one line of that copy, rebuilds
incrementally, runs the suites that should notice, and restores the line. Nothing in this checkout
changes. Each mutation prints one line:

    caught by "<test>"      the named test failed (the first to fail, as Swift Testing reports it)
    SURVIVED                every selected test passed: the suite cannot see this bug
    did not compile         the mutation is not a valid program (a mistake in the list below)

The score, caught / (caught + survived), ends the run. Slow (a debug build and a test run per
mutation): not part of CI.
"""

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRATCH = os.environ.get("KEYSTONE_MUTANTS", "/tmp/keystone-mutants")
ENGINE = "Sources/Keystone"


@dataclass
class Mutation:
    name: str
    area: str
    what: str
    file: str
    old: str
    new: str
    # Swift Testing filter: the suites that should notice (a regular expression over test names).
    suites: str = ".*"


MUTATIONS = [
    Mutation(
        "cycle-reuse", "cycles",
        "a produced transient frame between two resolves of one key counts as reuse in the graph",
        "Engine/CyclesAndDepth.swift",
        "$0.produced && !$0.isUnique && $0.entry.reusesInstanceInGraph",
        "$0.produced && !$0.isUnique",
        "CycleTests|SoundnessTests",
    ),
    Mutation(
        "cycle-unique", "cycles",
        "a front's unique resolve that has produced its instance is still taken for a cycle",
        "Engine/CyclesAndDepth.swift",
        "guard ObjectIdentifier(entry) == registration, !(isUnique && produced) else { return false }",
        "guard ObjectIdentifier(entry) == registration else { return false }",
        "CycleTests|SoundnessTests|Registry|DependencyRegistry|Inject",
    ),
    Mutation(
        "cycle-tolerated", "cycles",
        "a cycle that a factory tolerated with try? no longer fails the top-level call",
        "Engine/Resolve.swift",
        "        if let failure = leaveCall() {\n            throw failure\n        }",
        "        _ = leaveCall()",
        "CycleTests|SoundnessTests",
    ),
    Mutation(
        "cycle-arguments", "cycles",
        "every argument value counts as the same: recursion over arguments is taken for a cycle",
        "Engine/ArgumentComparison.swift",
        "        if MemoryLayout<Arguments>.size == 0 {\n            return true\n        }",
        "        if MemoryLayout<Arguments>.size >= 0 {\n            return true\n        }",
        "CycleTests|SoundnessTests|ArityTests",
    ),
    Mutation(
        "depth-limit", "cycles",
        "the depth limit is 2,000 instead of 200",
        "Engine/ResolutionState.swift",
        "static let maximumDepth = 200",
        "static let maximumDepth = 2_000",
        "CycleTests|SoundnessTests|ErrorTests",
    ),
    Mutation(
        "tainted-singleton", "scopes",
        "a .container instance built around a cycle is cached",
        "Engine/Scopes.swift",
        "            if !tainted, entry.sharesValues || isReference(instance) {",
        "            if entry.sharesValues || isReference(instance) {",
        "CycleTests|SoundnessTests|ScopeTests",
    ),
    Mutation(
        "tainted-weak", "scopes",
        "a .weak instance built around a cycle is kept",
        "Engine/Scopes.swift",
        "            if !tainted {\n                entry.weakObject = WeakStorage.referenceIfClass(instance)",
        "            if true {\n                entry.weakObject = WeakStorage.referenceIfClass(instance)",
        "CycleTests|SoundnessTests|ScopeTests",
    ),
    Mutation(
        "incomplete-kept", "scopes",
        "an instance whose graph met a cycle during initCompleted stays in its scope",
        "Engine/Resolve.swift",
        "        if keep, thrown != nil || frames[index].tainted {",
        "        if keep, thrown != nil {",
        "CycleTests|SoundnessTests|ScopeTests",
    ),
    Mutation(
        "graph-epoch", "graphs",
        "a .graph instance is reused by the next top-level resolve",
        "Engine/Scopes.swift",
        "        case .graph where restored == nil:\n            return entry.graphEpoch == epoch ? entry.graphInstance : nil",
        "        case .graph where restored == nil:\n            return entry.graphInstance",
        "ScopeTests|SoundnessTests|GraphTests|CycleTests",
    ),
    Mutation(
        "graph-top-level", "graphs",
        "the top-level .graph instance is not kept even when its initCompleted actions resolve it",
        "Engine/Scopes.swift",
        "        if frames.count == 1, !entry.hasInitCompletedActions, liveRecord == nil {",
        "        if frames.count == 1, liveRecord == nil {",
        "CycleTests|ScopeTests|SoundnessTests",
    ),
    Mutation(
        "names-ignored", "names",
        "two keys with the same type and arguments match whatever their names",
        "Resolution/ServiceKey.swift",
        "        argumentsWord == other.argumentsWord && name == other.name",
        "        argumentsWord == other.argumentsWord",
        "RegistrationKeyTests|ContainerTests|ErrorTests|HierarchyTests",
    ),
    Mutation(
        "names-canonical", "names",
        "a non-ASCII name is hashed as written, not in its canonical composition",
        "Engine/RegistrationTable.swift",
        "            return isASCII ? hash : fnv1a(of: name.precomposedStringWithCanonicalMapping).hash",
        "            return hash",
        "RegistrationKeyTests|SoundnessTests",
    ),
    Mutation(
        "dispose-order", "disposal",
        "disposal runs oldest completion first",
        "Container/Container+Disposal.swift",
        "return disposals.sorted { $0.completion > $1.completion }",
        "return disposals.sorted { $0.completion < $1.completion }",
        "DisposalTests|LifetimeTests|RequestScopeTests",
    ),
    Mutation(
        "dispose-numbering", "disposal",
        "a .container instance gets no completion number",
        "Engine/Scopes.swift",
        "        case .container:\n            entry.cache?.completion = nextCompletion()",
        "        case .container:\n            break",
        "DisposalTests|LifetimeTests|RequestScopeTests",
    ),
    Mutation(
        "single-flight", "single flight",
        "concurrent first resolveAsync calls each start a creation",
        "Engine/Async/SingleFlight.swift",
        "        if let flight = hierarchy.flights[shared], flight.generation == entry.cache?.generation ?? 0 {",
        "        if false, let flight = hierarchy.flights[shared], flight.generation == entry.cache?.generation ?? 0 {",
        "AsyncResolutionTests|AsyncActorFrontTests",
    ),
    Mutation(
        "flight-forgotten", "single flight",
        "a finished creation stays in flight: a failure is handed to every later call",
        "Engine/Async/SingleFlight.swift",
        "            if hierarchy.flights[flight.shared] === flight {",
        "            if hierarchy.flights[flight.shared] === flight, false {",
        "AsyncResolutionTests|AsyncActorFrontTests",
    ),
    Mutation(
        "multiton-cache", "scopes",
        ".multiton never finds the instance made from equal arguments",
        "Engine/Scopes.swift",
        "        cache?.byArguments[identity]?.instance\n",
        "        nil\n",
        "MultitonTests|LifetimeTests",
    ),
    Mutation(
        "reset-ancestors", "hierarchies",
        "resetObjectScope(_:serviceType:) goes on to the ancestors of a container without such a key",
        "Container/Container.swift",
        "                guard !matching.isEmpty else { break }",
        "                guard !matching.isEmpty else { container = current.parent; continue }",
        "HierarchyTests|ScopeTests|SoundnessTests",
    ),
    Mutation(
        "reset-stops", "hierarchies",
        "resetObjectScope(_:) leaves the ancestors' instances alone",
        "Container/Container.swift",
        "                current.discardInstances(of: current.entries { $0.entry.objectScope === objectScope }, into: &dropped)\n"
        "                container = current.parent",
        "                current.discardInstances(of: current.entries { $0.entry.objectScope === objectScope }, into: &dropped)\n"
        "                container = nil",
        "HierarchyTests|ScopeTests|SoundnessTests",
    ),
    Mutation(
        "batch-unlocked", "publication",
        "withContainer runs its block without the hierarchy's lock",
        "Synchronization/SynchronizedResolver+WithContainer.swift",
        "        hierarchy.lock.lock()\n        defer { hierarchy.lock.unlock() }\n",
        "",
        "SoundnessTests|ThreadSafetyArticleTests",
    ),
    Mutation(
        "drops-undisposed", "disposal",
        "instances dropped by a reset, re-registration or removal are not disposed",
        "Container/Container+Disposal.swift",
        "        guard !dropped.isEmpty else { return }",
        "        guard !dropped.isEmpty, false else { return }",
        "DropTests|BreakAttempt|LifetimeTests",
    ),
    Mutation(
        "dropped-in-flight-kept", "disposal",
        "a creation whose scope is dropped while its factory runs is kept",
        "Engine/Scopes.swift",
        "        if kept {\n            takeBack(instance, of: entry)",
        "        if kept, instance is Never {\n            takeBack(instance, of: entry)",
        "DropTests|BreakAttempt|LifetimeTests",
    ),
    Mutation(
        "foreign-instances", "hierarchies",
        "dispose() ends the parent's instance that a child reaches through a forwarded key",
        "Container/Container+Disposal.swift",
        "guard slot.entry.owner === token || slot.entry.isOrphaned,",
        "guard true,",
        "DropTests|OwnInstances|BreakAttempt|LifetimeTests",
    ),
    Mutation(
        "stale-flight", "single flight",
        "a resolve started after the scope was dropped joins the dropped creation in flight",
        "Engine/Async/SingleFlight.swift",
        "if let flight = hierarchy.flights[shared], flight.generation == entry.cache?.generation ?? 0 {",
        "if let flight = hierarchy.flights[shared] {",
        "AsyncEngineAttack|InsightAttack|DropTests",
    ),
    Mutation(
        "dropped-back-reference", "disposal",
        "a creation dropped while its factory ran is not stored for its initCompleted actions",
        "Engine/Resolve.swift",
        "        if !frames[index].dropped || isEmpty(entry) {",
        "        if !frames[index].dropped {",
        "AsyncEngineAttack|InsightAttack|DropTests",
    ),
    Mutation(
        "captive-unchecked", "scopes",
        "a resolve that lets a kept instance capture a child's registration is not checked",
        "Diagnostics/Container+ScopeValidation.swift",
        "guard let holder = state.innermostHolder(above: depth) else { return }",
        "guard let holder = state.innermostHolder(above: depth + 1) else { return }",
        "ScopeValidation|InsightAttack",
    ),
    Mutation(
        "captive-kept", "scopes",
        "a call failed by a captive dependency keeps the instances it made",
        "Engine/Resolve.swift",
        "        if case .captiveDependency = failure {\n            dropKept()",
        "        if case .captiveDependency = failure, false {\n            dropKept()",
        "ScopeValidation|InsightAttack",
    ),
    Mutation(
        "profile-parent", "profiles",
        "a synchronous creation is not recorded inside the one in flight",
        "Diagnostics/CreationProfiler.swift",
        "let parent = synchronous ? state.stack.last ?? given : given",
        "let parent = given",
        "Profiling|InsightAttack",
    ),
    Mutation(
        "warm-up-sequential", "async",
        "warmUp() creates its async services one after another",
        "Engine/Async/WarmUp.swift",
        "        guard entries.count > 1 else {",
        "        guard entries.count > 10_000 else {",
        "WarmUpOverlap|InsightAttack",
    ),
]


def run(command, cwd, log):
    with open(log, "w") as out:
        return subprocess.run(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT).returncode


def prepare():
    work = os.path.join(SCRATCH, "work")
    os.makedirs(work, exist_ok=True)
    # The package alone (its sources, tests and manifest) over the scratch copy, whose build is kept.
    for folder in ("Sources", "Tests"):
        shutil.rmtree(os.path.join(work, folder), ignore_errors=True)
        shutil.copytree(os.path.join(ROOT, folder), os.path.join(work, folder))
    shutil.copy(os.path.join(ROOT, "Package.swift"), work)
    return work


def first_failure(log):
    with open(log, errors="replace") as text:
        for line in text:
            match = re.search(r'✘ Test (?:"([^"]*)"|(\S+)) (?:recorded an issue|failed)', line)
            if match:
                return match.group(1) or match.group(2)
    return None


def main(arguments):
    if arguments[:1] == ["--list"]:
        for mutation in MUTATIONS:
            print(f"{mutation.name:24} {mutation.area:14} {mutation.what}")
        return 0
    chosen = [m for m in MUTATIONS if not arguments or m.name in arguments]
    unknown = set(arguments) - {m.name for m in MUTATIONS}
    if unknown:
        print(f"mutate.py: no mutation named {', '.join(sorted(unknown))} (see --list)", file=sys.stderr)
        return 2
    work = prepare()
    log = os.path.join(SCRATCH, "last.log")
    print("building the unmutated copy", flush=True)
    if run(["swift", "build", "--build-tests"], work, log) != 0:
        print(f"mutate.py: the unmutated copy does not build (see {log})", file=sys.stderr)
        return 2
    caught = survived = broken = 0
    for mutation in chosen:
        path = os.path.join(work, ENGINE, mutation.file)
        original = open(path).read()
        if original.count(mutation.old) != 1:
            print(f"{mutation.name:24} the line to mutate occurs {original.count(mutation.old)} times in "
                  f"{mutation.file}: update the list", flush=True)
            broken += 1
            continue
        open(path, "w").write(original.replace(mutation.old, mutation.new))
        try:
            if run(["swift", "build", "--build-tests"], work, log) != 0:
                shutil.copy(log, os.path.join(SCRATCH, f"{mutation.name}.build.log"))
                print(f"{mutation.name:24} did not compile", flush=True)
                broken += 1
                continue
            status = run(["swift", "test", "--skip-build", "--filter", mutation.suites], work, log)
            shutil.copy(log, os.path.join(SCRATCH, f"{mutation.name}.log"))
            if status == 0:
                survived += 1
                print(f"{mutation.name:24} SURVIVED ({mutation.area}: {mutation.what})", flush=True)
            else:
                caught += 1
                print(f"{mutation.name:24} caught by \"{first_failure(log) or 'a crash'}\"", flush=True)
        finally:
            open(path, "w").write(original)
    total = caught + survived
    print(f"\nmutation score: {caught} of {total} caught ({survived} survived, {broken} not run)")
    return 0 if survived == 0 and broken == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
