import Foundation

/// What the factories of a container hierarchy did while a profiled body ran: one record per
/// creation, with its timing, its scope and the creation it happened inside.
///
/// A profile is read as a table of the costliest registrations, or exported to a trace viewer or a
/// Mermaid chart:
///
/// ```swift
/// let (app, profile) = container.profilingCreations {
///     container.resolve(App.self)!
/// }
/// print(profile.table(top: 5))
/// try profile.chromeTrace.write(to: traceURL, atomically: true, encoding: .utf8)
/// ```
public struct CreationProfile: Sendable {
    /// Every creation recorded, in the order the creations started.
    ///
    /// A record's ``CreationRecord/parent`` is an index into this array.
    public let records: [CreationRecord]

    /// Creates a profile from records already in start order, whose `parent` indices point into
    /// `records`.
    init(records: [CreationRecord]) {
        self.records = records
    }
}

/// One factory call seen by a profile: which registration, in which scope, when, for how long, and
/// inside which other creation.
///
/// ```swift
/// for record in profile.records where record.parent == nil {
///     print(record.key, record.duration)  // the creations a resolve asked for directly
/// }
/// ```
public struct CreationRecord: Sendable, Hashable {
    /// The registration whose factory ran.
    public let key: ServiceKey
    /// The name of the registration's scope, as the scope describes itself: `transient`, `graph`,
    /// `container`, and so on.
    public let scope: String
    /// When the creation started, counted from the start of the profile.
    public let start: Duration
    /// How long the creation took: the factory and the `initCompleted` actions, the creations they
    /// caused included.
    public let duration: Duration
    /// How long the creation took without the creations it caused: the time spent in this
    /// registration's own code.
    public let selfDuration: Duration
    /// The index in ``CreationProfile/records`` of the creation during which this one started, in the
    /// same resolve, or `nil` for a creation asked for directly.
    public let parent: Int?
    /// An identifier of the thread that ran the factory; records with equal values ran on the same
    /// thread.
    public let thread: UInt64

    /// Creates a record.
    init(
        key: ServiceKey,
        scope: String,
        start: Duration,
        duration: Duration,
        selfDuration: Duration,
        parent: Int?,
        thread: UInt64
    ) {
        self.key = key
        self.scope = scope
        self.start = start
        self.duration = duration
        self.selfDuration = selfDuration
        self.parent = parent
        self.thread = thread
    }
}

// MARK: - Table

extension CreationProfile {
    /// The costliest registrations as a text table: one line per registration, its creations summed,
    /// sorted by self time, largest first.
    ///
    /// The columns are the service, its scope, the number of creations, the summed self time (the
    /// registration's own code) and the summed total time (nested creations included), in
    /// milliseconds. A last line says how many registrations did not fit in `top`.
    ///
    /// ```swift
    /// print(profile.table(top: 3))
    /// // Service         Scope      Count  Self (ms)  Total (ms)
    /// // Database        container      1     12.408      12.951
    /// // Session         graph          3      0.812       1.337
    /// // Logger          transient      9      0.120       0.120
    /// // (4 more registrations not shown)
    /// ```
    ///
    /// Records of the same key are summed whatever container made them; if their scopes differ, the
    /// scope column lists each, separated by `/`. A recursive registration counts its nested
    /// creations in its total time once per level.
    ///
    /// - Parameter top: The number of registrations to show; the rest are counted in the last line.
    /// - Returns: The table, lines separated by `\n`, without a trailing newline.
    public func table(top: Int = 20) -> String {
        let rows = Self.summaries(of: records)
        let shown = rows.prefix(max(0, top))
        let header = ["Service", "Scope", "Count", "Self (ms)", "Total (ms)"]
        let cells = shown.map { row in
            [
                row.key.description,
                row.scopes.joined(separator: "/"),
                String(row.count),
                Self.milliseconds(row.selfTime),
                Self.milliseconds(row.totalTime),
            ]
        }
        let rightAligned = [false, false, true, true, true]
        let widths = header.indices.map { column in
            ([header] + cells).map { $0[column].count }.max() ?? 0
        }
        let lines = ([header] + cells).map { line in
            let padded = line.indices.map { column in
                let padding = String(repeating: " ", count: widths[column] - line[column].count)
                return rightAligned[column] ? padding + line[column] : line[column] + padding
            }
            var text = padded.joined(separator: "  ")
            while text.last == " " {
                text.removeLast()
            }
            return text
        }
        var output = lines
        if rows.isEmpty {
            output.append("(no creations recorded)")
        } else if rows.count > shown.count {
            let hidden = rows.count - shown.count
            output.append("(\(hidden) more registration\(hidden == 1 ? "" : "s") not shown)")
        }
        return output.joined(separator: "\n")
    }

