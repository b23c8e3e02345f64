#!/usr/bin/env bash
# Runs every Keystone benchmark (Keystone, Swinject and the hand-written baseline, side by side) in release
# mode and prints one markdown table of the medians per operation. The app launch also runs on the leanest
# hand-written container (suite "Lean", no object per registration) and without a container (suite "Direct",
# which calls the initializers by hand): each gets two more columns, its time and Keystone's ratio to it.
#
#     Benchmarks/compare.sh                       # everything, a few minutes
#     Benchmarks/compare.sh --filter '0[1-3] .*'  # extra arguments go to `swift package benchmark`
#
# The table goes to standard output, preceded by the exact command run; the benchmark tool's own output
# goes to standard error. Needs swift and python3; nothing outside this checkout besides the packages.
set -euo pipefail

benchmarks_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
export_dir="$(mktemp -d)"
trap 'rm -rf "$export_dir"' EXIT

# `swift package benchmark` builds the benchmark target in release mode, then runs it. JMH is the export
# that carries every metric's percentiles in one JSON file.
command=(
    swift package --package-path "$benchmarks_dir" --allow-writing-to-directory "$export_dir"
    benchmark --no-progress --format jmh --path "$export_dir" "$@"
)
printf '$'
printf ' %q' "${command[@]}"
printf '\n\n'

if ! "${command[@]}" >&2; then
    echo "compare.sh: the benchmark run failed (its output is above, on standard error)" >&2
    exit 1
fi

python3 - "$export_dir" <<'PYTHON'
import glob
import json
import os
import sys

# Every benchmark runs 1,000 operations per sample (scaling factor `.kilo`, see KeystoneBenchmarks.swift).
operations_per_sample = 1_000
suites = ("Keystone", "Swinject", "Baseline")
# The suite with no container, and the one on the leanest hand-written container, which only the app launch
# has (see DirectSuite.swift).
direct_suite = "Direct"
lean_suite = "Lean"
# The benchmark that measures the harness alone (see `harnessBenchmarkName` in KeystoneBenchmarks.swift).
harness_name = "00 empty loop (harness overhead)"

files = glob.glob(os.path.join(sys.argv[1], "*.jmh.json"))
if not files:
    sys.exit("compare.sh: the benchmark run wrote no JMH export")

# JMH names a benchmark "package.benchmark.<target>.<name with spaces as underscores>" and gives, per
# metric, percentiles per SAMPLE: times in microseconds, counts as they are. The median is "50.0".
samples = {}  # benchmark name -> {"ns": ..., "mallocs": ..., "instructions": ...} per sample, p50
for path in files:
    with open(path) as file:
        for element in json.load(file):
            name = element["benchmark"].split(".", 3)[3].replace("_", " ")
            metrics = element.get("secondaryMetrics", {})

            def median(metric, scale=1.0):
                entry = metrics.get(metric)
                return None if entry is None else entry["scorePercentiles"]["50.0"] * scale

            samples[name] = {
                "ns": median("Time (wall clock)", scale=1_000.0),
                "mallocs": median("Malloc (total)"),
                "instructions": median("Instructions"),
            }

# The harness's own mallocs per sample, subtracted from every benchmark's.
harness = samples.get(harness_name, {})
harness_mallocs = harness.get("mallocs") or 0.0


def per_operation(scenario, suite, metric):
    value = samples.get(f"{scenario} / {suite}", {}).get(metric)
    if value is None:
        return None
    if metric == "mallocs":
        value = max(value - harness_mallocs, 0.0)
    return value / operations_per_sample


# The names start with their number, so sorting by name gives the table's order, the app launch ("00") first.
scenarios = sorted({
    name.rpartition(" / ")[0] for name in samples if name.rpartition(" / ")[2] in suites + (direct_suite, lean_suite)
})
has_instructions = any(
    (per_operation(scenario, "Keystone", "instructions") or 0) > 0 for scenario in scenarios
)
has_direct = any(per_operation(scenario, direct_suite, "ns") is not None for scenario in scenarios)
has_lean = any(per_operation(scenario, lean_suite, "ns") is not None for scenario in scenarios)


def number(x, digits=1):
    return "n/a" if x is None else f"{x:,.{digits}f}"


def ratio(numerator, denominator):
    if numerator is None or denominator is None or denominator == 0:
        return "n/a"
    return f"{numerator / denominator:.2f}×"


header = [
    "scenario", "Keystone ns/op", "Swinject ns/op", "baseline ns/op",
    "Swinject/Keystone", "Keystone/baseline",
]
if has_lean:
    header += ["lean ns/op", "Keystone/lean"]
if has_direct:
    header += ["direct ns/op", "Keystone/direct"]
header.append("Keystone mallocs/op")
if has_instructions:
    header.append("Keystone instructions/op")
print("| " + " | ".join(header) + " |")
print("|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|")
for scenario in scenarios:
    keystone, swinject, baseline = (per_operation(scenario, suite, "ns") for suite in suites)
    row = [
        scenario, number(keystone), number(swinject), number(baseline),
        ratio(swinject, keystone), ratio(keystone, baseline),
    ]
    if has_lean:
        # Most scenarios have no lean or direct figure: a dash, not "n/a", since there is none to miss.
        lean = per_operation(scenario, lean_suite, "ns")
        row += ["–", "–"] if lean is None else [number(lean), ratio(keystone, lean)]
    if has_direct:
        direct = per_operation(scenario, direct_suite, "ns")
        row += ["–", "–"] if direct is None else [number(direct), ratio(keystone, direct)]
    row.append(number(per_operation(scenario, "Keystone", "mallocs"), 2))
    if has_instructions:
        row.append(number(per_operation(scenario, "Keystone", "instructions"), 0))
    print("| " + " | ".join(row) + " |")

print()
print(f"Medians (p50) per sample divided by the {operations_per_sample:,} operations of a sample.")
print("Swinject/Keystone: how many times faster Keystone is than Swinject (below 1: slower).")
print("Keystone/baseline: how many times the hand-written dictionary baseline's time Keystone takes.")
if has_lean:
    print("lean: the same launch on a hand-written container with no object per registration (a factory closure")
    print("in a dictionary slot); Keystone/lean: how many times its time Keystone takes.")
if has_direct:
    print("direct: the same launch with no container, by a composition root that calls the initializers itself;")
    print("Keystone/direct: how many times that physical limit Keystone takes.")
if harness:
    print(f"The harness alone (an empty loop) takes {number(harness['ns'] / operations_per_sample, 1)} ns/op; "
          f"its {harness_mallocs:.0f} mallocs per sample are subtracted from the malloc counts.")
else:
    print("The harness benchmark did not run: malloc counts include the harness's own few per sample.")
if not has_instructions:
    print("Instructions were not measured (no hardware performance counters available here).")
PYTHON
