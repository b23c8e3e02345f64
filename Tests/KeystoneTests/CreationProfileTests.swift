import Foundation
import Testing

@testable import Keystone

private struct ProfiledApp {}
private struct ProfiledDatabase {}
private struct ProfiledLogger {}
private struct ProfiledWorker {}

/// The keys of the sample profile. The worker's name has quotes, a backslash and the characters Mermaid
/// reads as syntax.
private enum Keys {
    static let app = ServiceKey(serviceType: ProfiledApp.self)
    static let database = ServiceKey(serviceType: ProfiledDatabase.self)
    static let logger = ServiceKey(serviceType: ProfiledLogger.self)
    static let worker = ServiceKey(serviceType: ProfiledWorker.self, name: #"say "hi" \ now: #1; done"#)
}

private func record(
    _ key: ServiceKey,
    _ scope: String,
    start: Duration,
    duration: Duration,
    selfDuration: Duration? = nil,
    parent: Int? = nil,
    thread: UInt64
) -> CreationRecord {
    CreationRecord(
        key: key,
        scope: scope,
        start: start,
        duration: duration,
        selfDuration: selfDuration ?? duration,
        parent: parent,
        thread: thread
    )
}

/// Two resolves on two threads:
///
/// - thread 7: App (10 ms, 2 ms self) creates Database (6 ms, 5.5 ms self), which creates a Logger
///   (0.5 ms); App then creates a second Logger (0.25 ms).
/// - thread 42: Worker (1.5 ms, 1.375 ms self) creates a Logger (0.125 ms), starting at 3.2005 ms.
///
/// Summed by registration: Database 5.5 ms self, App 2, Worker 1.375, Logger 0.875 (three creations).
private let sample = CreationProfile(records: [
    record(Keys.app, "graph", start: .zero, duration: .milliseconds(10), selfDuration: .milliseconds(2), thread: 7),
    record(
        Keys.database,
        "container",
        start: .milliseconds(1),
        duration: .milliseconds(6),
        selfDuration: .microseconds(5500),
        parent: 0,
        thread: 7
    ),
    record(Keys.logger, "transient", start: .milliseconds(2), duration: .microseconds(500), parent: 1, thread: 7),
    record(
        Keys.worker,
        "container",
        start: .milliseconds(3),
        duration: .microseconds(1500),
        selfDuration: .microseconds(1375),
        thread: 42
    ),
    record(
        Keys.logger,
        "transient",
        start: .nanoseconds(3_200_500),
        duration: .microseconds(125),
        parent: 3,
        thread: 42
    ),
    record(Keys.logger, "transient", start: .milliseconds(8), duration: .microseconds(250), parent: 0, thread: 7),
])

@Suite("Creation profile table")
struct CreationProfileTableTests {
    @Test("Registrations are listed by summed self time, largest first, below a header")
    func orderedBySelfTime() {
        let lines = sample.table().split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        #expect(lines[0].hasPrefix("Service"))
        for column in ["Scope", "Count", "Self (ms)", "Total (ms)"] {
            #expect(lines[0].contains(column))
        }
        #expect(lines[1].hasPrefix(Keys.database.description + " "))
        #expect(lines[2].hasPrefix(Keys.app.description + " "))
        #expect(lines[3].hasPrefix(Keys.worker.description + " "))
        #expect(lines[4].hasPrefix(Keys.logger.description + " "))
    }

    @Test("A registration's creations are counted and their self and total times summed, in ms with 3 decimals")
    func groupsAndSums() {
        let lines = sample.table().split(separator: "\n").map(String.init)
        #expect(fields(of: lines[1]).suffix(4) == ["container", "1", "5.500", "6.000"])
        #expect(fields(of: lines[2]).suffix(4) == ["graph", "1", "2.000", "10.000"])
        #expect(fields(of: lines[3]).suffix(4) == ["container", "1", "1.375", "1.500"])
        #expect(fields(of: lines[4]).suffix(4) == ["transient", "3", "0.875", "0.875"])
    }

    @Test("Columns are aligned: names and scopes on the left, numbers on the right")
    func alignedColumns() {
        let lines = sample.table().split(separator: "\n").map { Array($0) }
        let header = String(lines[0])
        for column in ["Scope", "Count", "Self (ms)", "Total (ms)"] {
            let range = header.range(of: column)!
            let start = header.distance(from: header.startIndex, to: range.lowerBound)
            let end = header.distance(from: header.startIndex, to: range.upperBound)
            for line in lines.dropFirst() {
                if column == "Scope" {
                    #expect(line[start - 1] == " " && line[start] != " ", "\(String(line))")
                } else {
                    #expect(line[end - 1] != " " && (end == line.count || line[end] == " "), "\(String(line))")
                }
            }
        }
    }

