#!/usr/bin/env bash
# Builds the DocC catalog with warnings as errors: every symbol link and every article must resolve.
# Needs only the toolchain (swift and docc); nothing is kept in the repository.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

swift build --package-path "$root" --target Keystone --scratch-path "$root/.build-docs" \
    -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$work/symbol-graphs"
docc convert "$root/Sources/Keystone/Keystone.docc" \
    --additional-symbol-graph-dir "$work/symbol-graphs" \
    --fallback-display-name Keystone --fallback-bundle-identifier keystone \
    --output-path "$work/Keystone.doccarchive" \
    --warnings-as-errors
# A converter that exits 0 having written nothing is no pass: the archive must hold the module's page.
if [ ! -f "$work/Keystone.doccarchive/data/documentation/keystone.json" ]; then
    echo "docs.sh: docc wrote no documentation for the module" >&2
    exit 1
fi
echo "DocC: the catalog converts with no warnings"
