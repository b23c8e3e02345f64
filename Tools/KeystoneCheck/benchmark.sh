#!/usr/bin/env bash
# Measures keystone-check over a generated app: 1,000 registrations across 50 files, each factory
# resolving up to two services registered before it (so the graph has no cycle and no missing key).
#
#   bash Tools/KeystoneCheck/benchmark.sh            # builds the release tool, then times it
#   KEYSTONE_CHECK=/path/to/keystone-check bash Tools/KeystoneCheck/benchmark.sh
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
files=50
per_file=20
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

for ((f = 0; f < files; f++)); do
    {
        echo "import Keystone"
        echo
        printf 'struct Assembly%02d: Assembly {\n' "$f"
        echo "    func assemble(container: Container) {"
        for ((i = 0; i < per_file; i++)); do
            n=$((f * per_file + i))
            if ((n == 0)); then
                echo "        container.register(Service0.self) { _ in Service0() }"
            elif ((n % 7 == 0)); then
                echo "        container.register(Service$n.self, name: \"n$n\") { r, id in"
                echo "            Service$n(a: r.resolve(Service$((n - 1)).self)!, id: id)"
                echo "        }.inObjectScope(.container)"
            else
                echo "        container.register(Service$n.self) { r in"
                echo "            Service$n(a: r.resolve(Service$((n - 1)).self)!, b: try r.resolveThrows(Service$((n / 2)).self))"
                echo "        }"
            fi
        done
        echo "    }"
        echo "}"
    } >"$out/Assembly$(printf %02d "$f").swift"
done
# Services that every seventh registration names and gives an argument are resolved that way too.
sed -i -E 's/r\.resolve\(Service([0-9]+)\.self\)!/r.resolve(Service\1.self)!/' "$out"/*.swift
for ((n = 7; n < files * per_file; n += 7)); do
    sed -i -E "s/r\.resolve\(Service$n\.self\)!/r.resolve(Service$n.self, name: \"n$n\", argument: 1)!/; s/r\.resolveThrows\(Service$n\.self\)/r.resolveThrows(Service$n.self, name: \"n$n\", argument: 1)/" "$out"/*.swift
done

tool="${KEYSTONE_CHECK:-}"
if [[ -z "$tool" ]]; then
    swift build -c release --package-path "$here" --scratch-path "$here/.build-release" --product keystone-check >&2
    tool="$here/.build-release/release/keystone-check"
fi

echo "$(cat "$out"/*.swift | grep -c 'container.register(') registrations in $(ls "$out" | wc -l) files" >&2
set +e
"$tool" "$out" >/dev/null
status=$?
set -e
if ((status != 0)); then
    echo "benchmark: the generated app should check clean, got exit status $status" >&2
    "$tool" "$out" | head -5 >&2
    exit 1
fi
if command -v hyperfine >/dev/null; then
    hyperfine --warmup 2 --runs 10 "$tool $out"
else
    for run in 1 2 3 4 5; do
        /usr/bin/env time -f "run $run: %e s wall, %U s user, %M KB max RSS" "$tool" "$out" 2>&1 >/dev/null | grep '^run'
    done
fi
