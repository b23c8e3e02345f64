#!/usr/bin/env python3
"""Draws a creation profile exported as a Chrome trace (`CreationProfile.chromeTrace`) as two SVG files.

    python3 Scripts/render-profile.py TRACE.json --timeline TIMELINE.svg --gantt GANTT.svg

- The timeline has one lane per thread; a creation that started during another one is drawn on the row
  below it, and creations that overlap without nesting (async ones taking turns) get rows of their own.
- The Gantt chart has one row per creation, in start order, grouped by thread, as the Mermaid chart of
  `CreationProfile.mermaidGantt` would draw it.

Both share a time axis in milliseconds since the first creation. Only the standard library is used, so the
pictures of the documentation can be redrawn anywhere a trace can be made:

    swift run KeystoneDemo --trace /tmp/launch.json
    python3 Scripts/render-profile.py /tmp/launch.json \\
        --timeline Sources/Keystone/Keystone.docc/Resources/launch-timeline.svg \\
        --gantt Sources/Keystone/Keystone.docc/Resources/launch-gantt.svg
"""

import argparse
import json
import math
import sys
from xml.sax.saxutils import escape

WIDTH = 960
MARGIN = 16
FONT = "font-family=\"-apple-system, 'Helvetica Neue', Arial, sans-serif\""
MONO = "font-family=\"'SF Mono', Menlo, Consolas, monospace\""
CHAR_WIDTH = 6.6  # an estimate of one character's width at 11 px, to decide where a label fits
ROW = 20
BAR = 16

# One colour per scope; other scopes (custom ones, multiton, weak) share the last.
SCOPE_COLOURS = {
    "container": "#3d6fb4",
    "graph": "#3f9b6a",
    "transient": "#d08a2e",
}
OTHER_COLOUR = "#7d6aa8"


def colour(scope):
    return SCOPE_COLOURS.get(scope, OTHER_COLOUR)


def load_events(path):
    """The complete events of the trace, each with its index (the record's index in the profile)."""
    with open(path, encoding="utf-8") as file:
        trace = json.load(file)
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    result = []
    for index, event in enumerate(events):
        if event.get("ph") != "X":
            continue
        args = event.get("args") or {}
        result.append(
            {
                "index": index,
                "name": str(event.get("name", "?")),
                "scope": str(args.get("scope", event.get("cat", ""))),
                "start": float(event["ts"]) / 1000.0,  # milliseconds
                "duration": float(event.get("dur", 0)) / 1000.0,
                "thread": event.get("tid", 0),
                "parent": args.get("parent"),
            }
        )
    if not result:
        sys.exit(f"render-profile.py: {path} holds no complete (\"ph\": \"X\") events")
    origin = min(event["start"] for event in result)
    for event in result:
        event["start"] -= origin
        event["end"] = event["start"] + event["duration"]
    return result


def threads_in_order(events):
    """The thread identifiers in the order they first appear, as the profile numbers them."""
    order = []
    for event in sorted(events, key=lambda e: (e["start"], e["index"])):
        if event["thread"] not in order:
            order.append(event["thread"])
    return order


def nice_step(span, ticks=8):
    """A round tick interval (1, 2 or 5 times a power of ten) giving about `ticks` ticks over `span`."""
    if span <= 0:
        return 1.0
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    for factor in (1, 2, 5, 10):
        if raw <= factor * power:
            return factor * power
    return 10 * power


def format_ms(value, step):
    decimals = max(0, -int(math.floor(math.log10(step)))) if step < 1 else 0
    return f"{value:.{decimals}f}"


class Scale:
    """Milliseconds to x coordinates, between `left` and `right`."""

    def __init__(self, span, left, right):
        self.span = span if span > 0 else 1.0
        self.left = left
        self.right = right

    def x(self, ms):
        return self.left + (self.right - self.left) * ms / self.span


def axis(scale, top, bottom):
    """The time axis: tick labels above `top`, grid lines down to `bottom`."""
    step = nice_step(scale.span)
    parts = [
        f'<text x="{scale.left}" y="{top - 20}" font-size="11" fill="#555" {FONT}>time since the first creation (ms)</text>'
    ]
    value = 0.0
    while value <= scale.span + step / 1000:
        x = scale.x(value)
        parts.append(f'<line x1="{x:.1f}" y1="{top - 4}" x2="{x:.1f}" y2="{bottom}" stroke="#e3e3e3"/>')
        parts.append(
            f'<text x="{x:.1f}" y="{top - 7}" font-size="10" fill="#555" text-anchor="middle" {FONT}>'
            f"{format_ms(value, step)}</text>"
        )
        value += step
    return parts


