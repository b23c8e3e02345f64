import Dispatch
import Foundation
import Testing

// `@testable` only for `waitersOnCreationsInFlight()`, which tells the tests that their waiters have
// joined a creation before they let it end; everything else is the public API.
@testable import Keystone

// Attacks on the waiter fast path of `resolveAsync` (be43dec, 9e4a5cb): a nonisolated caller skips the
// hop, an async registration skips the synchronous try, a top-level resolve of a `.container` async
// creation in flight only waits for it (`flightToJoin`), and `DIActor` is a final actor. Every waiter
// must get the one instance or the one error, a dropped creation's instance must not reach a resolve
// made after the drop, nothing may hang, and synchronous factories must still run on the caller's actor.

// MARK: - Fixtures

private protocol WFService: AnyObject, Sendable {
    var serial: Int { get }
}

private final class WFA: WFService {
    let serial: Int
    init(_ serial: Int) { self.serial = serial }
}

private final class WFB: Sendable {
    let serial: Int
    init(_ serial: Int) { self.serial = serial }
}

private final class WFSync: Sendable {
    let serial: Int
    init(_ serial: Int) { self.serial = serial }
}

@MainActor
private final class WFViewModel {
    let serial: Int
    init(_ serial: Int) { self.serial = serial }
}

private struct WFBoom: Error, Equatable {
    let serial: Int
}

/// A container handed to `@Sendable` closures: the tests use it only as the engine allows.
private struct WFRef: @unchecked Sendable {
    let c: Container
}

/// A custom actor whose isolation the tests check without crashing.
private actor WFLane {
    let executor = QueueExecutor(label: "waiter-fast-path")

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    nonisolated var isCurrent: Bool {
        executor.isCurrent
    }

    // Methods whose only statement is the resolve: in optimized builds their opening hop is dropped.

    func resolveSync(_ ref: WFRef) async throws(DIError) -> WFSync {
        try await ref.c.resolveAsync(WFSync.self)
    }

    func resolveSyncNamed(_ ref: WFRef) async throws(DIError) -> WFSync {
        try await ref.c.resolveAsync(WFSync.self, name: "named")
    }

    func resolveSyncArgument(_ ref: WFRef, _ serial: Int) async throws(DIError) -> WFSync {
        try await ref.c.resolveAsync(WFSync.self, argument: serial)
    }

    func resolveSyncThroughView(_ view: SynchronizedResolver) async throws(DIError) -> WFSync {
        try await view.resolveAsync(WFSync.self)
    }

    func resolveSyncExistential(_ resolver: any Resolver & Sendable) async throws(DIError) -> WFSync {
        try await resolver.resolveAsync(WFSync.self)
    }

    func resolveA(_ ref: WFRef) async throws(DIError) -> WFA {
        try await ref.c.resolveAsync(WFA.self)
    }

    func resolveAThroughView(_ view: SynchronizedResolver) async throws(DIError) -> WFA {
        try await view.resolveAsync(WFA.self)
    }

    /// A waiter that goes on with the actor's work after the resolve: it must be back on the actor.
    func resolveAThenCheck(_ view: SynchronizedResolver, _ probe: IsolationProbe) async throws(DIError) -> WFA {
        let a = try await view.resolveAsync(WFA.self)
        probe.check("after the wait", isCurrent)
        return a
    }

    /// Plain-container use that stays on the actor: tasks isolated to it resolve one `.container` async
    /// registration, the first creating it and the others waiting.
    func resolveFromTasksOnTheActor(_ ref: WFRef, count: Int, probe: IsolationProbe) async throws -> [ObjectIdentifier]
    {
        var tasks: [Task<ObjectIdentifier, any Error>] = []
        for _ in 0..<count {
            tasks.append(
                Task {
                    let a = try await ref.c.resolveAsync(WFA.self)
                    probe.check("task on the actor, after the resolve", self.isCurrent)
                    return ObjectIdentifier(a)
                }
            )
        }
        var ids: [ObjectIdentifier] = []
        for task in tasks {
            ids.append(try await task.value)
        }
        return ids
    }
}

private func wfEventually(_ condition: () -> Bool) async {
    for _ in 0..<50_000 {
        if condition() { return }
        await Task.yield()
        if condition() { return }
        try? await Task.sleep(nanoseconds: 100_000)
    }
}

/// A key only the main queue has: on Linux the main actor runs its jobs on the main dispatch queue.
private let wfMainKey: DispatchSpecificKey<Int> = {
    let key = DispatchSpecificKey<Int>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    return key
}()

private func wfOnMainActor() -> Bool {
    DispatchQueue.getSpecific(key: wfMainKey) == 1
}

/// Waits for `task` at most `seconds` (30 for a result expected at once: under Thread Sanitizer, with the
/// other suites' blocking tests holding the two cooperative threads, 10 s was once not enough); if it is
/// still running then, records a hang, cancels it (a
/// cancelled wait ends at once) and returns its result all the same.
private func wfResult<T: Sendable>(
    of task: Task<T, any Error>,
    within seconds: Double,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) async -> Result<T, any Error> {
    let done = Counter()
    let watcher = Task {
        _ = await task.result
        done.increment()
    }
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while done.count == 0 && ContinuousClock.now < deadline {
        try? await Task.sleep(nanoseconds: 1_000_000)
    }
    if done.count == 0 {
        Issue.record("\(what): still waiting after \(seconds) s (a hang), cancelled", sourceLocation: sourceLocation)
        task.cancel()
    }
    await watcher.value
    return await task.result
}

/// Registers a `.container` async `WFA` whose first run waits on `release1` (after opening `entered1`),
/// its second on `release2` if given, and the others not at all; `failing` runs throw `WFBoom`.
@discardableResult
private func wfRegisterGated(
    in container: Container,
    name: String? = nil,
    runs: Counter,
    entered1: Gate,
    release1: Gate,
    entered2: Gate? = nil,
    release2: Gate? = nil,
    failing: Set<Int> = [],
    disposed: SerialLog? = nil
) -> ServiceEntry<WFA> {
    let entry = container.registerAsync(WFA.self, name: name) { _ in
        let serial = runs.next()
        if serial == 1 {
            entered1.open()
            await release1.wait()
        } else if serial == 2, let release2 {
            entered2?.open()
            await release2.wait()
        }
        if failing.contains(serial) {
            throw WFBoom(serial: serial)
        }
        return WFA(serial)
    }
    .inObjectScope(.container)
    if let disposed {
        entry.onDispose { a in disposed.add(a.serial) }
    }
    return entry
}

