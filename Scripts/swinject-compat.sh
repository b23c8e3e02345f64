#!/usr/bin/env bash
# Runs Swinject 2.10.0's own XCTest suite against Keystone, with only the import changed.
#
# The suite is read from a Swinject checkout or mirror (SWINJECT_GIT, default: the package mirror at
# /opt/swift-packages/Swinject/Swinject.git) into a temporary package; nothing of it is kept in this
# repository. Test methods that reach Swinject's internals (through `@testable`) are dropped, as are the
# files that exist only to test those internals; every other test must pass.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
swinject_git="${SWINJECT_GIT:-/opt/swift-packages/Swinject/Swinject.git}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

mkdir -p "$work/Tests/CompatTests"
git -C "$swinject_git" archive 2.10.0 Tests/SwinjectTests | tar -x -C "$work"
mv "$work"/Tests/SwinjectTests/*.swift "$work/Tests/CompatTests/"

# Files that only test internals (service keys, debug helpers, behaviour spies) or timing.
for internal in XCTestManifests ServiceKeyTests ContainerTests.DebugHelper ServiceEntryTests \
    BehaviorFakes ContainerTests.Behavior ContainerTests.Speed; do
    rm -f "$work/Tests/CompatTests/$internal.swift"
done
for file in "$work"/Tests/CompatTests/*.swift; do
    # Portable in-place edit: BSD and GNU sed disagree on -i.
    sed 's/^@testable import Swinject/import Keystone/; s/^import Swinject/import Keystone/' "$file" > "$file.tmp"
    mv "$file.tmp" "$file"
done

# Drop the test methods that use internal members.
python3 - "$work/Tests/CompatTests" <<'PY'
import glob, re, sys
internal = ["currentObjectGraph", "restoreObjectGraph", "debugHelper", "BehaviorSpy",
            "synchronize() as! Container"]
for path in glob.glob(sys.argv[1] + "/*.swift"):
    lines = open(path).read().split("\n")
    kept, dropped, i = [], [], 0
    while i < len(lines):
        match = re.match(r"^(\s+)func (test\w*)", lines[i])
        if match:
            end = i + 1
            while end < len(lines) and lines[end] != match.group(1) + "}":
                end += 1
            if any(name in "\n".join(lines[i:end + 1]) for name in internal):
                dropped.append(match.group(2))
                i = end + 1
                continue
        kept.append(lines[i])
        i += 1
    if dropped:
        print(f"dropped from {path.rsplit('/', 1)[1]}: {', '.join(dropped)}")
    open(path, "w").write("\n".join(kept))
PY

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
swift test 2>&1 | tee "$work/log" | grep -E "error:|failed|Executed [0-9]+ tests" | tail -20
grep -q "with 0 failures" "$work/log" && ! grep -q "error:" "$work/log"
