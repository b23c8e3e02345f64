#!/usr/bin/env python3
"""Prints a `swift test --filter` expression that selects the tests carrying a Swift Testing tag.

    swift test list --experimental-event-stream-output tests.jsonl --experimental-event-stream-version 0
    python3 Scripts/tagged-tests.py tests.jsonl concurrency [--without deepStack ...]

The event stream of `swift test list` names every suite and test with the tags written on it (with
SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED=1 in the environment of the listing); a test inherits the
tags of the suites it is nested in, as Swift Testing's own tag filters do. The expression
is an alternation of the selected tests' identifiers, each escaped and anchored by its parentheses, so
it selects exactly them. Exits 2, printing nothing, when the stream lists no test at all or no test
carries the tag: a run selected by a tag that matches nothing must fail, not pass with zero tests.
"""

import json
import re
import sys


def main(arguments):
    if len(arguments) < 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        print("usage: tagged-tests.py EVENTS.jsonl TAG [--without TAG ...]", file=sys.stderr)
        return 2
    path, tag = arguments[0], "." + arguments[1]
    excluded = set()
    rest = arguments[2:]
    while rest:
        if rest[0] != "--without" or len(rest) < 2:
            print(f"tagged-tests.py: unexpected argument {rest[0]}", file=sys.stderr)
            return 2
        excluded.add("." + rest[1])
        rest = rest[2:]

    functions = []
    suite_tags = {}
    with open(path) as events:
        for line in events:
            record = json.loads(line)
            payload = record.get("payload", {})
            if record.get("kind") != "test":
                continue
            if payload.get("kind") == "suite":
                suite_tags[payload["id"]] = set(payload.get("_tags", []))
            elif payload.get("kind") == "function":
                functions.append(payload)
    if not functions:
        print(f"tagged-tests.py: {path} lists no test (was the listing made with the event stream?)",
              file=sys.stderr)
        return 2
    if not any("_tags" in test for test in functions + [{"_tags": t} for t in suite_tags.values() if t]):
        print("tagged-tests.py: the listing carries no tags (set SWT_EXPERIMENTAL_EVENT_STREAM_FIELDS_ENABLED=1)",
              file=sys.stderr)
        return 2

    selected = []
    for test in functions:
        # The identifier ends with the test's source location: `Module.Suite/name()/File.swift:12:5`;
        # each shorter prefix (`Module.Suite`, `Module.Outer/Inner`) is a suite it is nested in.
        identifier = re.sub(r"/[^/]*\.swift:\d+:\d+$", "", test["id"])
        tags = set(test.get("_tags", []))
        parts = identifier.split("/")
        for depth in range(1, len(parts)):
            tags |= suite_tags.get("/".join(parts[:depth]), set())
        if tag in tags and not tags & excluded:
            selected.append(re.escape(identifier))
    if not selected:
        print(f"tagged-tests.py: no test carries the tag {tag}", file=sys.stderr)
        return 2
    print(f"tagged-tests.py: {len(selected)} of {len(functions)} tests carry {tag}"
          + (f" and none of {', '.join(sorted(excluded))}" if excluded else ""), file=sys.stderr)
    print("|".join(sorted(set(selected))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