private func wfResolveTasks(
    _ view: SynchronizedResolver,
    count: Int,
    name: String? = nil
) -> [Task<WFA, any Error>] {
    (0..<count).map { _ in Task { try await view.resolveAsync(WFA.self, name: name) } }
}

private func wfSerialsOf(_ tasks: [Task<WFA, any Error>]) async throws -> [Int] {
    var serials: [Int] = []
    for task in tasks {
        serials.append(try await task.value.serial)
    }
    return serials
}

/// The number of resolves `statusReport()` shows for the line that mentions `service`.
private func wfResolvedCount(_ container: Container, _ service: String) -> Int? {
    for line in container.statusReport().split(separator: "\n") where line.contains(service) {
        guard let range = line.range(of: "resolved ") else { continue }
        let digits = line[range.upperBound...].prefix { $0.isNumber }
        return Int(digits)
    }
    return nil
}

// MARK: - Waiters of one creation

@Suite("Waiter fast path attacks: waiters of one creation", .tags(.concurrency), .hangLimit)
struct WaiterFastPathAttackWaiterTests {
    @Test("Many waiters through a synchronized view get the one instance", .timeLimit(.minutes(1)))
    func manyWaitersThroughTheView() async throws {
        for _ in 0..<5 {
            let container = Container()
            let runs = Counter()
            let entered = Gate()
            let release = Gate()
            wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
            let view = container.synchronize()
            let first = Task { try await view.resolveAsync(WFA.self) }
            await entered.wait()
            let waiters = wfResolveTasks(view, count: 32)
            await wfEventually { container.waitersOnCreationsInFlight() >= 33 }
            #expect(container.waitersOnCreationsInFlight() >= 33)
            release.open()
            let a = try await first.value
            for waiter in waiters {
                #expect(try await waiter.value === a)
            }
            #expect(runs.count == 1)
            #expect(try await view.resolveAsync(WFA.self) === a)
            #expect(try await container.resolveAsync(WFA.self) === a)
            #expect(container.resolve(WFA.self) === a)
        }
    }

    @Test("Waiters racing the creation's start and end all get the one instance", .timeLimit(.minutes(1)))
    func waitersRacingTheCreation() async throws {
        for round in 0..<20 {
            let container = Container()
            let runs = Counter()
            container.registerAsync(WFA.self) { _ in
                let serial = runs.next()
                if round.isMultiple(of: 2) { await Task.yield() }
                return WFA(serial)
            }
            .inObjectScope(.container)
            let view = container.synchronize()
            let ids = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<24 {
                    group.addTask { ObjectIdentifier(try await view.resolveAsync(WFA.self)) }
                }
                var ids = Set<ObjectIdentifier>()
                for try await id in group { ids.insert(id) }
                return ids
            }
            #expect(ids.count == 1)
            #expect(runs.count == 1)
        }
    }

    @Test("A failing creation hands every waiter the same error, and caches nothing", .timeLimit(.minutes(1)))
    func failingCreation() async throws {
        let container = Container()
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release, failing: [1])
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFA.self) }
        await entered.wait()
        let waiters = wfResolveTasks(view, count: 16)
        await wfEventually { container.waitersOnCreationsInFlight() >= 17 }
        release.open()
        var errors: [DIError] = []
        for task in [first] + waiters {
            switch await task.result {
            case .success(let a): Issue.record("a waiter got an instance \(a.serial) from a failed creation")
            case .failure(let error as DIError): errors.append(error)
            case .failure(let error): Issue.record("not a DIError: \(error)")
            }
        }
        #expect(errors.count == 17)
        for error in errors {
            guard case .factoryFailed(let key, let path, let underlying) = error else {
                Issue.record("expected factoryFailed, got \(error)")
                continue
            }
            #expect(key == ServiceKey(serviceType: WFA.self))
            #expect(path.isEmpty)
            #expect(underlying as? WFBoom == WFBoom(serial: 1))
        }
        #expect(Set(errors.map(\.description)).count == 1, "every waiter gets the same error")
        #expect(runs.count == 1)
        // Nothing cached: the next resolve runs the factory again.
        #expect(try await view.resolveAsync(WFA.self).serial == 2)
        #expect(runs.count == 2)
    }

    @Test("Waiters from one task's child tasks on a plain container get the one instance", .timeLimit(.minutes(1)))
    func childTasksOnAPlainContainer() async throws {
        for _ in 0..<5 {
            let container = Container()
            let runs = Counter()
            let gate = Gate()
            container.registerAsync(WFA.self) { _ in
                let serial = runs.next()
                await gate.wait()
                return WFA(serial)
            }
            .inObjectScope(.container)
            let ref = WFRef(c: container)
            let ids = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<16 {
                    group.addTask { ObjectIdentifier(try await ref.c.resolveAsync(WFA.self)) }
                }
                // The first resolve creates in its own task; the 15 others wait for it.
                await wfEventually { container.waitersOnCreationsInFlight() >= 15 || runs.count > 1 }
                gate.open()
                var ids = Set<ObjectIdentifier>()
                for try await id in group { ids.insert(id) }
                return ids
            }
            #expect(ids.count == 1)
            #expect(runs.count == 1)
        }
    }

    @Test(
        "Tasks on an actor owning a plain container: one creation on the actor, every waiter back on it",
        .timeLimit(.minutes(1))
    )
    func tasksOnAnActorOwningAPlainContainer() async throws {
        for _ in 0..<5 {
            let lane = WFLane()
            let probe = IsolationProbe()
            let runs = Counter()
            let container = Container()
            container.register(WFSync.self) { _ in
                probe.check("synchronous dependency", lane.isCurrent)
                return WFSync(0)
            }
            container.registerAsync(WFA.self) { r in
                probe.check("async factory start", lane.isCurrent)
                _ = try await r.resolveAsync(WFSync.self)
                try await Task.sleep(for: .milliseconds(5))
                probe.check("async factory end", lane.isCurrent)
                return WFA(runs.next())
            }
            .inObjectScope(.container)
            let ids = try await lane.resolveFromTasksOnTheActor(WFRef(c: container), count: 12, probe: probe)
            #expect(Set(ids).count == 1)
            #expect(runs.count == 1)
            #expect(probe.offIsolation == [])
            #expect(probe.count == 3 + 12)
        }
    }

    @Test("A cancelled waiter stops at once with a cancellation; the others get the instance", .timeLimit(.minutes(1)))
    func cancelledWaiterThroughTheView() async throws {
        let container = Container()
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFA.self) }
        await entered.wait()
        let waiters = wfResolveTasks(view, count: 8)
        await wfEventually { container.waitersOnCreationsInFlight() >= 9 }
        waiters[3].cancel()
        let result = await wfResult(of: waiters[3], within: 30, "the cancelled waiter")
        guard case .failure(DIError.factoryFailed(let key, let path, let underlying)) = result else {
            Issue.record("expected a cancellation, got \(result)")
            release.open()
            return
        }
        #expect(key == ServiceKey(serviceType: WFA.self))
        #expect(path.isEmpty)
        #expect(underlying is CancellationError)
        release.open()
        let a = try await first.value
        for (index, waiter) in waiters.enumerated() where index != 3 {
            #expect(try await waiter.value === a)
        }
        #expect(runs.count == 1)
        #expect(try await view.resolveAsync(WFA.self) === a)
    }

    @Test(
        "Cancelling a waiter on a plain container leaves the creation (in another task) alone",
        .timeLimit(.minutes(1))
    )
    func cancelledWaiterOnAPlainContainer() async throws {
        let container = Container()
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
        let ref = WFRef(c: container)
        let first = Task { try await ref.c.resolveAsync(WFA.self) }
        await entered.wait()
        let waiter = Task { try await ref.c.resolveAsync(WFA.self) }
        let other = Task { try await ref.c.resolveAsync(WFA.self) }
        await wfEventually { container.waitersOnCreationsInFlight() >= 2 }
        waiter.cancel()
        let result = await wfResult(of: waiter, within: 30, "the cancelled waiter")
        guard case .failure(DIError.factoryFailed(_, _, let underlying)) = result, underlying is CancellationError
        else {
            Issue.record("expected a cancellation, got \(result)")
            release.open()
            return
        }
        release.open()
        let a = try await first.value
        #expect(try await other.value === a)
        #expect(runs.count == 1)
    }

    @Test("A waiter already cancelled before it resolves gets a cancellation, not a hang", .timeLimit(.minutes(1)))
    func alreadyCancelledWaiter() async throws {
        let container = Container()
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFA.self) }
        await entered.wait()
        let start = Gate()
        let waiter = Task {
            await start.wait()
            return try await view.resolveAsync(WFA.self)
        }
        waiter.cancel()
        start.open()
        let result = await wfResult(of: waiter, within: 30, "the pre-cancelled waiter")
        if case .success = result {
            Issue.record("a cancelled waiter got an instance before the creation ended")
        }
        release.open()
        _ = try await first.value
        #expect(runs.count == 1)
    }
}