    @Test("Only the top registrations are shown, and a last line counts the others")
    func topAndFooter() {
        let two = sample.table(top: 2).split(separator: "\n").map(String.init)
        #expect(two.count == 4)
        #expect(two[1].hasPrefix(Keys.database.description))
        #expect(two[2].hasPrefix(Keys.app.description))
        #expect(two[3] == "(2 more registrations not shown)")

        let three = sample.table(top: 3).split(separator: "\n").map(String.init)
        #expect(three.last == "(1 more registration not shown)")

        let none = sample.table(top: 0).split(separator: "\n").map(String.init)
        #expect(none.count == 2)
        #expect(none.last == "(4 more registrations not shown)")

        #expect(!sample.table(top: 4).contains("not shown"))
    }

    @Test("Times are rounded to the microsecond, and an empty profile says so")
    func roundingAndEmpty() {
        let profile = CreationProfile(records: [
            record(Keys.app, "graph", start: .zero, duration: .nanoseconds(1_234_567), thread: 1),
            record(Keys.logger, "transient", start: .zero, duration: .nanoseconds(500), thread: 1),
        ])
        let lines = profile.table().split(separator: "\n").map(String.init)
        #expect(fields(of: lines[1]).suffix(2) == ["1.235", "1.235"])
        #expect(fields(of: lines[2]).suffix(2) == ["0.001", "0.001"])

        let empty = CreationProfile(records: []).table()
        #expect(empty.split(separator: "\n").count == 2)
        #expect(empty.hasSuffix("(no creations recorded)"))
    }

    @Test("A key recorded in two scopes lists both")
    func twoScopes() {
        let profile = CreationProfile(records: [
            record(Keys.logger, "transient", start: .zero, duration: .milliseconds(1), thread: 1),
            record(Keys.logger, "container", start: .milliseconds(2), duration: .milliseconds(1), thread: 1),
        ])
        let lines = profile.table().split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(fields(of: lines[1]).suffix(4) == ["transient/container", "2", "2.000", "2.000"])
    }

    /// The whitespace-separated fields of a table line.
    private func fields(of line: String) -> [String] {
        line.split(separator: " ").map(String.init)
    }
}

@Suite("Creation profile Chrome trace")
struct CreationProfileChromeTraceTests {
    @Test("The trace is a JSON object with one complete event per record, times in microseconds")
    func completeEvents() throws {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(sample.chromeTrace.utf8)) as? [String: Any]
        )
        #expect(object["displayTimeUnit"] as? String == "ms")
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        #expect(events.count == sample.records.count)
        for event in events {
            #expect(event["ph"] as? String == "X")
            #expect(event["pid"] as? Int == 1)
        }
        let names = events.map { $0["name"] as? String }
        #expect(names == sample.records.map(\.key.description))

        let database = events[1]
        #expect(database["cat"] as? String == "container")
        #expect(database["ts"] as? Double == 1000)
        #expect(database["dur"] as? Double == 6000)
        #expect(database["tid"] as? Int == 7)
        let databaseArgs = try #require(database["args"] as? [String: Any])
        #expect(databaseArgs["scope"] as? String == "container")
        #expect(databaseArgs["parent"] as? Int == 0)

        let nested = events[4]
        #expect(nested["ts"] as? Double == 3200.5)
        #expect(nested["dur"] as? Double == 125)
        #expect(nested["tid"] as? Int == 42)
        #expect((nested["args"] as? [String: Any])?["parent"] as? Int == 3)

        let root = try #require(events[0]["args"] as? [String: Any])
        #expect(root["parent"] is NSNull)
    }

    @Test("A service name with quotes and backslashes is escaped and reads back unchanged")
    func escaping() throws {
        let text = sample.chromeTrace
        #expect(text.contains(#"say \"hi\" \\ now"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        let events = try #require(object["traceEvents"] as? [[String: Any]])
        #expect(events[3]["name"] as? String == Keys.worker.description)
        #expect(Keys.worker.description.contains(#""hi" \ now"#))
    }

    @Test("The text is deterministic, with sorted keys")
    func deterministic() {
        let text = sample.chromeTrace
        #expect(text == sample.chromeTrace)
        #expect(text.hasPrefix(#"{"displayTimeUnit":"ms","traceEvents":[{"args":{"parent":null,"scope":"graph"},"#))
        #expect(CreationProfile(records: []).chromeTrace == #"{"displayTimeUnit":"ms","traceEvents":[]}"#)
    }
}

