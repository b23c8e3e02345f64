#!/usr/bin/env bash
# The instruction-count gate: instructions per operation of the main scenarios, counted under
# `valgrind --tool=callgrind` (the same on every run, whatever else the machine does), against the budgets
# checked in beside this script (measured + 10%).
#
#   Benchmarks/InstructionCounts/gate.sh            # fails when a scenario exceeds its budget
#   Benchmarks/InstructionCounts/gate.sh --update   # measures again and rewrites budget.tsv
#
# Each scenario runs 1,000 and then 2,000 operations; the difference divided by 1,000 is one operation's
# cost, with start-up and set-up cancelled out. A scenario written `name:N` runs N and 2N operations instead
# (the app launch, 1.3 million instructions an operation, runs 10 and 20). Needs swift and valgrind.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
budgets="$here/budget.tsv"
scenarios=(app-launch:10 transient container counted-container counted-typed graph named argument three-arguments child great-grandchild chain fan-out failed
    synchronized-container synchronized-transient register startup inject)

swift build -c release --package-path "$here" > /dev/null
binary="$(swift build -c release --package-path "$here" --show-bin-path)/instruction-counts"

instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$binary" "$1" "$2" 2>&1 \
        | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

per_operation() {
    local name="${1%%:*}" operations=1000 one two
    if [[ "$1" == *:* ]]; then
        operations="${1##*:}"
    fi
    one=$(instructions "$name" "$operations")
    two=$(instructions "$name" $((operations * 2)))
    echo $(((two - one) / operations))
}

if [ "${1:-}" = "--update" ]; then
    {
        printf 'scenario\tmeasured\tbudget\n'
        for scenario in "${scenarios[@]}"; do
            measured=$(per_operation "$scenario")
            printf '%s\t%d\t%d\n' "${scenario%%:*}" "$measured" $((measured + measured / 10))
        done
    } > "$budgets"
    cat "$budgets"
    exit 0
fi

failed=0
passed=0
printf '%-24s %10s %10s\n' scenario measured budget
for scenario in "${scenarios[@]}"; do
    name="${scenario%%:*}"
    budget=$(awk -F'\t' -v s="$name" '$1 == s { print $3 }' "$budgets")
    if [ -z "$budget" ]; then
        echo "gate.sh: no budget for $scenario in $budgets (run with --update)" >&2
        exit 2
    fi
    measured=$(per_operation "$scenario")
    if [ "$measured" -gt "$budget" ]; then
        printf '%-24s %10d %10d  OVER BUDGET\n' "$name" "$measured" "$budget"
        failed=$((failed + 1))
    else
        printf '%-24s %10d %10d\n' "$name" "$measured" "$budget"
        passed=$((passed + 1))
    fi
done
echo "instruction gate: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
