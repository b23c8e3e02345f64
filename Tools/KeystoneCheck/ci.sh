#!/usr/bin/env bash
# Continuous integration of keystone-check. Every step fails loudly; a tool that fails is never a pass.
#
#   bash Tools/KeystoneCheck/ci.sh
#
# 1. builds the package warning-free and runs its tests;
# 2. checks the repository's Sources, Tests and Examples (no error expected), and the demo alone (its
#    one deliberate missing registration expected);
# 3. builds Examples/KeystoneCheckExample, whose target applies the build-tool plugin: it must pass;
# 4. builds that example again with a planted file whose resolve nothing registers: `swift build` must
#    fail with a `file:line:column: error:` line naming [missing]; the file is removed afterwards.
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
package="$root/Tools/KeystoneCheck"
scratch="$package/.build-ci"
example="$root/Examples/KeystoneCheckExample"
example_scratch="$example/.build-ci"
log="$(mktemp -d)"
planted=""
cleanup() {
    rm -rf "$log"
    if [[ -n "$planted" ]]; then rm -f "$planted"; fi
}
trap cleanup EXIT INT TERM

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

step "build the example with a planted missing registration (must fail)"
# The mistake lives only for this step, in a file of its own that the trap removes again; the same
# scratch path is reused, so only the example's own target is rebuilt.
planted="$example/Sources/NewsApp/PlantedMistake.swift"
[[ ! -e "$planted" ]] || fail "$planted exists already; remove it first"
cat >"$planted" <<'SWIFT'
import Keystone

/// A service whose dependency nobody registers: the check must fail the build here.
final class Newsletter: Sendable {
    init(mailer: any Mailer) {}
}

protocol Mailer: Sendable {}

enum PlantedMistake {
    static func register(in container: Container) {
        container.register(Newsletter.self) { r in Newsletter(mailer: r.resolve(Mailer.self)!) }
    }
}
SWIFT
set +e
swift build --package-path "$example" --scratch-path "$example_scratch" >"$log/mistake.txt" 2>&1
status=$?
set -e
rm -f "$planted"
if ((status == 0)); then
    cat "$log/mistake.txt" >&2
    fail "the build with a missing registration succeeded"
fi
if ! grep -E "PlantedMistake\.swift:12:73: error: No registration for Mailer\..*\[missing\]" "$log/mistake.txt" >&2; then
    cat "$log/mistake.txt" >&2
    fail "the failed build did not report the missing Mailer at file:line:column"
fi

step "passed"
