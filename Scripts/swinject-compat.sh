#!/usr/bin/env bash
# Runs Swinject 2.10.0's own XCTest suite against Keystone, with only the import changed.
#
# The suite is read from a Swinject checkout or mirror (SWINJECT_GIT, default: the package mirror at
# /opt/swift-packages/Swinject/Swinject.git) into a temporary package; nothing of it is kept in this
# repository. Every test that uses only Swinject's public API runs and must pass. The script fails
# unless XCTest reports exactly as many executed tests as it kept, with 0 failures.
#
# One edit besides the import: BehaviorFakes.swift types its spy's list of entries with Swinject's
# internal `ServiceEntryProtocol`; the list is only counted, so it is retyped as `[AnyObject]`. The
# spy itself implements nothing but the public `Behavior` protocol.
#
# Left out, one file or test per line, with the reason (the script reads this list):
#   XCTestManifests.swift: the Linux test list; it names the tests left out below, and discovery is automatic
#   ServiceKeyTests.swift: ServiceKey and its `option:` initializer are internal to Swinject
#   ServiceEntryTests.swift: ServiceEntry's initializers are internal to Swinject
#   ContainerTests.DebugHelper.swift: DebugHelper and Container(debugHelper:) are internal to Swinject
#   ContainerTests.Speed.swift: timing only; XCTMeasureOptions is missing from swift-corelibs-xctest
#   ContainerTests.swift testContainerDoesNotTerminateGraphPrematurely: Swinject compiles it only outside SwiftPM (`#if !SWIFT_PACKAGE`)
#   ContainerTests.swift testContainerRegistersServiceWithGivenObjectScope: calls the internal Container(parent:debugHelper:defaultObjectScope:)
#   ContainerTests.GraphCaching.swift testContaineirHasMethodForRestoringGraph: calls the internal restoreObjectGraph
#   ContainerTests.GraphCaching.swift testIdentifierIsNotNilDuringGraphResolution: reads the internal currentObjectGraph
#   ContainerTests.GraphCaching.swift testIdentifierIsDifferentForSeparateGraphResolutions: reads the internal currentObjectGraph
#   ContainerTests.GraphCaching.swift testIdentifierIsSameDuringGraphResolution: reads the internal currentObjectGraph
#   ContainerTests.GraphCaching.swift testContainerIsNilOutsideGraphResolution: reads the internal currentObjectGraph
#   ContainerTests.GraphCaching.swift testContainerUsesRestoredIdentifierDuringGraphResolution: uses the internal currentObjectGraph and restoreObjectGraph
#   ContainerTests.GraphCaching.swift testContainerUsesCurrentGraphIdentifierWhenManipulatingInstances: calls the internal restoreObjectGraph
#   ContainerTests.GraphCaching.swift testContainerRestoresInstancesFromPreviousGraphsIfAvailable: uses the internal currentObjectGraph and restoreObjectGraph
#   SynchronizedTests.swift testSynchronizedResolverUsesDistinctGraphIdentifier: reads the internal currentObjectGraph
#   SynchronizedTests.swift testSynchronizedResolverSynchronizesProviderTypes: reads the internal currentObjectGraph
#   SynchronizedTests.swift testSynchronizedResolverSafelyDereferencesLazyTypes: reads the internal currentObjectGraph
#   SynchronizedTests.swift testSynchronizedResolverSynchronousReadsWrites: casts synchronize() to Container, which Keystone's SynchronizedResolver is not (see MigratingFromSwinject)
# End of list.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
swinject_git="${SWINJECT_GIT:-/opt/swift-packages/Swinject/Swinject.git}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

fail() {
    echo "swinject-compat: FAILED: $*" >&2
    exit 1
}

