#!/usr/bin/env bash
# Builds the RequestScopes example (debug, warnings as errors in Keystone and the example; the remote
# packages build with their own settings) and runs its tests. Needs only the repository and the package
# mirror; everything it builds goes to the example's own .build directory.
set -euo pipefail

package="$(cd "$(dirname "$0")" && pwd)"
flags=(--package-path "$package" -Xswiftc -warnings-as-errors)

swift build "${flags[@]}" --build-tests
swift test "${flags[@]}"