// MARK: - Drops while a creation is in flight

enum WaiterFastPathDrop: String, CaseIterable, Sendable {
    case reset, resetServiceType, dispose, disposeAsync
}

@Suite("Waiter fast path attacks: drops mid-creation", .tags(.concurrency), .hangLimit)
struct WaiterFastPathAttackDropTests {
    @Test(
        "A drop mid-creation: earlier waiters get the dropped instance, later ones a new one",
        .timeLimit(.minutes(1)),
        arguments: WaiterFastPathDrop.allCases
    )
    func dropMidCreation(_ drop: WaiterFastPathDrop) async throws {
        let container = Container()
        let runs = Counter()
        let entered1 = Gate()
        let release1 = Gate()
        let entered2 = Gate()
        let release2 = Gate()
        let disposed = SerialLog()
        wfRegisterGated(
            in: container,
            runs: runs,
            entered1: entered1,
            release1: release1,
            entered2: entered2,
            release2: release2,
            disposed: disposed
        )
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFA.self) }
        await entered1.wait()
        let before = wfResolveTasks(view, count: 8)
        await wfEventually { container.waitersOnCreationsInFlight() >= 9 }
        var disposing: Task<Void, any Error>?
        switch drop {
        case .reset: container.resetObjectScope(.container)
        case .resetServiceType: container.resetObjectScope(.container, serviceType: WFA.self)
        case .dispose: try container.dispose()
        case .disposeAsync:
            // Waits for the creation in flight to end, to dispose of its instance: run it aside, and give
            // it time to take what it disposes of.
            let ref = WFRef(c: container)
            disposing = Task { try await ref.c.disposeAsync() }
            try await Task.sleep(for: .milliseconds(300))
        }
        // Started after the drop, while the dropped creation is still in flight.
        let second = Task { try await view.resolveAsync(WFA.self) }
        await entered2.wait()
        let after = wfResolveTasks(view, count: 8)
        await wfEventually { container.waitersOnCreationsInFlight() >= 18 }
        release1.open()
        let dropped = try await first.value
        #expect(dropped.serial == 1)
        #expect(try await wfSerialsOf(before) == Array(repeating: 1, count: 8))
        if let disposing {
            try await disposing.value
        }
        // The resolves made after the drop still wait for their own creation.
        #expect(container.waitersOnCreationsInFlight() >= 9)
        release2.open()
        let fresh = try await second.value
        #expect(fresh.serial == 2)
        #expect(
            try await wfSerialsOf(after) == Array(repeating: 2, count: 8),
            "a resolve started after the drop got the dropped instance"
        )
        #expect(try await view.resolveAsync(WFA.self) === fresh)
        #expect(runs.count == 2)
        await wfEventually { disposed.all.contains(1) }
        #expect(disposed.all == [1])
    }

    @Test("A drop, then a resolve made only after the old creation ended: a new instance", .timeLimit(.minutes(1)))
    func dropThenResolveAfterTheOldCreationEnded() async throws {
        let container = Container()
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFA.self) }
        await entered.wait()
        let waiters = wfResolveTasks(view, count: 4)
        await wfEventually { container.waitersOnCreationsInFlight() >= 5 }
        container.resetObjectScope(.container)
        release.open()
        let dropped = try await first.value
        #expect(try await wfSerialsOf(waiters) == [1, 1, 1, 1])
        let next = try await view.resolveAsync(WFA.self)
        #expect(next !== dropped)
        #expect(next.serial == 2)
    }

    @Test(
        "Re-registering mid-creation: old waiters get the old instance, new resolves the new one",
        .timeLimit(.minutes(1))
    )
    func reRegistrationMidCreation() async throws {
        let container = Container()
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        let disposed = SerialLog()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release, disposed: disposed)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFA.self) }
        await entered.wait()
        let before = wfResolveTasks(view, count: 8)
        await wfEventually { container.waitersOnCreationsInFlight() >= 9 }
        let newRuns = Counter()
        let newEntered = Gate()
        let newRelease = Gate()
        container.registerAsync(WFA.self) { _ in
            let serial = 100 + newRuns.next()
            newEntered.open()
            await newRelease.wait()
            return WFA(serial)
        }
        .inObjectScope(.container)
        let second = Task { try await view.resolveAsync(WFA.self) }
        await newEntered.wait()
        let after = wfResolveTasks(view, count: 8)
        await wfEventually { container.waitersOnCreationsInFlight() >= 18 }
        release.open()
        #expect(try await first.value.serial == 1)
        #expect(try await wfSerialsOf(before) == Array(repeating: 1, count: 8))
        newRelease.open()
        let fresh = try await second.value
        #expect(fresh.serial == 101)
        #expect(try await wfSerialsOf(after) == Array(repeating: 101, count: 8))
        #expect(try await view.resolveAsync(WFA.self) === fresh)
        #expect(newRuns.count == 1)
        #expect(runs.count == 1)
        await wfEventually { disposed.all == [1] }
        #expect(disposed.all == [1])
    }

    @Test(
        "Many rounds of reset and re-registration under concurrent waiters never mix instances",
        .timeLimit(.minutes(1))
    )
    func churn() async throws {
        let container = Container()
        let made = Counter()
        let ref = WFRef(c: container)
        let register = { @Sendable (generation: Int) in
            ref.c.registerAsync(WFA.self) { _ in
                await Task.yield()
                return WFA(generation * 10_000 + made.next())
            }
            .inObjectScope(.container)
        }
        _ = register(0)
        let view = container.synchronize()
        for round in 1...30 {
            let results = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await view.resolveAsync(WFA.self).serial }
                }
                if round.isMultiple(of: 3) {
                    _ = register(round)
                } else {
                    ref.c.resetObjectScope(.container)
                }
                var results: [Int] = []
                for try await serial in group { results.append(serial) }
                return results
            }
            #expect(results.count == 12)
            // After the round, one instance is kept and every resolve gets it.
            let kept = try await view.resolveAsync(WFA.self)
            let again = try await wfResolveTasks(view, count: 6).asyncMap { try await $0.value }
            #expect(again.allSatisfy { $0 === kept })
        }
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var result: [T] = []
        for element in self {
            result.append(try await transform(element))
        }
        return result
    }
}

