#!/usr/bin/env bash
# Builds the differential test in release and runs its three modes; usable from CI at the repo root.
#
#   Differential/run.sh                          # self (200), mutant (50), keystone (300 sequences)
#   DIFFERENTIAL_SEQUENCES=3000 Differential/run.sh
#
# Exits non-zero when Swinject disagrees with itself, when the mutant goes unnoticed, or when Keystone
# diverges from Swinject.
set -euo pipefail

cd "$(dirname "$0")/.."
swift build -c release --package-path Differential
binary="$(swift build -c release --package-path Differential --show-bin-path)/differential"

echo "== self: Swinject vs Swinject (must pass: the harness is deterministic)"
DIFFERENTIAL_MODE=self DIFFERENTIAL_SEQUENCES="${DIFFERENTIAL_SELF_SEQUENCES:-200}" "$binary"

echo "== mutant: Swinject vs Keystone with wrong scopes (must find divergences: the test can fail)"
# Its summary is reworded: failures are the expected outcome here, not a failing run.
DIFFERENTIAL_MODE=mutant DIFFERENTIAL_SEQUENCES="${DIFFERENTIAL_MUTANT_SEQUENCES:-50}" "$binary" | tail -n 2 \
    | sed -E 's/^([0-9]+) passed, ([0-9]+) failed$/mutant detected: \2 sequences diverged, \1 did not/'

echo "== keystone: Swinject vs Keystone"
sequences="${DIFFERENTIAL_SEQUENCES:-300}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
DIFFERENTIAL_MODE=keystone DIFFERENTIAL_SEQUENCES="$sequences" "$binary" | tee "$log"
# Exit 0 alone is no pass: every sequence asked for must have run and agreed.
if ! grep -qx "$sequences passed, 0 failed" "$log"; then
    echo "run.sh: expected \"$sequences passed, 0 failed\" from the keystone mode" >&2
    exit 1
fi