@Suite("Creation profile Mermaid Gantt chart")
struct CreationProfileGanttTests {
    @Test("The chart declares a gantt with a millisecond date format and an axis format")
    func header() {
        let lines = sample.mermaidGantt.split(separator: "\n").map(String.init)
        #expect(lines.first == "gantt")
        #expect(lines.contains("    dateFormat x"))
        #expect(lines.contains { $0.hasPrefix("    axisFormat ") })
    }

    @Test("Each thread has a section holding one task per record it ran, with a unique id, a start and an end")
    func sectionsAndTasks() {
        let lines = sample.mermaidGantt.split(separator: "\n").map(String.init)
        let sections = lines.indices.filter { lines[$0].hasPrefix("    section ") }
        #expect(sections.count == 2)
        #expect(lines[sections[0]].contains("id 7"))
        #expect(lines[sections[1]].contains("id 42"))

        let tasks = lines.filter { $0.contains(" :c") }
        #expect(tasks.count == sample.records.count)
        let ids = tasks.compactMap { $0.split(separator: ":").last?.split(separator: ",").first }
        #expect(Set(ids).count == sample.records.count)

        // The chart counts one millisecond per microsecond of the profile.
        #expect(lines.contains("    \(Keys.database.description) (container) :c1, 1000, 7000"))
        #expect(lines.contains { $0.hasSuffix(":c4, 3201, 3326") })

        let firstThread = lines[sections[0]..<sections[1]].filter { $0.contains(" :c") }
        let secondThread = lines[sections[1]...].filter { $0.contains(" :c") }
        #expect(
            firstThread.map { $0.components(separatedBy: " :").last! } == [
                "c0, 0, 10000", "c1, 1000, 7000", "c2, 2000, 2500", "c5, 8000, 8250",
            ]
        )
        #expect(secondThread.map { $0.components(separatedBy: " :").last! } == ["c3, 3000, 4500", "c4, 3201, 3326"])
    }

    @Test("Labels lose the characters Mermaid reads as syntax")
    func sanitizedLabels() throws {
        let lines = sample.mermaidGantt.split(separator: "\n").map(String.init)
        let worker = try #require(lines.first { $0.hasSuffix(":c3, 3000, 4500") })
        let label = try #require(worker.components(separatedBy: " :c3").first)
        #expect(!label.contains(":") && !label.contains("#") && !label.contains(";"))
        #expect(label.contains("ProfiledWorker"))
        #expect(label.contains("(container)"))
    }

    @Test("A creation shorter than a microsecond still has a length")
    func shortCreation() {
        let profile = CreationProfile(records: [
            record(Keys.logger, "transient", start: .microseconds(5), duration: .nanoseconds(200), thread: 1)
        ])
        #expect(profile.mermaidGantt.hasSuffix(":c0, 5, 6"))
    }
}

@Suite("Captive dependency error")
struct CaptiveDependencyErrorTests {
    @Test("The message names the kept service, the captured one, the path and the three fixes")
    func message() {
        let error = DIError.captiveDependency(
            key: Keys.app,
            captured: Keys.logger,
            path: [Keys.app, Keys.database, Keys.logger]
        )
        let text = error.description
        #expect(text.contains("\(Keys.app) is kept by its container"))
        #expect(text.contains("obtained \(Keys.logger)"))
        #expect(text.contains("\(Keys.app) -> \(Keys.database) -> \(Keys.logger)"))
        #expect(text.contains("register \(Keys.logger) in the container that keeps \(Keys.app)"))
        #expect(text.contains("shorter scope"))
        #expect(text.contains("register \(Keys.app) in the child container"))
        #expect(error.key == Keys.app)
    }

    @Test("Two reports are equal when their keys and paths are")
    func equality() {
        let error = DIError.captiveDependency(key: Keys.app, captured: Keys.logger, path: [Keys.app, Keys.logger])
        #expect(error == .captiveDependency(key: Keys.app, captured: Keys.logger, path: [Keys.app, Keys.logger]))
        #expect(error != .captiveDependency(key: Keys.app, captured: Keys.database, path: [Keys.app, Keys.logger]))
        #expect(error != .captiveDependency(key: Keys.app, captured: Keys.logger, path: [Keys.app]))
        #expect(error != .circularDependency(path: [Keys.app, Keys.logger]))
    }
}