// MARK: - Cycles and tasks the factory starts

@Suite("Waiter fast path attacks: cycles and spawned tasks", .tags(.concurrency), .hangLimit)
struct WaiterFastPathAttackCycleTests {
    @Test("A factory resolving its own key through a captured container reports a cycle", .timeLimit(.minutes(1)))
    func cycleThroughACapturedContainer() async throws {
        let container = Container()
        let ref = WFRef(c: container)
        let runs = Counter()
        container.registerAsync(WFA.self) { _ in
            runs.increment()
            await Task.yield()
            let inner = try await ref.c.resolveAsync(WFA.self)
            return WFA(inner.serial + 1)
        }
        .inObjectScope(.container)
        let view = container.synchronize()
        // Concurrent waiters too: they must get the cycle, not wait for ever.
        let tasks = wfResolveTasks(view, count: 8)
        for task in tasks {
            let result = await wfResult(of: task, within: 30, "a waiter of a cyclic creation")
            guard case .failure(DIError.circularDependency(let path)) = result else {
                Issue.record("expected a cycle, got \(result)")
                continue
            }
            #expect(path.first == ServiceKey(serviceType: WFA.self))
            #expect(path.last == ServiceKey(serviceType: WFA.self))
        }
        #expect(runs.count == 1)
        #expect(container.resolve(WFA.self) == nil)
    }

    @Test(
        "A factory whose child tasks resolve its own key through its resolver reports a cycle",
        .timeLimit(.minutes(1))
    )
    func childTasksThroughTheResolver() async throws {
        let container = Container()
        container.registerAsync(WFA.self) { r in
            let resolver = WFResolverBox(r)
            let serials = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await resolver.resolver.resolveAsync(WFA.self).serial }
                }
                var serials: [Int] = []
                for try await serial in group { serials.append(serial) }
                return serials
            }
            return WFA(serials.count)
        }
        .inObjectScope(.container)
        let view = container.synchronize()
        let tasks = wfResolveTasks(view, count: 4)
        for task in tasks {
            let result = await wfResult(of: task, within: 30, "a resolve whose factory's child tasks resolve it")
            guard case .failure(DIError.circularDependency) = result else {
                Issue.record("expected a cycle, got \(result)")
                continue
            }
        }
    }

    @Test(
        "A factory whose child tasks resolve its own key through a captured container hangs (known, pre-existing)",
        .timeLimit(.minutes(1))
    )
    func childTasksThroughACapturedContainer() async throws {
        let container = Container()
        let ref = WFRef(c: container)
        container.registerAsync(WFA.self) { _ in
            let serials = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<2 {
                    group.addTask { try await ref.c.resolveAsync(WFA.self).serial }
                }
                var serials: [Int] = []
                for try await serial in group { serials.append(serial) }
                return serials
            }
            return WFA(serials.count)
        }
        .inObjectScope(.container)
        // On the plain container the creation runs in this task: cancelling it after the time limit
        // reaches the child tasks' waits, and ends a deadlock.
        let task = Task { try await ref.c.resolveAsync(WFA.self) }
        // KNOWN ISSUE, not caused by be43dec: the same hang happens at 2bb0cd6. A structured child task of
        // the factory resolves through the captured container as a call of its own (no `inFlight`): it waits
        // for the creation in flight that its parent runs, and the parent waits for the child, so neither
        // goes on; no cycle is reported (`resolveAsync` documents "circularDependency ... never a hang").
        // Only cancelling the creator's task (done by `wfResult` after 5 s) ends it.
        await withKnownIssue("a structured child task resolving its parent's key through a captured container hangs") {
            let result = await wfResult(
                of: task,
                within: 5,
                "a creation whose child tasks resolve it through a captured container"
            )
            if case .success(let a) = result {
                Issue.record("a cyclic creation succeeded: \(a.serial)")
            }
        }
    }

    @Test(
        "Tasks a factory starts on another key of the same container join no creation wrongly",
        .timeLimit(.minutes(1))
    )
    func spawnedTasksOnAnotherKey() async throws {
        let container = Container()
        let ref = WFRef(c: container)
        let bRuns = Counter()
        container.registerAsync(WFB.self) { _ in
            try await Task.sleep(for: .milliseconds(2))
            return WFB(bRuns.next())
        }
        .inObjectScope(.container)
        container.registerAsync(WFA.self) { r in
            let view = ref.c.synchronize()
            let bs = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<8 {
                    group.addTask { ObjectIdentifier(try await view.resolveAsync(WFB.self)) }
                }
                var ids = Set<ObjectIdentifier>()
                for try await id in group { ids.insert(id) }
                return ids
            }
            let b = try await r.resolveAsync(WFB.self)
            return WFA(bs.count * 1000 + b.serial)
        }
        .inObjectScope(.container)
        let view = container.synchronize()
        let tasks = wfResolveTasks(view, count: 6)
        var serials = Set<Int>()
        for task in tasks {
            let result = await wfResult(of: task, within: 30, "a creation whose tasks resolve another key")
            if case .success(let a) = result { serials.insert(a.serial) } else { Issue.record("\(result)") }
        }
        #expect(serials == [1001])
        #expect(bRuns.count == 1)
    }
}