    /// The creations of one registration, summed.
    private struct Summary {
        let key: ServiceKey
        var scopes: [String]
        var count: Int
        var selfTime: Duration
        var totalTime: Duration
    }

    /// One summary per key, largest self time first; ties by total time, then by the key's description.
    private static func summaries(of records: [CreationRecord]) -> [Summary] {
        var order: [ServiceKey] = []
        var byKey: [ServiceKey: Summary] = [:]
        for record in records {
            if var summary = byKey[record.key] {
                if !summary.scopes.contains(record.scope) {
                    summary.scopes.append(record.scope)
                }
                summary.count += 1
                summary.selfTime += record.selfDuration
                summary.totalTime += record.duration
                byKey[record.key] = summary
            } else {
                order.append(record.key)
                byKey[record.key] = Summary(
                    key: record.key,
                    scopes: [record.scope],
                    count: 1,
                    selfTime: record.selfDuration,
                    totalTime: record.duration
                )
            }
        }
        return order.compactMap { byKey[$0] }.sorted { lhs, rhs in
            if lhs.selfTime != rhs.selfTime {
                return lhs.selfTime > rhs.selfTime
            }
            if lhs.totalTime != rhs.totalTime {
                return lhs.totalTime > rhs.totalTime
            }
            return lhs.key.description < rhs.key.description
        }
    }

    /// `duration` in milliseconds with three decimals, rounded to the microsecond: `12.408`.
    private static func milliseconds(_ duration: Duration) -> String {
        let microseconds = divide(nanoseconds(duration), by: 1000)
        let sign = microseconds < 0 ? "-" : ""
        let magnitude = microseconds.magnitude
        let fraction = String(magnitude % 1000)
        return sign + String(magnitude / 1000) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// `duration` as a whole number of nanoseconds, rounded.
    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + divide(attoseconds, by: 1_000_000_000)
    }

    /// `dividend / divisor` rounded to the nearest integer, halves away from zero.
    private static func divide(_ dividend: Int64, by divisor: Int64) -> Int64 {
        let (quotient, remainder) = dividend.quotientAndRemainder(dividingBy: divisor)
        if remainder.magnitude * 2 >= divisor.magnitude {
            return quotient + (dividend < 0 ? -1 : 1)
        }
        return quotient
    }
}

// MARK: - Chrome trace

extension CreationProfile {
    /// For each record, the track of its thread it goes on: the first track whose events it nests in
    /// or follows, so that the events of one track always nest.
    func tracks() -> [Int] {
        // Per thread, per track: the ends of the events open on it, innermost last.
        var open: [UInt64: [[Duration]]] = [:]
        return records.map { record in
            let end = record.start + record.duration
            var threadTracks = open[record.thread] ?? []
            var chosen: Int?
            for track in threadTracks.indices {
                // Close what ended before this record starts.
                while let last = threadTracks[track].last, last <= record.start {
                    threadTracks[track].removeLast()
                }
                if threadTracks[track].last.map({ end <= $0 }) ?? true {
                    chosen = track
                    break
                }
            }
            let track = chosen ?? threadTracks.count
            if track == threadTracks.count {
                threadTracks.append([])
            }
            threadTracks[track].append(end)
            open[record.thread] = threadTracks
            return track
        }
    }