def bar(event, x1, x2, y, room_right, clip_id):
    """A creation's bar with its label: inside the bar if it fits, else after it if there is room, else
    cut at the bar's end. `room_right` is where the next thing on the row starts."""
    width = max(x2 - x1, 1.0)
    label = escape(event["name"])
    tooltip = escape(f"{event['name']} ({event['scope']}): {event['duration']:.3f} ms from {event['start']:.3f} ms")
    text_width = len(event["name"]) * CHAR_WIDTH + 8
    parts = [
        f"<g><title>{tooltip}</title>",
        f'<rect x="{x1:.1f}" y="{y}" width="{width:.1f}" height="{BAR}" rx="2" fill="{colour(event["scope"])}"/>',
    ]
    if text_width <= width:
        parts.append(f'<text x="{x1 + 4:.1f}" y="{y + 12}" font-size="11" fill="#fff" {FONT}>{label}</text>')
    elif text_width <= room_right - (x1 + width):
        parts.append(f'<text x="{x1 + width + 3:.1f}" y="{y + 12}" font-size="11" fill="#222" {FONT}>{label}</text>')
    elif width > 30:
        parts.append(
            f'<clipPath id="{clip_id}"><rect x="{x1:.1f}" y="{y}" width="{width:.1f}" height="{BAR}"/></clipPath>'
        )
        parts.append(
            f'<text x="{x1 + 4:.1f}" y="{y + 12}" font-size="11" fill="#fff" clip-path="url(#{clip_id})" {FONT}>'
            f"{label}</text>"
        )
    else:
        parts.append("</g>")
        return parts, False
    parts.append("</g>")
    return parts, True


def cluster_labels(unlabelled, y, room_left):
    """Names for bars too narrow to carry their own: bars less than 24 pixels apart form a
    cluster, labelled once, before its first bar, if there is room there. `unlabelled` holds
    (x1, x2, name), sorted by x1."""
    parts = []
    clusters = []
    for x1, x2, name in unlabelled:
        if clusters and x1 - clusters[-1][1] <= 24:
            clusters[-1][1] = max(clusters[-1][1], x2)
            clusters[-1][2].append(name)
        else:
            clusters.append([x1, x2, [name]])
    for x1, x2, names in clusters:
        text = ", ".join(names)
        if len(text) * CHAR_WIDTH + 8 <= x1 - room_left(x1):
            parts.append(
                f'<text x="{x1 - 4:.1f}" y="{y + 12}" font-size="11" fill="#222" text-anchor="end" {FONT}>'
                f"{escape(text)} →</text>"
            )
    return parts


def legend(events, x, y):
    scopes = []
    for event in events:
        if event["scope"] not in scopes:
            scopes.append(event["scope"])
    parts = []
    for scope in scopes:
        parts.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" rx="2" fill="{colour(scope)}"/>')
        parts.append(f'<text x="{x + 14}" y="{y}" font-size="11" fill="#333" {FONT}>.{escape(scope)}</text>')
        x += 14 + len(scope) * CHAR_WIDTH + 24
    return parts


def svg(width, height, title, body):
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" role="img">',
            f"<title>{escape(title)}</title>",
            f'<rect width="{width}" height="{height}" fill="#fff"/>',
            *body,
            "</svg>",
            "",
        ]
    )


def assign_rows(events):
    """Rows within one thread's lane: a creation goes on the first row below its parent's (when the parent
    ran on the same thread) where it overlaps nothing already placed."""
    rows = {}  # event index -> row
    occupied = []  # per row, the (start, end) intervals placed on it
    by_index = {event["index"]: event for event in events}
    for event in sorted(events, key=lambda e: (e["start"], -e["duration"], e["index"])):
        parent = by_index.get(event["parent"]) if event["parent"] is not None else None
        row = rows[parent["index"]] + 1 if parent is not None and parent["index"] in rows else 0
        while True:
            if row == len(occupied):
                occupied.append([])
            if all(event["end"] <= start or event["start"] >= end for start, end in occupied[row]):
                break
            row += 1
        # A zero-length creation still takes a sliver of its row.
        occupied[row].append((event["start"], max(event["end"], event["start"] + 1e-9)))
        rows[event["index"]] = row
    return rows


def timeline(events, title):
    span = max(event["end"] for event in events)
    threads = threads_in_order(events)
    label_width = 96
    scale = Scale(span, MARGIN + label_width, WIDTH - MARGIN - 4)
    top = 62
    body = [f'<text x="{MARGIN}" y="22" font-size="14" font-weight="600" fill="#222" {FONT}>{escape(title)}</text>']
    lanes = []
    y = top
    for number, thread in enumerate(threads, start=1):
        lane_events = [event for event in events if event["thread"] == thread]
        rows = assign_rows(lane_events)
        row_count = max(rows.values()) + 1
        lanes.append((number, thread, lane_events, rows, y, row_count))
        y += row_count * ROW + 14
    bottom = y - 8
    body += axis(scale, top, bottom)
    body += legend(events, WIDTH - MARGIN - 300, 22)
    for number, thread, lane_events, rows, lane_top, row_count in lanes:
        height = row_count * ROW + 6
        body.append(
            f'<rect x="{MARGIN}" y="{lane_top - 3}" width="{WIDTH - 2 * MARGIN}" height="{height}" '
            f'fill="{"#f6f7f9" if number % 2 else "#fbfbfc"}" stroke="#d9dce1"/>'
        )
        body.append(
            f'<text x="{MARGIN + 6}" y="{lane_top + 12}" font-size="11" font-weight="600" fill="#333" {FONT}>'
            f"Thread {number}</text>"
        )
        unlabelled = {}  # row -> [(x1, x2, name)]
        labelled_ends = {}  # row -> [x where a label or bar ends]
        for event in sorted(lane_events, key=lambda e: (e["start"], e["index"])):
            row = rows[event["index"]]
            x1, x2 = scale.x(event["start"]), scale.x(event["end"])
            following = [
                scale.x(other["start"])
                for other in lane_events
                if rows[other["index"]] == row and other["start"] >= event["end"] and other is not event
            ]
            room = min(following, default=WIDTH - MARGIN)
            parts, labelled = bar(event, x1, x2, lane_top + row * ROW, room, f"t{event['index']}")
            body += parts
            if labelled:
                end = max(x2, x1 + len(event["name"]) * CHAR_WIDTH + 8)
                labelled_ends.setdefault(row, []).append(end)
            else:
                unlabelled.setdefault(row, []).append((x1, x2, event["name"]))
        for row, bars in unlabelled.items():
            ends = labelled_ends.get(row, [])

            def room_left(x, ends=ends):
                return max([end for end in ends if end <= x], default=scale.left)

            body += cluster_labels(bars, lane_top + row * ROW, room_left)
    return svg(WIDTH, bottom + MARGIN, title, body)


