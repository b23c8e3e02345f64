#!/usr/bin/env bash
# The rows the performance targets name, in instructions per operation: each Keystone scenario beside its
# hand-written baseline (`Sources/instruction-counts/Baselines/`, on the wall-clock benchmark's baseline
# containers), and their ratio. Not a gate: a reference that, unlike the wall-clock table, reads the same
# on every run.
#
#   Benchmarks/InstructionCounts/targets.sh
#
# Needs swift and valgrind. About two minutes.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=count.sh
source "$here/count.sh"

# Keystone scenario, its baseline, and the wall-clock row they correspond to.
pairs=(
    "transient baseline-transient 01"
    "named baseline-named 04"
    "argument baseline-argument 05"
    "three-arguments baseline-three-arguments 06"
    "failed baseline-failed 11"
    "actor-resolve:10000 baseline-actor-resolve:10000 19"
    "resolve-all baseline-resolve-all 25"
    "multiton-hit baseline-multiton-hit 26"
    "request-scope baseline-request-scope 27"
    "app-launch:10 lean-launch:10 00"
)

printf '%-4s %-18s %10s %10s %7s\n' row scenario keystone baseline ratio
for pair in "${pairs[@]}"; do
    read -r keystone baseline row <<<"$pair"
    per_operation "$keystone"
    ours=$measured
    per_operation "$baseline"
    theirs=$measured
    printf '%-4s %-18s %10d %10d %6s×\n' "$row" "${keystone%%:*}" "$ours" "$theirs" \
        "$(awk -v a="$ours" -v b="$theirs" 'BEGIN { printf "%.2f", a / b }')"
done
