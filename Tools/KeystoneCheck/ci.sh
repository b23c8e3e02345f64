#!/usr/bin/env bash
# Continuous integration of keystone-check. Every step fails loudly; a tool that fails is never a pass.
#
#   bash Tools/KeystoneCheck/ci.sh
#
# 1. builds the package warning-free and runs its tests;
# 2. checks the repository's Sources, Tests and Examples (no error expected), and the demo alone (its
#    one deliberate missing registration expected);
# 3. builds Examples/KeystoneCheckExample, whose target applies the build-tool plugin: it must pass;
# 4. builds a copy of that example with one registration removed: `swift build` must fail with a
#    `file:line:column: error:` line naming [missing].
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
package="$root/Tools/KeystoneCheck"
scratch="$package/.build-ci"
example="$root/Examples/KeystoneCheckExample"
example_scratch="$example/.build-ci"
log="$(mktemp -d)"
copy=""
cleanup() {
    rm -rf "$log"
    if [[ -n "$copy" ]]; then rm -rf "$copy"; fi
}
trap cleanup EXIT

step() { printf '\n== keystone-check ci: %s\n' "$*" >&2; }
fail() {
    printf 'keystone-check ci: FAILED: %s\n' "$*" >&2
    exit 1
}

step "build the package and its tests"
if ! swift build --package-path "$package" --scratch-path "$scratch" --build-tests 2>&1 | tee "$log/build.txt"; then
    fail "the package does not build"
fi
if grep -E "^$package/(Sources|Plugins|Tests)/.*: warning:" "$log/build.txt"; then
    fail "the package builds with warnings"
fi

step "run the tests"
swift test --package-path "$package" --scratch-path "$scratch" --skip-build || fail "the tests fail"

tool="$scratch/debug/keystone-check"
[[ -x "$tool" ]] || fail "no executable at $tool"

step "check the repository's Sources, Tests and Examples"
set +e
"$tool" "$root/Sources" "$root/Tests" "$root/Examples" >"$log/repo.txt" 2>"$log/repo-summary.txt"
status=$?
set -e
cat "$log/repo-summary.txt" >&2
if ((status != 0)) || grep -q ': error: ' "$log/repo.txt"; then
    grep ': error: ' "$log/repo.txt" >&2 || true
    fail "the repository checked with exit status $status; no error was expected"
fi
grep -q '^keystone-check: .* 0 errors, ' "$log/repo-summary.txt" || fail "no summary line with 0 errors"

step "check the demo, whose one deliberate mistake is a missing registration"
set +e
"$tool" "$root/Sources/KeystoneDemo" >"$log/demo.txt" 2>/dev/null
status=$?
set -e
cat "$log/demo.txt" >&2
((status == 1)) || fail "the demo checked with exit status $status, expected 1"
[[ "$(grep -c ': error: ' "$log/demo.txt")" == 1 ]] || fail "expected exactly one error in the demo"
grep -qE '^.*/main\.swift:[0-9]+:[0-9]+: error: No registration for RankingModel\..*\[missing\]$' "$log/demo.txt" ||
    fail "the demo's error is not the missing RankingModel"

step "build the example that applies the plugin (must pass)"
swift build --package-path "$example" --scratch-path "$example_scratch" 2>&1 | tee "$log/example.txt" ||
    fail "the example does not build"

step "build a copy of the example with a registration removed (must fail)"
copy="$(mktemp -d)/KeystoneCheckExample"
mkdir -p "$copy"
cp -R "$example/Package.swift" "$example/Sources" "$copy/"
sed -i.orig -e "s|path: \"../..\"|path: \"$root\"|" -e "s|path: \"../../Tools/KeystoneCheck\"|path: \"$package\"|" \
    "$copy/Package.swift"
assembly="$copy/Sources/NewsApp/NewsAssembly.swift"
grep -q 'container.register(HTTPClient.self)' "$assembly" || fail "the example no longer registers HTTPClient"
# Drop the registration and the scope chained to it (the line after).
sed -i.orig -e '/container.register(HTTPClient.self)/,+1d' "$assembly"
rm -f "$copy/Package.swift.orig" "$assembly.orig"
set +e
swift build --package-path "$copy" --scratch-path "$example_scratch" >"$log/mistake.txt" 2>&1
status=$?
set -e
if ((status == 0)); then
    cat "$log/mistake.txt" >&2
    fail "the build with a missing registration succeeded"
fi
if ! grep -E "NewsAssembly\.swift:[0-9]+:[0-9]+: error: No registration for HTTPClient\..*\[missing\]" "$log/mistake.txt" >&2; then
    cat "$log/mistake.txt" >&2
    fail "the failed build did not report the missing HTTPClient at file:line:column"
fi

step "passed"
