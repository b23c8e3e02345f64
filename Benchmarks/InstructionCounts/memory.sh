#!/usr/bin/env bash
# Bytes each registration keeps alive, Keystone against a dictionary keyed by service type and name whose
# value is an object holding the factory closure: `valgrind --tool=dhat` reports the heap at its peak for
# 1,000 and 2,000 registrations, and the difference divided by 1,000 is the cost of one.
#
#   Benchmarks/InstructionCounts/memory.sh
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
swift build -c release --package-path "$here" > /dev/null
binary="$(swift build -c release --package-path "$here" --show-bin-path)/instruction-counts"

# Sets `bytes` to the heap dhat saw at its peak in one run of scenario `$1` with `$2` registrations; stops
# the script when valgrind or the scenario fails or reports no peak (never a figure made of nothing).
bytes=
peak() {
    local output status=0
    output="$(valgrind --tool=dhat --dhat-out-file=/dev/null "$binary" "$1" "$2" 2>&1)" || status=$?
    bytes="$(sed -n 's/.*At t-gmax: *\([0-9,]*\) bytes.*/\1/p' <<<"$output" | tr -d ,)"
    if [ "$status" -ne 0 ] || ! [[ "$bytes" =~ ^[0-9]+$ ]] || [ "$bytes" -eq 0 ]; then
        printf '%s\n' "$output" | tail -n 20 >&2
        echo "memory.sh: valgrind on scenario $1 ($2 registrations) exited $status and reported no peak" >&2
        exit 2
    fi
}

printf '| registrations kept by | bytes per registration |\n|---|---:|\n'
for scenario in register dictionary-register; do
    peak "$scenario" 1000
    one=$bytes
    peak "$scenario" 2000
    printf '| %s | %d |\n' "$scenario" $(((bytes - one) / 1000))
done
