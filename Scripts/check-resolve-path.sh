#!/usr/bin/env bash
# Checks ARCHITECTURE.md's resolve path against the functions a resolve really runs.
#
#   Scripts/check-resolve-path.sh [ARCHITECTURE.md]
#
# Builds the instruction-count driver (Benchmarks/InstructionCounts) in debug, and for each list of the section
# "The resolve path" marked `<!-- trace: SCENARIO -->` runs that scenario with two resolves under
# `valgrind --tool=callgrind`, collecting only inside the list's first step (the entry, e.g.
# `Container.resolve(_:)`) and keeping the second resolve, the steady state. From the call graph of that
# resolve it checks that every step ran, in the file named, in call order, and that every other Keystone
# function that ran is named in the section (see Scripts/resolve-path.py for the rules, and the frames the
# compiler generates that need no name). The names come from the document only; nothing here knows them.
#
# Scratch build in $RESOLVE_PATH_SCRATCH (default .build-trace at the package root). Needs swift, valgrind
# and python3. Exits 1 when the document and the trace disagree, 2 when a tool fails or prints nothing.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
architecture="${1:-$root/ARCHITECTURE.md}"
scratch="${RESOLVE_PATH_SCRATCH:-$root/.build-trace}"
driver="$root/Benchmarks/InstructionCounts"
helper="$root/Scripts/resolve-path.py"

die() {
    echo "check-resolve-path.sh: $*" >&2
    exit 2
}

for tool in swift valgrind python3 nm; do
    command -v "$tool" > /dev/null || die "$tool is not on PATH"
done
[ -f "$architecture" ] || die "no such file: $architecture"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The lists to trace, read first so that a malformed document fails before the build.
python3 "$helper" scenarios "$architecture" > "$work/scenarios" || die "cannot read the resolve path of $architecture"
[ -s "$work/scenarios" ] || die "$architecture traces no scenario"

# Debug: the frames the document describes are those of an unoptimized build (a release build inlines them).
if ! swift build -c debug --package-path "$driver" --scratch-path "$scratch" > "$work/build.log" 2>&1; then
    tail -n 30 "$work/build.log" >&2
    die "swift build of $driver failed"
fi
binary="$(swift build -c debug --package-path "$driver" --scratch-path "$scratch" --show-bin-path)/instruction-counts"
[ -x "$binary" ] || die "the build made no executable at $binary"

# Every function symbol of the executable with its simplified demangling, to find the entries' mangled names.
nm --defined-only "$binary" | awk 'NF == 3 && $3 ~ /^\$s/ { print $3 }' | sort -u > "$work/mangled"
[ -s "$work/mangled" ] || die "nm listed no Swift symbol in $binary"
swift demangle --simplified --compact < "$work/mangled" > "$work/demangled" || die "swift demangle failed"
[ "$(wc -l < "$work/mangled")" -eq "$(wc -l < "$work/demangled")" ] || die "swift demangle returned a different number of names"
paste "$work/mangled" "$work/demangled" > "$work/symbols"

status=0
while IFS=$'\t' read -r scenario entry; do
    printf '\n== %s: a resolve through %s\n' "$scenario" "$entry"
    mapfile -t symbols < <(python3 "$helper" entry-symbols "$entry" "$work/symbols")
    [ "${#symbols[@]}" -gt 0 ] || die "no symbol for the entry $entry"
    options=()
    for symbol in "${symbols[@]}"; do
        options+=("--toggle-collect=$symbol" "--dump-before=$symbol")
    done
    # Two resolves; a dump before each entry leaves the second, alone, in the file written at exit.
    out="$work/$scenario.callgrind"
    if ! valgrind --tool=callgrind --dump-instr=no --compress-strings=no --compress-pos=no \
        --callgrind-out-file="$out" "${options[@]}" "$binary" "$scenario" 2 > "$work/$scenario.log" 2>&1; then
        tail -n 20 "$work/$scenario.log" >&2
        die "valgrind on scenario $scenario failed"
    fi
    grep -q 'Collected : [1-9]' "$work/$scenario.log" || {
        tail -n 20 "$work/$scenario.log" >&2
        die "valgrind on scenario $scenario reported no instructions collected"
    }
    [ -s "$out" ] || die "valgrind wrote no call graph for scenario $scenario"
    set +e
    python3 "$helper" check "$architecture" "$scenario" "$out" "${symbols[@]}"
    result=$?
    set -e
    case "$result" in
        0) ;;
        1) status=1 ;;
        *) die "could not check scenario $scenario (exit $result)" ;;
    esac
done < "$work/scenarios"

if [ "$status" -ne 0 ]; then
    echo "check-resolve-path.sh: $architecture does not match the resolve path that runs" >&2
fi
exit "$status"
