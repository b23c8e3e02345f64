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
# (the app launch, 1.3 million instructions an operation, runs 10 and 20; the async rows run 10,000 and
# 20,000, since their worker thread's start and end vary by some 10,000 instructions from run to run).
# Needs swift and valgrind.
#
# Every run hashes with a fixed seed (SWIFT_DETERMINISTIC_HASHING): with the per-process random seed, a
# dictionary built in the measured loop (`resolveAll`'s, for one) probes differently on every run, and
# `resolve-all` varied by 6% between runs.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
budgets="$here/budget.tsv"
scenarios=(app-launch:10 transient container counted-container counted-typed graph named argument three-arguments child great-grandchild chain fan-out failed
    synchronized-container synchronized-transient register startup inject resolve-all multiton-hit multiton-hit-struct:200
    multiton-hit-two-arguments:200 request-scope server-scope
    async-cached:10000 async-transient:10000 actor-resolve:10000)

# shellcheck source=count.sh
source "$here/count.sh"

if [ "${1:-}" = "--update" ]; then
    # Written to a scratch file first, so a failing measurement leaves the budgets as they were.
    updated="$(mktemp)"
    {
        printf 'scenario\tmeasured\tbudget\n'
        for scenario in "${scenarios[@]}"; do
            per_operation "$scenario"
            printf '%s\t%d\t%d\n' "${scenario%%:*}" "$measured" $((measured + measured / 10))
        done
    } > "$updated"
    mv "$updated" "$budgets"
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
    per_operation "$scenario"
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
