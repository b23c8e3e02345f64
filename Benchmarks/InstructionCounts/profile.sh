#!/usr/bin/env bash
# Where one operation of a scenario spends its instructions: the scenario runs N and 2N operations under
# `valgrind --tool=callgrind` (N = 1,000, or `name:N`), and profile.py prints the difference per operation,
# grouped by kind of work, then the functions that cost most.
#
#   Benchmarks/InstructionCounts/profile.sh request-scope baseline-request-scope actor-resolve:10000
#
# Needs swift, valgrind (with callgrind_annotate) and python3.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
swift build -c release --package-path "$here" > /dev/null
binary="$(swift build -c release --package-path "$here" --show-bin-path)/instruction-counts"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

for scenario in "$@"; do
    name="${scenario%%:*}" operations=1000
    if [[ "$scenario" == *:* ]]; then
        operations="${scenario##*:}"
    fi
    for run in 1 2; do
        SWIFT_DETERMINISTIC_HASHING=1 valgrind --tool=callgrind --callgrind-out-file="$scratch/$run.out" \
            "$binary" "$name" $((operations * run)) > /dev/null 2>&1
    done
    echo "== $name"
    python3 "$here/profile.py" "$scratch/1.out" "$scratch/2.out" "$operations" "${TOP:-12}"
    echo
done