private struct WFResolverBox: @unchecked Sendable {
    let resolver: any Resolver
    init(_ resolver: any Resolver) { self.resolver = resolver }
}

// MARK: - Hierarchies, forwarding, names, scopes off the fast path, observation

@Suite("Waiter fast path attacks: hierarchy, forwarding and observation", .tags(.concurrency), .hangLimit)
struct WaiterFastPathAttackHierarchyTests {
    @Test("Parent and child views wait for the parent's one creation", .timeLimit(.minutes(1)))
    func childOfAParent() async throws {
        let parent = Container()
        let child = Container(parent: parent)
        let grandchild = Container(parent: child)
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: parent, runs: runs, entered1: entered, release1: release)
        let childView = child.synchronize()
        let first = Task { try await childView.resolveAsync(WFA.self) }
        await entered.wait()
        let fromParent = wfResolveTasks(parent.synchronize(), count: 4)
        let fromChild = wfResolveTasks(childView, count: 4)
        let fromGrandchild = wfResolveTasks(grandchild.synchronize(), count: 4)
        await wfEventually { parent.waitersOnCreationsInFlight() >= 13 }
        release.open()
        let a = try await first.value
        for task in fromParent + fromChild + fromGrandchild {
            #expect(try await task.value === a)
        }
        #expect(runs.count == 1)
        #expect(try await parent.resolveAsync(WFA.self) === a)
    }

    @Test("A child overriding a parent's registration does not join the parent's creation", .timeLimit(.minutes(1)))
    func childOverride() async throws {
        let parent = Container()
        let child = Container(parent: parent)
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: parent, runs: runs, entered1: entered, release1: release)
        child.registerAsync(WFA.self) { _ in WFA(500) }.inObjectScope(.container)
        let parentView = parent.synchronize()
        let childView = child.synchronize()
        let first = Task { try await parentView.resolveAsync(WFA.self) }
        await entered.wait()
        let fromChild = try await wfResult(
            of: Task { try await childView.resolveAsync(WFA.self) },
            within: 30,
            "the child's own registration"
        ).get()
        #expect(fromChild.serial == 500)
        release.open()
        #expect(try await first.value.serial == 1)
    }

    @Test("Waiters of a forwarded key (implements) get the target's one instance", .timeLimit(.minutes(1)))
    func forwardedKeys() async throws {
        let container = Container()
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
            .implements(WFService.self)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFA.self) }
        await entered.wait()
        let viaProtocol = (0..<8).map { _ in Task { try await view.resolveAsync(WFService.self) } }
        let direct = wfResolveTasks(view, count: 8)
        await wfEventually { container.waitersOnCreationsInFlight() >= 17 }
        release.open()
        let a = try await first.value
        for task in viaProtocol {
            #expect(try await task.value === a)
        }
        for task in direct {
            #expect(try await task.value === a)
        }
        #expect(runs.count == 1)
        #expect(try await view.resolveAsync(WFService.self) === a)
    }

    @Test("A forwarded key resolved first: the direct waiters join its creation", .timeLimit(.minutes(1)))
    func forwardedKeyCreatesDirectKeyWaits() async throws {
        let container = Container()
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
            .implements(WFService.self)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFService.self) }
        await entered.wait()
        let direct = wfResolveTasks(view, count: 8)
        await wfEventually { container.waitersOnCreationsInFlight() >= 9 }
        release.open()
        let a = try await first.value
        for task in direct {
            #expect(try await task.value === a)
        }
        #expect(runs.count == 1)
    }

    @Test("Named .container async registrations: each name its own creation", .timeLimit(.minutes(1)))
    func names() async throws {
        let container = Container()
        let runsX = Counter()
        let runsY = Counter()
        let enteredX = Gate()
        let releaseX = Gate()
        let enteredY = Gate()
        let releaseY = Gate()
        wfRegisterGated(in: container, name: "x", runs: runsX, entered1: enteredX, release1: releaseX)
        wfRegisterGated(in: container, name: "y", runs: runsY, entered1: enteredY, release1: releaseY)
        container.registerAsync(WFA.self) { _ in WFA(900) }.inObjectScope(.container)
        let view = container.synchronize()
        let firstX = Task { try await view.resolveAsync(WFA.self, name: "x") }
        let firstY = Task { try await view.resolveAsync(WFA.self, name: "y") }
        await enteredX.wait()
        await enteredY.wait()
        let xs = wfResolveTasks(view, count: 6, name: "x")
        let ys = wfResolveTasks(view, count: 6, name: "y")
        await wfEventually { container.waitersOnCreationsInFlight() >= 14 }
        // The unnamed one is not in flight: it resolves at once.
        #expect(try await view.resolveAsync(WFA.self).serial == 900)
        releaseY.open()
        let y = try await firstY.value
        for task in ys { #expect(try await task.value === y) }
        releaseX.open()
        let x = try await firstX.value
        for task in xs { #expect(try await task.value === x) }
        #expect(x !== y)
        #expect(runsX.count == 1)
        #expect(runsY.count == 1)
    }

    @Test(".multiton async waiters share per arguments, off the fast path", .timeLimit(.minutes(1)))
    func multiton() async throws {
        let container = Container()
        let runs = Counter()
        let gate = Gate()
        container.registerAsync(WFA.self) { (_, key: Int) in
            _ = runs.next()
            await gate.wait()
            return WFA(key)
        }
        .inObjectScope(.multiton)
        let view = container.synchronize()
        let tasks = (0..<24).map { index in
            Task { try await view.resolveAsync(WFA.self, argument: index % 3) }
        }
        await wfEventually { container.waitersOnCreationsInFlight() >= 24 }
        gate.open()
        var byKey: [Int: ObjectIdentifier] = [:]
        for (index, task) in tasks.enumerated() {
            let a = try await task.value
            #expect(a.serial == index % 3)
            if let id = byKey[index % 3] {
                #expect(id == ObjectIdentifier(a))
            } else {
                byKey[index % 3] = ObjectIdentifier(a)
            }
        }
        #expect(runs.count == 3)
    }

    @Test(
        ".transient and .graph async registrations are not shared by concurrent top-level resolves",
        .timeLimit(.minutes(1))
    )
    func otherScopes() async throws {
        let container = Container()
        let runs = Counter()
        for (name, scope) in [("t", ObjectScope.transient), ("g", .graph)] {
            container.registerAsync(WFA.self, name: name) { _ in
                await Task.yield()
                return WFA(runs.next())
            }
            .inObjectScope(scope)
        }
        let view = container.synchronize()
        for name in ["t", "g"] {
            let ids = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
                for _ in 0..<8 {
                    group.addTask { ObjectIdentifier(try await view.resolveAsync(WFA.self, name: name)) }
                }
                var ids = Set<ObjectIdentifier>()
                for try await id in group { ids.insert(id) }
                return ids
            }
            // Each task holds its instance only while the group runs: count the factory runs instead.
            _ = ids
        }
        #expect(runs.count == 16)
    }

    @Test(
        "countsResolutions on: every waiter is counted, as before the change",
        .timeLimit(.minutes(1)),
        arguments: [false, true]
    )
    func countedWaiters(turnOnMidCreation: Bool) async throws {
        let container = Container()
        if !turnOnMidCreation { container.countsResolutions = true }
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFA.self) }
        await entered.wait()
        if turnOnMidCreation {
            container.countsResolutions = true
        }
        let waiters = wfResolveTasks(view, count: 10)
        await wfEventually { container.waitersOnCreationsInFlight() >= 11 }
        release.open()
        let a = try await first.value
        for task in waiters { #expect(try await task.value === a) }
        _ = try await view.resolveAsync(WFA.self)
        let counted = wfResolvedCount(container, "WFA")
        // Counted from the start: the creator, the 10 waiters, the last resolve. Turned on mid-creation:
        // the 10 waiters and the last resolve.
        #expect(counted == (turnOnMidCreation ? 11 : 12), "\(container.statusReport())")
        #expect(runs.count == 1)
    }

    @Test("validatesScopes on: waiters still get the one instance", .timeLimit(.minutes(1)))
    func validatedWaiters() async throws {
        let container = Container()
        container.validatesScopes = true
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFA.self) }
        await entered.wait()
        let waiters = wfResolveTasks(view, count: 10)
        await wfEventually { container.waitersOnCreationsInFlight() >= 11 }
        release.open()
        let a = try await first.value
        for task in waiters { #expect(try await task.value === a) }
        #expect(runs.count == 1)
    }

    @Test(
        "validatesScopes on: a child's captive dependency fails a creator and its waiters alike",
        .timeLimit(.minutes(1))
    )
    func captiveDependencyWaiters() async throws {
        let parent = Container()
        parent.validatesScopes = true
        let child = Container(parent: parent)
        let gate = Gate()
        let entered = Gate()
        child.register(WFSync.self) { _ in WFSync(7) }
        parent.registerAsync(WFA.self) { r in
            entered.open()
            await gate.wait()
            return WFA(try await r.resolveAsync(WFSync.self).serial)
        }
        .inObjectScope(.container)
        let childView = child.synchronize()
        let first = Task { try await childView.resolveAsync(WFA.self) }
        await entered.wait()
        let waiters = wfResolveTasks(childView, count: 4)
        await wfEventually { parent.waitersOnCreationsInFlight() >= 5 }
        gate.open()
        let firstResult = await first.result
        var outcomes: [String] = []
        for task in [first] + waiters {
            switch await task.result {
            case .success(let a): outcomes.append("instance \(a.serial)")
            case .failure(let error): outcomes.append("\(error)")
            }
        }
        #expect(Set(outcomes).count == 1, "\(outcomes)")
        if case .success = firstResult {
            Issue.record("a .container instance captured a child's registration with validatesScopes on")
        }
    }

    @Test("verify() while a creation is in flight, then waiters: one instance", .timeLimit(.minutes(1)))
    func verifyDuringACreation() async throws {
        let container = Container()
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFA.self) }
        await entered.wait()
        let errors = container.verify()
        #expect(errors.isEmpty, "\(errors)")
        let waiters = wfResolveTasks(view, count: 8)
        await wfEventually { container.waitersOnCreationsInFlight() >= 9 }
        release.open()
        let a = try await first.value
        for task in waiters { #expect(try await task.value === a) }
        #expect(runs.count == 1, "verify() must not run the real async factory, nor a waiter start another")
    }
}

