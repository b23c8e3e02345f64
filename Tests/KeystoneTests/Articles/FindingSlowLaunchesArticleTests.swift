// swift-format-ignore-file
// (The samples here mirror the articles' text line for line: see ArticleSamplesTests.)
import Foundation
import Keystone
import Testing

// The samples of FindingSlowLaunches.md, verbatim, each followed by the facts the article states about
// it. The article's own types are nested in the suite below.

@Suite("Article: Finding Slow Launches", .hangLimit)
struct FindingSlowLaunchesArticleTests {
    /// The first sample, whose profile the later samples read.
    private func repositoryProfile() -> (Repository, CreationProfile) {
        let container = Container()
        container.register(Database.self) { _ in Database(migrations: 40) }
            .inObjectScope(.container)
        container.register(Repository.self) { r in Repository(database: try r.resolveThrows(Database.self)) }

        let (repository, profile) = container.profilingCreations {
            container.resolve(Repository.self)!
        }
        print(profile.table(top: 10))
        return (repository, profile)
    }

    @Test("profilingCreations returns the body's result and records each creation, nested by its parent")
    func recordAProfile() {
        let (repository, profile) = repositoryProfile()

        #expect(repository.database.migrations == 40)
        #expect(profile.records.map(\.key) == [
            ServiceKey(serviceType: Repository.self), ServiceKey(serviceType: Database.self),
        ])
        #expect(profile.records.map(\.parent) == [nil, 0])
        #expect(profile.records.map(\.scope) == ["graph", "container"])
        let (repositoryRecord, databaseRecord) = (profile.records[0], profile.records[1])
        #expect(repositoryRecord.duration >= databaseRecord.duration)
        #expect(repositoryRecord.selfDuration < databaseRecord.duration)
    }

    @Test("An async body records what warmUp() creates, and the async services overlap")
    func recordAnAsyncProfile() async throws {
        let container = Container()
        container.registerAsync(Catalog.self) { _ in try await Catalog.download() }
            .inObjectScope(.container)
        container.registerAsync(Prices.self) { _ in try await Prices.download() }
            .inObjectScope(.container)

        let (_, launch) = try await container.profilingCreations {
            try await container.warmUp()
        }

        #expect(Set(launch.records.map(\.key)) == [
            ServiceKey(serviceType: Catalog.self), ServiceKey(serviceType: Prices.self),
        ])
        #expect(launch.records.allSatisfy { $0.parent == nil && $0.scope == "container" })
        // Both started before either ended: they waited side by side.
        let (first, second) = (launch.records[0], launch.records[1])
        #expect(second.start < first.start + first.duration)
        // Once made, they are kept: resolving them again creates nothing.
        let (_, again) = try await container.profilingCreations {
            _ = try await container.resolveAsync(Catalog.self)
        }
        #expect(again.records.isEmpty)
    }

    @Test("The table sums each registration; the records say which were slow by themselves")
    func readTheTable() {
        let (_, profile) = repositoryProfile()
        let table = profile.table(top: 10).split(separator: "\n").map(String.init)
        #expect(table.first?.hasPrefix("Service") == true)
        #expect(table.first?.contains("Self (ms)") == true && table.first?.contains("Total (ms)") == true)
        // The database's migrations are its own time: it comes first, by self time.
        #expect(table.dropFirst().first?.hasPrefix("Database") == true)

        for record in profile.records where record.selfDuration > .milliseconds(1) {
            print("\(record.key) (\(record.scope)): \(record.selfDuration)")
        }

        #expect(profile.records.contains { $0.selfDuration > .milliseconds(1) && $0.key == ServiceKey(serviceType: Database.self) })
    }

    @Test("The Chrome trace is written to a file, one complete event per creation")
    func exportTheTrace() throws {
        let (_, profile) = repositoryProfile()

        let tracePath = FileManager.default.temporaryDirectory.appendingPathComponent("launch.json").path
        try profile.chromeTrace.write(toFile: tracePath, atomically: true, encoding: .utf8)

        defer { try? FileManager.default.removeItem(atPath: tracePath) }
        let data = try #require(FileManager.default.contents(atPath: tracePath))
        let trace = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let events = try #require(trace["traceEvents"] as? [[String: Any]])
        #expect(events.map { $0["name"] as? String } == ["Repository", "Database"])
        #expect(events.allSatisfy { $0["ph"] as? String == "X" })
    }

    @Test("The Mermaid chart is a gantt chart with a bar per creation")
    func drawAGanttChart() {
        let (_, profile) = repositoryProfile()

        print(profile.mermaidGantt)

        let lines = profile.mermaidGantt.split(separator: "\n")
        #expect(lines.first == "gantt")
        #expect(lines.filter { $0.contains(":c") }.count == profile.records.count)
    }
}

extension FindingSlowLaunchesArticleTests {
    final class Database {
        let migrations: Int
        /// Runs its migrations: about 2 ms of its own work.
        init(migrations: Int) {
            self.migrations = migrations
            Thread.sleep(forTimeInterval: 0.002)
        }
    }

    final class Repository {
        let database: Database
        init(database: Database) { self.database = database }
    }

    final class Catalog: Sendable {
        static func download() async throws -> Catalog {
            try await Task.sleep(for: .milliseconds(20))
            return Catalog()
        }
    }

    final class Prices: Sendable {
        static func download() async throws -> Prices {
            try await Task.sleep(for: .milliseconds(20))
            return Prices()
        }
    }
}
