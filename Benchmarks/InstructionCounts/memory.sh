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

peak() {
    valgrind --tool=dhat --dhat-out-file=/dev/null "$binary" "$1" "$2" 2>&1 \
        | sed -n 's/.*At t-gmax: *\([0-9,]*\) bytes.*/\1/p' | tr -d ,
}

printf '| registrations kept by | bytes per registration |\n|---|---:|\n'
for scenario in register dictionary-register; do
    one=$(peak "$scenario" 1000)
    two=$(peak "$scenario" 2000)
    printf '| %s | %d |\n' "$scenario" $(((two - one) / 1000))
done