    /// The profile in the Chrome trace-event format, to open in Perfetto (ui.perfetto.dev) or
    /// `chrome://tracing`.
    ///
    /// The text is a JSON object whose `traceEvents` hold one complete event (`"ph": "X"`) per record,
    /// in the order of ``records``: `name` is the service, `cat` the scope, `ts` and `dur` the start
    /// and duration in microseconds, `pid` is 1, `tid` the record's ``CreationRecord/thread``, and
    /// `args` repeats the scope and gives the ``CreationRecord/parent`` index (`null` for none).
    /// Object keys are sorted, so equal profiles give equal text.
    ///
    /// Trace viewers stack the events of one `tid` by nesting, so events of a thread that overlap
    /// without nesting (async creations taking turns on one thread) go to a track of their own: the
    /// second such track of thread `t` has `tid` `t * 1000 + 1`, the third `t * 1000 + 2`, and so on.
    ///
    /// ```swift
    /// try profile.chromeTrace.write(to: URL(fileURLWithPath: "creations.json"), atomically: true, encoding: .utf8)
    /// // {"displayTimeUnit":"ms","traceEvents":[{"args":{"parent":null,"scope":"container"},
    /// //   "cat":"container","dur":12951.2,"name":"Database","ph":"X","pid":1,"tid":1,"ts":3.5}, ...]}
    /// ```
    public var chromeTrace: String {
        let tracks = self.tracks()
        let trace = ChromeTrace(
            traceEvents: records.indices.map { index in
                let record = records[index]
                return ChromeTrace.Event(
                    name: record.key.description,
                    cat: record.scope,
                    ph: "X",
                    ts: Self.microseconds(record.start),
                    dur: Self.microseconds(record.duration),
                    pid: 1,
                    tid: tracks[index] == 0 ? record.thread : record.thread * 1000 + UInt64(tracks[index]),
                    args: ChromeTrace.Arguments(scope: record.scope, parent: record.parent)
                )
            },
            displayTimeUnit: "ms"
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Strings, integers and finite numbers cannot fail to encode.
        guard let data = try? encoder.encode(trace) else {
            return #"{"displayTimeUnit":"ms","traceEvents":[]}"#
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// `duration` in microseconds, to the nanosecond: `1234.567`.
    private static func microseconds(_ duration: Duration) -> Double {
        Double(nanoseconds(duration)) / 1000
    }

    /// The top-level object of a trace file.
    private struct ChromeTrace: Encodable {
        /// A complete event: a span with a start and a duration.
        struct Event: Encodable {
            let name: String
            let cat: String
            let ph: String
            let ts: Double
            let dur: Double
            let pid: Int
            let tid: UInt64
            let args: Arguments
        }

        /// The details a viewer shows for a selected event.
        struct Arguments: Encodable {
            let scope: String
            let parent: Int?

            private enum CodingKeys: String, CodingKey {
                case scope, parent
            }

            /// Writes `parent` as `null` when there is none, instead of leaving it out.
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(scope, forKey: .scope)
                try container.encode(parent, forKey: .parent)
            }
        }

        let traceEvents: [Event]
        let displayTimeUnit: String
    }
}

// MARK: - Mermaid

extension CreationProfile {
    /// The profile as a Mermaid `gantt` chart: one section per thread, one bar per creation.
    ///
    /// Sections follow the order in which threads first appear in ``records``; each bar is labelled
    /// with the service and its scope and identified as `c` followed by the record's index. A nested
    /// creation is a bar of its own, inside the span of its parent's bar.
    ///
    /// Mermaid's dates count whole milliseconds, too coarse for most creations, so the chart's clock
    /// runs a thousand times slower than the profile's: one microsecond of the profile is one
    /// millisecond of the chart. The axis, formatted `%s.%L`, therefore reads in milliseconds of the
    /// profile. A creation shorter than a microsecond is drawn one microsecond long.
    ///
    /// ```swift
    /// print(profile.mermaidGantt)
    /// // gantt
    /// //     title Creations (axis in ms)
    /// //     dateFormat x
    /// //     axisFormat %s.%L
    /// //     todayMarker off
    /// //     section Thread 1
    /// //     Database (container) :c0, 4, 12955
    /// //     Logger (transient) :c1, 17, 30
    /// ```
    ///
    /// Characters Mermaid reads as syntax in a task label are replaced: `:` by `-`, `;` by `,`, `#` by
    /// `_`, and line breaks by spaces.
    public var mermaidGantt: String {
        var lines = [
            "gantt",
            "    title Creations (axis in ms)",
            "    dateFormat x",
            "    axisFormat %s.%L",
            "    todayMarker off",
        ]
        var threads: [UInt64] = []
        for record in records where !threads.contains(record.thread) {
            threads.append(record.thread)
        }
        for (number, thread) in threads.enumerated() {
            lines.append("    section Thread \(number + 1) (id \(thread))")
            for (index, record) in records.enumerated() where record.thread == thread {
                let start = Self.divide(Self.nanoseconds(record.start), by: 1000)
                let length = max(1, Self.divide(Self.nanoseconds(record.duration), by: 1000))
                let label = Self.ganttLabel("\(record.key.description) (\(record.scope))")
                lines.append("    \(label) :c\(index), \(start), \(start + length)")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `text` without the characters that end or split a Mermaid task label.
    private static func ganttLabel(_ text: String) -> String {
        String(
            text.map { character -> Character in
                switch character {
                case ":": "-"
                case ";": ","
                case "#": "_"
                case "\n", "\r", "\r\n": " "
                default: character
                }
            }
        )
    }
}
