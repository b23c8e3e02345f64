#!/usr/bin/env bash
# Builds the RequestScopes example (debug, warnings as errors in Keystone and the example; the remote
# packages build with their own settings) and runs its tests. Needs only the repository and the package
# mirror; everything it builds goes to the example's own .build directory.
set -euo pipefail

package="$(cd "$(dirname "$0")" && pwd)"
flags=(--package-path "$package" -Xswiftc -warnings-as-errors)

swift build "${flags[@]}" --build-tests
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
swift test "${flags[@]}" 2>&1 | tee "$log"
# A test command that ran nothing is no pass: Swift Testing's closing line must count at least one test.
if ! grep -Eq "Test run with [1-9][0-9]* tests? .*passed" "$log"; then
    echo "run.sh: the example's test run reported no passing tests" >&2
    exit 1
fi