// MARK: - Isolation of the callers

@Suite("Waiter fast path attacks: caller isolation", .tags(.concurrency), .hangLimit)
struct WaiterFastPathAttackIsolationTests {
    @Test(
        "An actor method whose only statement is resolveAsync of a synchronous registration runs it on the actor",
        .timeLimit(.minutes(1))
    )
    func syncFactoryOnTheActor() async throws {
        for _ in 0..<5 {
            let lane = WFLane()
            let probe = IsolationProbe()
            let container = Container()
            container.register(WFB.self) { _ in
                probe.check("synchronous dependency", lane.isCurrent)
                return WFB(1)
            }
            container.register(WFSync.self) { r in
                probe.check("synchronous factory", lane.isCurrent)
                return WFSync(r.resolve(WFB.self)?.serial ?? -1)
            }
            container.register(WFSync.self, name: "named") { _ in
                probe.check("named synchronous factory", lane.isCurrent)
                return WFSync(2)
            }
            container.register(WFSync.self) { (_, serial: Int) in
                probe.check("synchronous factory with an argument", lane.isCurrent)
                return WFSync(serial)
            }
            let ref = WFRef(c: container)
            #expect(try await lane.resolveSync(ref).serial == 1)
            #expect(try await lane.resolveSyncNamed(ref).serial == 2)
            #expect(try await lane.resolveSyncArgument(ref, 3).serial == 3)
            #expect(probe.offIsolation == [])
            #expect(probe.count == 4)
        }
    }

