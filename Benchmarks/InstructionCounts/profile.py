#!/usr/bin/env python3
"""Where one operation's instructions go: the self cost of each function, per operation, from two callgrind
outputs of one scenario (N and 2N operations), grouped by what the work is.

    profile.py SMALL.out LARGE.out N [TOP]

profile.sh runs the scenario and calls this; see README.md.
"""
import re
import subprocess
import sys

# What each function's work is, by its (mangled or demangled) name: the first pattern that matches wins.
CATEGORIES = [
    ("reference counting", r"swift_(retain|release|bridgeObject(Retain|Release))|doDecrementSlow|"
                           r"_swift_release_dealloc|swift_isUniquelyReferenced|SwiftRetainableBox"),
    ("allocation", r"malloc|_int_free|\bfree\b|swift_(allocObject|slowAlloc|slowDealloc|deallocObject|"
                   r"deallocClassInstance|deallocUninitializedObject)|_int_malloc|tcache"),
    ("hashing and dictionaries", r"Hasher|RawDictionaryStorage|NativeDictionary|DictionaryStorage|SS4hash"),
    ("exclusivity checks", r"swift_(beginAccess|endAccess)|AccessSet|SwiftTLSContext|tls_get_addr"),
    ("locks", r"pthread_mutex|NSLock|NSRecursiveLock|NSCondition|LockedValue"),
    ("actors and tasks", r"swift_task_|swift::AsyncTask|DefaultActorImpl|swift_job|Executor|swift_continuation"),
    ("dynamic casts and metadata", r"swift_dynamicCast|swift_getGenericMetadata|MetadataCache|"
                                   r"swift_conformsTo|swift_getWitnessTable|swift_once|tryCast"),
    ("the baseline's container", r"Baseline|NamedKey|ArgumentsKey|LeanLaunch"),
    ("resolution frames and calls", r"Keystone.*(ResolutionState|Frame)|customRemoveLast.*Keystone"),
    ("lookup", r"Keystone.*(lookup|RegistrationTable|Bucket|ServiceKey)"),
    ("the rest of the engine", r"Keystone"),
    ("the scenario itself", r"instruction_counts|main\.swift"),
]


def self_costs(path):
    output = subprocess.run(
        ["callgrind_annotate", "--auto=no", "--threshold=100", "--inclusive=no", path],
        capture_output=True, text=True, check=True,
    ).stdout
    costs = {}
    for line in output.splitlines():
        match = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*)$", line)
        if match and ":" in match.group(2) and not match.group(2).startswith("PROGRAM TOTALS"):
            name = re.sub(r"\s+\[[^\]]*\]$", "", match.group(2))
            costs[name] = costs.get(name, 0) + int(match.group(1).replace(",", ""))
    return costs


def category(name):
    for label, pattern in CATEGORIES:
        if re.search(pattern, name):
            return label
    return "other"


def main():
    small, large, operations = self_costs(sys.argv[1]), self_costs(sys.argv[2]), int(sys.argv[3])
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 15
    per_operation = {}
    for name in set(small) | set(large):
        cost = (large.get(name, 0) - small.get(name, 0)) / operations
        if abs(cost) >= 0.5:
            per_operation[name] = cost
    total = sum(per_operation.values())
    by_category = {}
    for name, cost in per_operation.items():
        by_category[category(name)] = by_category.get(category(name), 0) + cost
    print(f"{total:10.0f}  instructions per operation")
    for label, cost in sorted(by_category.items(), key=lambda item: -item[1]):
        print(f"{cost:10.0f}  {100 * cost / total:5.1f}%  {label}")
    print()
    for name, cost in sorted(per_operation.items(), key=lambda item: -item[1])[:top]:
        print(f"{cost:10.0f}  {category(name)[:14]:14}  {name[:150]}")


if __name__ == "__main__":
    main()