def gantt(events, title):
    span = max(event["end"] for event in events)
    threads = threads_in_order(events)
    label_width = 250
    scale = Scale(span, MARGIN + label_width, WIDTH - MARGIN - 4)
    top = 62
    body = [f'<text x="{MARGIN}" y="22" font-size="14" font-weight="600" fill="#222" {FONT}>{escape(title)}</text>']
    rows = []
    y = top
    for number, thread in enumerate(threads, start=1):
        section = sorted((e for e in events if e["thread"] == thread), key=lambda e: (e["start"], e["index"]))
        rows.append(("section", number, y))
        y += ROW
        for event in section:
            rows.append(("task", event, y))
            y += ROW
        y += 6
    bottom = y
    body += axis(scale, top, bottom)
    body += legend(events, WIDTH - MARGIN - 300, 22)
    for kind, item, row_y in rows:
        if kind == "section":
            body.append(
                f'<rect x="{MARGIN}" y="{row_y}" width="{WIDTH - 2 * MARGIN}" height="{ROW - 2}" fill="#eef0f3"/>'
            )
            body.append(
                f'<text x="{MARGIN + 6}" y="{row_y + 13}" font-size="11" font-weight="600" fill="#333" {FONT}>'
                f"Thread {item}</text>"
            )
            continue
        event = item
        label = escape(f"{event['name']} ({event['scope']})")
        body.append(
            f'<text x="{MARGIN + label_width - 8}" y="{row_y + 13}" font-size="11" fill="#333" '
            f'text-anchor="end" {MONO}>{label}</text>'
        )
        x1, x2 = scale.x(event["start"]), scale.x(event["end"])
        width = max(x2 - x1, 1.5)
        tooltip = escape(f"{event['duration']:.3f} ms")
        body.append(
            f'<rect x="{x1:.1f}" y="{row_y + 2}" width="{width:.1f}" height="{BAR - 2}" rx="2" '
            f'fill="{colour(event["scope"])}"><title>{tooltip}</title></rect>'
        )
        duration = f"{event['duration']:.3f} ms"
        if len(duration) * CHAR_WIDTH + 8 <= width:
            body.append(f'<text x="{x1 + 4:.1f}" y="{row_y + 13}" font-size="10" fill="#fff" {FONT}>{duration}</text>')
        elif x1 + width + 4 + len(duration) * CHAR_WIDTH <= WIDTH - MARGIN:
            body.append(
                f'<text x="{x1 + width + 4:.1f}" y="{row_y + 13}" font-size="10" fill="#555" {FONT}>{duration}</text>'
            )
        else:
            body.append(
                f'<text x="{x1 - 4:.1f}" y="{row_y + 13}" font-size="10" fill="#555" text-anchor="end" {FONT}>'
                f"{duration}</text>"
            )
    return svg(WIDTH, bottom + MARGIN, title, body)


def main():
    parser = argparse.ArgumentParser(description="Draw a Chrome trace of creations as SVG timelines.")
    parser.add_argument("trace", help="a Chrome trace-event JSON file, e.g. from `KeystoneDemo --trace FILE`")
    parser.add_argument("--timeline", help="where to write the timeline (one lane per thread)")
    parser.add_argument("--gantt", help="where to write the Gantt chart (one row per creation)")
    parser.add_argument("--title", default="Creations during launch", help="the title drawn on both pictures")
    arguments = parser.parse_args()
    if not arguments.timeline and not arguments.gantt:
        parser.error("give --timeline FILE, --gantt FILE or both")
    events = load_events(arguments.trace)
    if arguments.timeline:
        with open(arguments.timeline, "w", encoding="utf-8") as file:
            file.write(timeline(events, f"{arguments.title}: timeline"))
    if arguments.gantt:
        with open(arguments.gantt, "w", encoding="utf-8") as file:
            file.write(gantt(events, f"{arguments.title}: Gantt chart"))


if __name__ == "__main__":
    main()