    @Test(
        "The same through a view, an existential and a child container",
        .timeLimit(.minutes(1))
    )
    func syncFactoryOnTheActorThroughOtherResolvers() async throws {
        for _ in 0..<5 {
            let lane = WFLane()
            let probe = IsolationProbe()
            let parent = Container()
            parent.register(WFSync.self) { _ in
                probe.check("synchronous factory", lane.isCurrent)
                return WFSync(1)
            }
            let child = Container(parent: parent)
            #expect(try await lane.resolveSyncThroughView(parent.synchronize()).serial == 1)
            #expect(try await lane.resolveSyncExistential(parent.synchronize()).serial == 1)
            #expect(try await lane.resolveSync(WFRef(c: child)).serial == 1)
            #expect(try await lane.resolveSyncThroughView(child.synchronize()).serial == 1)
            #expect(probe.offIsolation == [])
            #expect(probe.count == 4)
        }
    }

    @Test(
        "A .container synchronous registration resolved from the actor while an async one is in flight",
        .timeLimit(.minutes(1))
    )
    func syncContainerBesideAFlight() async throws {
        let lane = WFLane()
        let probe = IsolationProbe()
        let container = Container()
        let runs = Counter()
        let entered = Gate()
        let release = Gate()
        wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
        container.register(WFSync.self) { _ in
            probe.check("synchronous .container factory", lane.isCurrent)
            return WFSync(5)
        }
        .inObjectScope(.container)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(WFA.self) }
        await entered.wait()
        #expect(try await lane.resolveSyncThroughView(view).serial == 5)
        #expect(try await lane.resolveSync(WFRef(c: container)).serial == 5)
        release.open()
        _ = try await first.value
        #expect(probe.offIsolation == [])
        #expect(probe.count == 1)
    }

    @Test("Actor waiters of a creation in flight get the instance and are back on the actor", .timeLimit(.minutes(1)))
    func actorWaiters() async throws {
        for _ in 0..<5 {
            let lanes = (0..<4).map { _ in WFLane() }
            let probe = IsolationProbe()
            let container = Container()
            let runs = Counter()
            let entered = Gate()
            let release = Gate()
            wfRegisterGated(in: container, runs: runs, entered1: entered, release1: release)
            let view = container.synchronize()
            let first = Task { try await view.resolveAsync(WFA.self) }
            await entered.wait()
            var tasks: [Task<WFA, any Error>] = []
            for lane in lanes {
                tasks.append(Task { try await lane.resolveAThenCheck(view, probe) })
                tasks.append(Task { try await lane.resolveAThroughView(view) })
            }
            await wfEventually { container.waitersOnCreationsInFlight() >= 9 }
            release.open()
            let a = try await first.value
            for task in tasks { #expect(try await task.value === a) }
            #expect(probe.offIsolation == [])
            #expect(probe.count == 4)
            #expect(runs.count == 1)
        }
    }

    @Test(
        "The first resolve from an actor creates on the actor; a nonisolated waiter gets the same",
        .timeLimit(.minutes(1))
    )
    func actorCreatorNonisolatedWaiter() async throws {
        let lane = WFLane()
        let probe = IsolationProbe()
        let container = Container()
        let runs = Counter()
        let gate = Gate()
        let entered = Gate()
        container.registerAsync(WFA.self) { _ in
            probe.check("async factory", lane.isCurrent)
            entered.open()
            await gate.wait()
            probe.check("async factory after its wait", lane.isCurrent)
            return WFA(runs.next())
        }
        .inObjectScope(.container)
        let view = container.synchronize()
        let ref = WFRef(c: container)
        let first = Task { try await lane.resolveA(ref) }
        await entered.wait()
        let waiter = Task.detached { try await view.resolveAsync(WFA.self) }
        await wfEventually { container.waitersOnCreationsInFlight() >= 1 }
        gate.open()
        let a = try await first.value
        #expect(try await waiter.value === a)
        #expect(probe.offIsolation == [])
        #expect(runs.count == 1)
    }

    @Test("From a nonisolated caller a synchronous factory resolves, and .container keeps one", .timeLimit(.minutes(1)))
    func nonisolatedCaller() async throws {
        let container = Container()
        let runs = Counter()
        container.register(WFSync.self) { _ in WFSync(runs.next()) }.inObjectScope(.container)
        container.register(WFB.self) { _ in WFB(runs.next()) }
        let ref = WFRef(c: container)
        let view = container.synchronize()
        let one = try await Task.detached { try await view.resolveAsync(WFSync.self) }.value
        let two = try await Task.detached { try await ref.c.synchronize().resolveAsync(WFSync.self) }.value
        #expect(one === two)
        let b1 = try await Task.detached { try await view.resolveAsync(WFB.self) }.value
        let b2 = try await Task.detached { try await view.resolveAsync(WFB.self) }.value
        #expect(b1 !== b2)
        #expect(runs.count == 3)
    }

    @MainActor
    @Test("From the main actor: main-actor and synchronous factories run on it", .timeLimit(.minutes(1)))
    func mainActorCaller() async throws {
        let container = Container()
        let probe = IsolationProbe()
        let runs = Counter()
        container.register(
            WFViewModel.self,
            mainActorFactory: { _ in
                probe.check("main-actor factory", wfOnMainActor())
                return WFViewModel(runs.next())
            }
        )
        .inObjectScope(.container)
        container.register(WFSync.self) { _ in
            probe.check("synchronous factory from the main actor", wfOnMainActor())
            return WFSync(runs.next())
        }
        let vm = try await container.resolveAsync(WFViewModel.self)
        #expect(try await container.resolveAsync(WFViewModel.self) === vm)
        _ = try await container.resolveAsync(WFSync.self)
        _ = try await container.synchronize().resolveAsync(WFSync.self)
        #expect(probe.offIsolation == [])
        #expect(probe.count == 3)
    }

    @Test("A .container main-actor registration from many nonisolated tasks: one instance", .timeLimit(.minutes(1)))
    func mainActorFactoryFromNonisolatedTasks() async throws {
        let container = Container()
        let probe = IsolationProbe()
        let runs = Counter()
        container.register(
            WFViewModel.self,
            mainActorFactory: { _ in
                probe.check("main-actor factory", wfOnMainActor())
                return WFViewModel(runs.next())
            }
        )
        .inObjectScope(.container)
        let view = container.synchronize()
        let serials = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<12 {
                group.addTask {
                    let vm = try await view.resolveAsync(WFViewModel.self)
                    return await MainActor.run { vm.serial }
                }
            }
            var serials = Set<Int>()
            for try await serial in group { serials.insert(serial) }
            return serials
        }
        #expect(serials == [1])
        #expect(runs.count == 1)
        #expect(probe.offIsolation == [])
    }
}

