#!/usr/bin/env bash
# Runs the test suite with code coverage and prints the line coverage of Sources/Keystone, file by file
# and in total; fails when the total is below the floor set here, or when the run or the report fails.
#
#   Scripts/coverage.sh [SCRATCH_PATH]   # default .build-coverage; CI passes the strict build's folder
#
# The build in SCRATCH_PATH must have been made with --enable-code-coverage (CI's strict build is); if it
# was not, `swift test` builds it first. Needs the toolchain only (swift, llvm-cov).
set -euo pipefail

# The floor: the total measured when it was set, less a point for noise between runs. Raise it as tests
# are added; never lower it to let a change land.
floor=94.0

root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="${1:-.build-coverage}"
cd "$root"

swift test --enable-code-coverage --scratch-path "$scratch" > "$scratch.coverage-tests.log" 2>&1 || {
    tail -n 40 "$scratch.coverage-tests.log" >&2
    echo "coverage.sh: the test run failed (log: $scratch.coverage-tests.log)" >&2
    exit 1
}
bin="$(swift build --scratch-path "$scratch" --show-bin-path)"
profile="$bin/codecov/default.profdata"
tests="$bin/KeystonePackageTests.xctest"
for needed in "$profile" "$tests"; do
    if [ ! -e "$needed" ]; then
        echo "coverage.sh: $needed is missing: the run made no coverage data" >&2
        exit 1
    fi
done

# The toolchain's own llvm-cov: another LLVM's may not read this compiler's profile format.
llvm_cov="$(dirname "$(readlink -f "$(command -v swift)")")/llvm-cov"
if [ ! -x "$llvm_cov" ]; then
    llvm_cov="$(command -v llvm-cov)"
fi
report="$("$llvm_cov" report "$tests" -instr-profile="$profile" "$root/Sources/Keystone")"
printf '%s\n' "$report" | sed "s|$root/Sources/Keystone/||"

# The TOTAL line's columns: regions, missed, cover, functions, missed, executed, lines, missed, cover, ...
total="$(awk '$1 == "TOTAL" { print $10 }' <<<"$report" | tr -d '%')"
if ! [[ "$total" =~ ^[0-9]+(\.[0-9]+)?$ ]]; then
    echo "coverage.sh: llvm-cov printed no total line coverage" >&2
    exit 1
fi
echo "line coverage of Sources/Keystone: $total% (floor $floor%)"
if awk -v total="$total" -v floor="$floor" 'BEGIN { exit !(total < floor) }'; then
    echo "coverage.sh: line coverage $total% is below the floor of $floor%" >&2
    exit 1
fi