mkdir -p "$work/Tests/CompatTests"
git -C "$swinject_git" archive 2.10.0 Tests/SwinjectTests | tar -x -C "$work"
mv "$work"/Tests/SwinjectTests/*.swift "$work/Tests/CompatTests/"

for file in "$work"/Tests/CompatTests/*.swift; do
    # Portable in-place edit: BSD and GNU sed disagree on -i.
    sed 's/^@testable import Swinject/import Keystone/; s/^import Swinject/import Keystone/' "$file" > "$file.tmp"
    mv "$file.tmp" "$file"
done

# Drop the files and test methods listed in the header, check that each was found, and count the
# test methods that remain.
kept="$(python3 - "$work/Tests/CompatTests" "$script" <<'PY'
import os, re, sys

folder, script = sys.argv[1], sys.argv[2]
header = open(script).read().split("# Left out,", 1)[1].split("# End of list.", 1)[0]
files, tests = set(), {}
for line in header.splitlines()[1:]:
    match = re.match(r"^#   (\S+\.swift)(?: (test\w+))?: \S", line)
    if not match:
        sys.exit(f"unreadable line in the header's list: {line!r}")
    if match.group(2):
        tests.setdefault(match.group(1), set()).add(match.group(2))
    else:
        files.add(match.group(1))

for name in sorted(files):
    path = os.path.join(folder, name)
    if not os.path.exists(path):
        sys.exit(f"{name} is listed as left out but is not in the suite")
    os.remove(path)

fake = os.path.join(folder, "BehaviorFakes.swift")
text = open(fake).read()
if "[ServiceEntryProtocol]()" not in text:
    sys.exit("BehaviorFakes.swift no longer declares its entries as [ServiceEntryProtocol]()")
open(fake, "w").write(text.replace("[ServiceEntryProtocol]()", "[AnyObject]()"))

count = 0
for name in sorted(os.listdir(folder)):
    if not name.endswith(".swift"):
        continue
    path = os.path.join(folder, name)
    lines = open(path).read().split("\n")
    wanted = tests.pop(name, set())
    kept, i = [], 0
    while i < len(lines):
        match = re.match(r"^(\s+)func (test\w*)\(", lines[i])
        if match:
            end = i + 1
            while end < len(lines) and lines[end] != match.group(1) + "}":
                end += 1
            if end == len(lines):
                sys.exit(f"{name}: cannot find the end of {match.group(2)}")
            if match.group(2) in wanted:
                wanted.discard(match.group(2))
                i = end + 1
                continue
            count += 1
        kept.append(lines[i])
        i += 1
    if wanted:
        sys.exit(f"{name}: listed as left out but not found: {', '.join(sorted(wanted))}")
    open(path, "w").write("\n".join(kept))
if tests:
    sys.exit(f"listed files not in the suite: {', '.join(sorted(tests))}")
print(count)
PY
)" || fail "could not prepare the suite"
echo "swinject-compat: kept $kept test methods of Swinject 2.10.0"

cat > "$work/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SwinjectCompat",
    dependencies: [.package(path: "$root")],
    targets: [
        .testTarget(name: "CompatTests", dependencies: [.product(name: "Keystone", package: "$(basename "$root")")]),
    ],
    swiftLanguageModes: [.v5]
)
SWIFT

cd "$work"
status=0
swift test > "$work/log" 2>&1 || status=$?
grep -E "error:|failed|Executed [0-9]+ tests?" "$work/log" | tail -20 || true

[ "$status" -eq 0 ] || { tail -40 "$work/log" >&2; fail "swift test exited with status $status"; }
! grep -q "error:" "$work/log" || fail "the log has errors"
# The last "Executed" line is XCTest's total over every suite it ran.
summary="$(grep -E "Executed [0-9]+ tests?, with [0-9]+ failures?" "$work/log" | tail -1 || true)"
[ -n "$summary" ] || fail "XCTest printed no 'Executed' line"
executed="$(sed -E 's/.*Executed ([0-9]+) tests?.*/\1/' <<< "$summary")"
failures="$(sed -E 's/.*with ([0-9]+) failures?.*/\1/' <<< "$summary")"
[ "$failures" -eq 0 ] || fail "$failures of $executed tests failed"
[ "$executed" -eq "$kept" ] || fail "XCTest executed $executed tests, but the script kept $kept"
echo "swinject-compat: passed: $executed of $kept kept tests executed, 0 failures"