// MARK: - DIActor

@DIActor
private final class WFOnDIActor {
    var resolved: [Int] = []

    func resolve(_ ref: WFRef) async throws(DIError) -> WFSync {
        let sync = try await ref.c.resolveAsync(WFSync.self)
        resolved.append(sync.serial)
        return sync
    }
}

@DIActor
private func wfResolveOnDIActor(_ ref: WFRef) async throws(DIError) -> WFSync {
    DIActor.shared.preconditionIsolated()
    return try await ref.c.resolveAsync(WFSync.self)
}

@Suite("Waiter fast path attacks: DIActor", .tags(.concurrency), .hangLimit)
struct WaiterFastPathAttackDIActorTests {
    @Test("DIActor's register, resolve and resolveAsync behave", .timeLimit(.minutes(1)))
    func diActorBasics() async throws {
        let actor = DIActor()
        let runs = Counter()
        await actor.register(WFSync.self) { WFSync(runs.next()) }
        let release = await actor.registerSharedActor(WFB.self) { WFB(runs.next()) }
        await actor.register(WFA.self, instance: WFA(42))
        #expect(await actor.resolve(WFSync.self) !== (await actor.resolve(WFSync.self)))
        let b = try await actor.resolveAsync(WFB.self)
        #expect(await actor.resolve(WFB.self) === b)
        #expect(try await actor.resolveAsync(WFA.self).serial == 42)
        #expect(try await actor.resolveThrows(WFA.self).serial == 42)
        await release()
        #expect(await actor.resolve(WFB.self) == nil)
        let error = await #expect(throws: DIError.self) { try await actor.resolveAsync(WFB.self) }
        guard case .notRegistered? = error else {
            Issue.record("expected notRegistered, got \(String(describing: error))")
            return
        }
    }

    @Test("DIActor: a .container async registration resolved by many tasks at once runs once", .timeLimit(.minutes(1)))
    func diActorSharedAsync() async throws {
        let actor = DIActor()
        let runs = Counter()
        let gate = Gate()
        await actor.registerAsync(WFA.self, scope: .container) {
            let serial = runs.next()
            await gate.wait()
            return WFA(serial)
        }
        let ids = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<16 {
                group.addTask { ObjectIdentifier(try await actor.resolveAsync(WFA.self)) }
            }
            await wfEventually { runs.count >= 1 }
            try await Task.sleep(for: .milliseconds(20))
            gate.open()
            var ids = Set<ObjectIdentifier>()
            for try await id in group { ids.insert(id) }
            return ids
        }
        #expect(ids.count == 1)
        #expect(runs.count == 1)
        #expect(await actor.statusReport().contains("WFA"))
    }

    @Test("DIActor: an async factory that throws fails every concurrent resolve alike", .timeLimit(.minutes(1)))
    func diActorSharedAsyncFailure() async throws {
        let actor = DIActor()
        let runs = Counter()
        let gate = Gate()
        await actor.registerAsync(WFA.self, scope: .container) {
            let serial = runs.next()
            if serial == 1 {
                await gate.wait()
                throw WFBoom(serial: serial)
            }
            return WFA(serial)
        }
        let tasks = (0..<8).map { _ in Task { try await actor.resolveAsync(WFA.self) } }
        // Every caller waits for the one creation (a view's creation runs in a task of its own), so all
        // eight get its failure; a fixed pause was not enough under a loaded run.
        await wfEventually { actor.engine.container.waitersOnCreationsInFlight() >= 8 }
        #expect(actor.engine.container.waitersOnCreationsInFlight() >= 8)
        gate.open()
        for task in tasks {
            let result = await task.result
            guard case .failure(DIError.factoryFailed(_, _, let underlying)) = result else {
                Issue.record("expected the factory's error, got \(result)")
                continue
            }
            #expect(underlying as? WFBoom == WFBoom(serial: 1))
        }
        #expect(try await actor.resolveAsync(WFA.self).serial == 2)
    }

    @Test("@DIActor code resolves through a plain container, and stays on DIActor", .timeLimit(.minutes(1)))
    func globalActorUsage() async throws {
        let container = Container()
        let runs = Counter()
        container.register(WFSync.self) { _ in WFSync(runs.next()) }
        let ref = WFRef(c: container)
        let bound = WFOnDIActor()
        _ = try await bound.resolve(ref)
        _ = try await bound.resolve(ref)
        #expect(await bound.resolved == [1, 2])
        #expect(try await wfResolveOnDIActor(ref).serial == 3)
        let inside = try await Container.withCurrent(container) { () async throws -> Int in
            try await DIActor.shared.resolveAsync(WFSync.self).serial
        }
        #expect(inside == 4)
    }
}
