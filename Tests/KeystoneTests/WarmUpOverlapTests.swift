import Foundation
import Testing

@testable import Keystone

/// How many factories are between their start and their end, and the most there ever were.
private final class Overlap: @unchecked Sendable {
    private let lock = NSLock()
    private var current = 0
    private var started = 0
    private(set) var most = 0
    private var inSyncPart = 0
    private(set) var mostInSyncPart = 0

    func start() {
        lock.withLock {
            current += 1
            started += 1
            most = max(most, current)
        }
    }

    func end() {
        lock.withLock { current -= 1 }
    }

    var startedCount: Int {
        lock.withLock { started }
    }

    /// A stretch of synchronous work; records how many factories were in one at once.
    func synchronousWork() {
        lock.withLock {
            inSyncPart += 1
            mostInSyncPart = max(mostInSyncPart, inSyncPart)
        }
        Thread.sleep(forTimeInterval: 0.002)
        lock.withLock { inSyncPart -= 1 }
    }
}

private final class Service0: Sendable {}
private final class Service1: Sendable {}
private final class Service2: Sendable {}
private final class Service3: Sendable {}
private final class Service4: Sendable {}
private final class Base: Sendable {}
private final class Dependent: Sendable {
    let base: Base
    init(base: Base) { self.base = base }
}
private final class Report: Sendable {}
private struct Unavailable: Error {}

@Suite("warmUp() overlaps async creations", .tags(.concurrency), .hangLimit)
struct WarmUpOverlapTests {
    /// Registers five independent async `.container` services whose factories each wait until all five
    /// have started (or give up after a second), with some synchronous work before and after.
    private func fiveWaitingForEachOther(_ overlap: Overlap, runs: Counter) -> Container {
        let container = Container()
        func register<S: Sendable>(_ type: S.Type, _ make: @escaping @Sendable () -> S) {
            container.registerAsync(type) { _ in
                runs.increment()
                overlap.start()
                overlap.synchronousWork()
                var waited = 0
                while overlap.startedCount < 5, waited < 5000 {
                    try await Task.sleep(for: .milliseconds(1))
                    waited += 1
                }
                overlap.synchronousWork()
                overlap.end()
                return make()
            }
            .inObjectScope(.container)
        }
        register(Service0.self) { Service0() }
        register(Service1.self) { Service1() }
        register(Service2.self) { Service2() }
        register(Service3.self) { Service3() }
        register(Service4.self) { Service4() }
        return container
    }

    @Test("Independent creations are all in flight at once, each made once, never two in parallel")
    func independentCreationsOverlap() async throws {
        let overlap = Overlap()
        let runs = Counter()
        let container = fiveWaitingForEachOther(overlap, runs: runs)
        try await container.warmUp()
        #expect(overlap.most == 5)
        #expect(runs.count == 5)
        // They take turns in one isolation: their synchronous parts never overlap.
        #expect(overlap.mostInSyncPart == 1)
        #expect(container.resolve(Service3.self) != nil)
        try await container.warmUp()
        #expect(runs.count == 5)
    }

    @Test("Called on the main actor, the creations overlap on it")
    @MainActor
    func onTheMainActor() async throws {
        let overlap = Overlap()
        let runs = Counter()
        let onMain = Counter()
        let container = fiveWaitingForEachOther(overlap, runs: runs)
        container.registerAsync(Report.self) { _ in
            if MainActorCheck.isCurrent {
                onMain.increment()
            }
            return Report()
        }
        .inObjectScope(.container)
        try await container.warmUp()
        #expect(overlap.most == 5)
        #expect(onMain.count == 1)
    }

    @Test("A creation waits only for what it resolves, which is made once")
    func dependentCreations() async throws {
        let container = Container()
        let baseRuns = Counter()
        let order = EventLog()
        container.registerAsync(Dependent.self) { r in
            order.record("dependent starts")
            let base = try await r.resolveAsync(Base.self)
            order.record("dependent ends")
            return Dependent(base: base)
        }
        .inObjectScope(.container)
        container.registerAsync(Base.self) { _ in
            baseRuns.increment()
            order.record("base starts")
            try await Task.sleep(for: .milliseconds(5))
            order.record("base ends")
            return Base()
        }
        .inObjectScope(.container)
        try await container.warmUp()
        #expect(baseRuns.count == 1)
        #expect(order.all.last == "dependent ends")
        #expect(order.all.firstIndex(of: "base ends")! < order.all.firstIndex(of: "dependent ends")!)
        #expect(container.resolve(Dependent.self)?.base === container.resolve(Base.self))
    }

    @Test("A failed creation fails warmUp() once the others are done; theirs are kept")
    func failureAfterTheOthers() async throws {
        let container = Container()
        container.registerAsync(Base.self) { _ in
            try await Task.sleep(for: .milliseconds(1))
            throw Unavailable()
        }
        .inObjectScope(.container)
        container.registerAsync(Report.self) { _ in
            try await Task.sleep(for: .milliseconds(5))
            return Report()
        }
        .inObjectScope(.container)
        await #expect(throws: DIError.self) { try await container.warmUp() }
        #expect(container.resolve(Report.self) != nil)
        #expect(container.resolve(Base.self) == nil)
    }

    @Test("The profile of a warm-up shows the creations overlapping")
    func profileShowsTheOverlap() async throws {
        let overlap = Overlap()
        let container = fiveWaitingForEachOther(overlap, runs: Counter())
        let (_, profile) = try await container.profilingCreations { try await container.warmUp() }
        #expect(profile.records.count == 5)
        let lastStart = try #require(profile.records.map(\.start).max())
        let firstEnd = try #require(profile.records.map { $0.start + $0.duration }.min())
        #expect(lastStart < firstEnd)
        #expect(profile.records.allSatisfy { $0.parent == nil })
    }
}
