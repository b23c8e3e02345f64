import Foundation
import Testing

@testable import Keystone

// Attacks on the end of an async `.container` or `.multiton` creation shared by its waiters (`SingleFlight`):
// the instance is adopted by its scope and the flight leaves `hierarchy.flights` under one lock. Disposing
// calls, scope changes, re-registrations and resolves are made to land just before, at and just after that
// point; the checks are the scope rules: each instance is ended at most once by each kind of handler, an
// instance a disposing call took is ended once, and every instance handed out is either still kept or ended.

/// A service made by an async factory, numbered by creation, with the argument it was made for.
private final class Flown: Sendable {
    let id: Int
    let argument: Int

    init(id: Int, argument: Int = 0) {
        self.id = id
        self.argument = argument
    }
}

/// An error a factory throws on purpose.
private struct Refused: Error {}

/// How many times each value occurs.
private func tally(_ values: [Int]) -> [Int: Int] {
    values.reduce(into: [:]) { $0[$1, default: 0] += 1 }
}

/// The values that occur more than once.
private func repeated(_ values: [Int]) -> [Int] {
    tally(values).filter { $0.value > 1 }.keys.sorted()
}

/// A lock-guarded box for a value set from one task and read from another.
private final class Slot<Value>: @unchecked Sendable {
    // @unchecked: `stored` is used only under `lock`.
    private let lock = NSLock()
    private var stored: Value?

    func set(_ value: Value) {
        lock.lock()
        stored = value
        lock.unlock()
    }

    var value: Value? {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

/// The number of tasks waiting for the creations in flight of `container`'s hierarchy.
/// A synchronized view runs a creation in a task of its own: the resolve that started it is a waiter too.
private func waitersInFlight(_ container: Container) -> Int {
    container.hierarchy.withLock { container.hierarchy.flights.values.reduce(0) { $0 + $1.waiterCount } }
}

/// Whether `container`'s hierarchy has no creation in flight.
private func noFlights(_ container: Container) -> Bool {
    container.hierarchy.withLock { container.hierarchy.flights.isEmpty }
}

/// Waits, yielding, until `condition` holds or about two seconds have passed; returns whether it held.
private func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<2_000 {
        if condition() {
            return true
        }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

/// An object that runs `farewell` when it is deinitialized: a way to come back to the container while it
/// lets go of an instance.
private final class Parting: Sendable {
    let id: Int
    let farewell: @Sendable () -> Void

    init(id: Int, farewell: @escaping @Sendable () -> Void) {
        self.id = id
        self.farewell = farewell
    }

    deinit {
        farewell()
    }
}

/// What a registration made and ended, shared by the tests.
private final class Ledger: Sendable {
    let serial = Counter()
    let made = SerialLog()
    let ended = SerialLog()
    let endedAsync = SerialLog()

    func make(_ argument: Int = 0) -> Flown {
        let id = serial.next()
        made.add(id)
        return Flown(id: id, argument: argument)
    }

    /// Adds the handlers that record the end of an instance.
    @discardableResult
    func watch(_ entry: ServiceEntry<Flown>) -> ServiceEntry<Flown> {
        entry
            .onDispose { [ended] in ended.add($0.id) }
            .onDisposeAsync { [endedAsync] in endedAsync.add($0.id) }
    }
}

/// Checks, after the last disposal, that every instance `ledger` made was ended once by its synchronous
/// handlers, none twice by either kind, and, with `allAsync`, each once by its asynchronous ones too (else
/// only instances that were ended at all). Reports ids, not whole logs.
private func expectEndedOnce(
    _ ledger: Ledger,
    allAsync: Bool,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let made = Set(ledger.made.all)
    let ended = ledger.ended.all
    let endedAsync = ledger.endedAsync.all
    #expect(
        repeated(ended).isEmpty,
        "synchronous handlers ran twice for \(repeated(ended))",
        sourceLocation: sourceLocation
    )
    #expect(
        repeated(endedAsync).isEmpty,
        "asynchronous handlers ran twice for \(repeated(endedAsync))",
        sourceLocation: sourceLocation
    )
    let neverEnded = made.subtracting(ended).sorted()
    #expect(neverEnded.isEmpty, "no synchronous handler ran for \(neverEnded)", sourceLocation: sourceLocation)
    let unknown = Set(ended).union(endedAsync).subtracting(made).sorted()
    #expect(unknown.isEmpty, "ended but never made: \(unknown)", sourceLocation: sourceLocation)
    let asyncOnly = Set(endedAsync).subtracting(ended).sorted()
    #expect(asyncOnly.isEmpty, "asynchronous handlers alone ran for \(asyncOnly)", sourceLocation: sourceLocation)
    if allAsync {
        let neverEndedAsync = made.subtracting(endedAsync).sorted()
        #expect(
            neverEndedAsync.isEmpty,
            "no asynchronous handler ran for \(neverEndedAsync)",
            sourceLocation: sourceLocation
        )
    }
}

@Suite("Flight end attack: one creation at a time", .hangLimit, .tags(.concurrency, .engine))
struct FlightEndAttackTests {
    /// Registers an async `Flown` taking an `Int` in `scope`, whose first creation opens `entered` and
    /// waits for `release`.
    @discardableResult
    private static func register(
        _ container: Container,
        _ scope: ObjectScope,
        ledger: Ledger,
        entered: Gate,
        release: Gate
    ) -> ServiceEntry<Flown> {
        let entry = container.registerAsync(Flown.self) { (_, argument: Int) in
            let made = ledger.make(argument)
            if made.id == 1 {
                entered.open()
                await release.wait()
            }
            return made
        }
        .inObjectScope(scope)
        return ledger.watch(entry)
    }

    @Test(
        "Waiters that joined a creation, and resolves right after it ended, all get its instance",
        arguments: [ObjectScope.container, .multiton]
    )
    func waitersAroundTheEnd(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        let entered = Gate()
        let release = Gate()
        Self.register(container, scope, ledger: ledger, entered: entered, release: release)
        let view = container.synchronize()
        let creator = Task { try await view.resolveAsync(Flown.self, argument: 1) }
        await entered.wait()
        let waiters = (0..<6).map { _ in Task { try await view.resolveAsync(Flown.self, argument: 1) } }
        #expect(await eventually { waitersInFlight(container) == 7 }, "every waiter joined the creation")
        release.open()
        let first = try await creator.value
        // Resolves racing the waiters being resumed: the flight is gone, the instance is kept.
        let late = (0..<6).map { _ in Task { try await view.resolveAsync(Flown.self, argument: 1) } }
        for task in waiters + late {
            #expect(try await task.value === first)
        }
        #expect(noFlights(container))
        #expect(ledger.made.all == [1])
        try await container.disposeAsync()
        #expect(ledger.ended.all == [1] && ledger.endedAsync.all == [1])
    }

    @Test(
        "disposeAsync() taking a creation in flight, waiters before and after: each instance ended once",
        arguments: [ObjectScope.container, .multiton]
    )
    func disposeAsyncBetweenWaiters(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        let entered = Gate()
        let release = Gate()
        Self.register(container, scope, ledger: ledger, entered: entered, release: release)
        let view = container.synchronize()
        let creator = Task { try await view.resolveAsync(Flown.self, argument: 1) }
        await entered.wait()
        let before = (0..<4).map { _ in Task { try await view.resolveAsync(Flown.self, argument: 1) } }
        #expect(await eventually { waitersInFlight(container) == 5 })
        nonisolated(unsafe) let disposable = container
        let disposing = Task { try await disposable.disposeAsync() }
        // disposeAsync() waits for the creation it took: it stands among the waiters.
        try #require(await eventually { waitersInFlight(container) == 6 })
        // Arriving after the drop: a new creation, not the dropped one.
        let after = try await view.resolveAsync(Flown.self, argument: 1)
        #expect(after.id == 2)
        release.open()
        try await disposing.value
        let first = try await creator.value
        #expect(first.id == 1)
        for task in before {
            #expect(try await task.value === first)
        }
        #expect(try await view.resolveAsync(Flown.self, argument: 1) === after, "the later creation is kept")
        #expect(ledger.ended.all == [1] && ledger.endedAsync.all == [1])
        try await container.disposeAsync()
        #expect(ledger.ended.all == [1, 2] && ledger.endedAsync.all == [1, 2])
        try await container.disposeAsync()
        #expect(ledger.ended.all == [1, 2] && ledger.endedAsync.all == [1, 2])
    }

    @Test(
        "An initCompleted action that calls dispose() ends its own instance once; waiters still get it",
        arguments: [ObjectScope.container, .multiton]
    )
    func initCompletedDisposes(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        let entered = Gate()
        let release = Gate()
        Self.register(container, scope, ledger: ledger, entered: entered, release: release)
            .initCompleted { [unowned container] _, made in
                if made.id == 1 {
                    try container.dispose()
                }
            }
        let view = container.synchronize()
        let creator = Task { try await view.resolveAsync(Flown.self, argument: 1) }
        await entered.wait()
        let waiter = Task { try await view.resolveAsync(Flown.self, argument: 1) }
        #expect(await eventually { waitersInFlight(container) == 2 })
        release.open()
        let first = try await creator.value
        #expect(try await waiter.value === first)
        #expect(ledger.ended.all == [1], "dispose() in the action took the instance just kept")
        let next = try await view.resolveAsync(Flown.self, argument: 1)
        #expect(next.id == 2, "nothing kept after the action's dispose()")
        try await container.disposeAsync()
        #expect(ledger.ended.all == [1, 2])
        // dispose() runs no asynchronous handler: instance 1 never gets one.
        #expect(ledger.endedAsync.all == [2])
    }

    @Test(
        "An initCompleted action that resolves its own key gets the instance being completed",
        arguments: [ObjectScope.container, .multiton]
    )
    func initCompletedResolvesAgain(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        let entered = Gate()
        let release = Gate()
        let seen = Slot<Int>()
        Self.register(container, scope, ledger: ledger, entered: entered, release: release)
            .initCompleted { resolver, made in
                // A synchronous resolve of an async registration: it finds the instance already kept.
                let again = try resolver.resolveThrows(Flown.self, argument: 1)
                #expect(again === made)
                seen.set(again.id)
            }
        let view = container.synchronize()
        let creator = Task { try await view.resolveAsync(Flown.self, argument: 1) }
        await entered.wait()
        release.open()
        let first = try await creator.value
        #expect(seen.value == 1)
        #expect(try await view.resolveAsync(Flown.self, argument: 1) === first)
        try container.dispose()
        #expect(ledger.ended.all == [1])
    }

    /// dispose() drops the creation in flight (it is to be ended when made); the instance is then stored
    /// for a moment so that its initCompleted actions find it, and an action calls dispose() again. That
    /// second dispose() takes the stored instance and ends it; the creation then ends it once more.
    @Test(
        "A creation dropped by dispose(), whose initCompleted action calls dispose(): ended once",
        arguments: [ObjectScope.container, .multiton]
    )
    func droppedCreationWhoseActionDisposes(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        let entered = Gate()
        let release = Gate()
        Self.register(container, scope, ledger: ledger, entered: entered, release: release)
            .initCompleted { [unowned container] _, made in
                if made.id == 1 {
                    try container.dispose()
                }
            }
        let view = container.synchronize()
        let creator = Task { try await view.resolveAsync(Flown.self, argument: 1) }
        await entered.wait()
        try container.dispose()
        release.open()
        #expect(try await creator.value.id == 1)
        #expect(ledger.ended.all == [1])
        #expect(ledger.ended.all.allSatisfy { $0 == 1 })
        try await container.disposeAsync()
        #expect(ledger.endedAsync.all.isEmpty, "dispose() took it: no asynchronous handler")
    }

    /// The synchronous counterpart of ``droppedCreationWhoseActionDisposes(scope:)``: the factory itself
    /// calls dispose() (dropping its own creation), then an initCompleted action calls dispose() again.
    @Test("A synchronous creation dropped by its factory's dispose(), whose action disposes again: ended once")
    func syncDroppedCreationWhoseActionDisposes() throws {
        let container = Container()
        let ended = SerialLog()
        let serial = Counter()
        container.register(Flown.self) { [unowned container] _ in
            let id = serial.next()
            if id == 1 {
                try? container.dispose()
            }
            return Flown(id: id)
        }
        .inObjectScope(.container)
        .initCompleted { [unowned container] _, made in
            if made.id == 1 {
                try container.dispose()
            }
        }
        .onDispose { ended.add($0.id) }
        #expect(try container.resolveThrows(Flown.self).id == 1)
        #expect(ended.all == [1])
        try container.dispose()
        #expect(ended.all.allSatisfy { $0 == 1 })
    }

    /// disposeAsync() takes the creation in flight and waits for it, to run its asynchronous handlers on
    /// its instance. A kept instance's handlers run whether or not the calling task is cancelled; the
    /// creation's must as well, and disposeAsync() returns only once the creation has ended.
    @Test(
        "disposeAsync() on a cancelled task still ends a creation it took with every handler",
        arguments: [ObjectScope.container, .multiton]
    )
    func cancelledDisposeAsync(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        let entered = Gate()
        let release = Gate()
        let other = Ledger()
        other.watch(container.registerAsync(Flown.self, name: "kept") { _ in other.make() }.inObjectScope(scope))
        Self.register(container, scope, ledger: ledger, entered: entered, release: release)
        let view = container.synchronize()
        let keptInstance = try await view.resolveAsync(Flown.self, name: "kept")
        let creator = Task { try await view.resolveAsync(Flown.self, argument: 1) }
        await entered.wait()
        nonisolated(unsafe) let disposable = container
        let returned = Slot<Bool>()
        let disposing = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            defer { returned.set(true) }
            try await disposable.disposeAsync()
        }
        try await Task.sleep(for: .milliseconds(50))
        // The creation in flight is the newest: disposeAsync() waits for it before it ends the kept instance.
        let returnedEarly = returned.value == true
        #expect(other.ended.all.isEmpty, "the kept instance is ended after the newer creation in flight")
        release.open()
        _ = await disposing.result
        // The kept instance's handlers ran, cancelled or not.
        #expect(other.ended.all == [keptInstance.id] && other.endedAsync.all == [keptInstance.id])
        let made = try await creator.value
        #expect(made.id == 1)
        #expect(ledger.ended.all == [1], "the creation ran its synchronous handlers")
        #expect(!returnedEarly, "disposeAsync() returned before the creation it took ended")
        #expect(ledger.endedAsync.all == [1])
        try await container.disposeAsync()
        #expect(ledger.ended.all == [1] && repeated(ledger.endedAsync.all).isEmpty)
        #expect(try await view.resolveAsync(Flown.self, argument: 1).id == 2, "the taken creation was not kept")
    }

    @Test("An instance whose deinitializer resolves, let go by a scope change: it finds what the container keeps")
    func deinitResolvesDuringScopeChange() async throws {
        let container = Container()
        let other = Ledger()
        let view = container.synchronize()
        let found = SerialLog()
        other.watch(container.registerAsync(Flown.self, name: "other") { _ in other.make() }.inObjectScope(.container))
        let serial = Counter()
        let entry = container.registerAsync(Parting.self) { _ in
            Parting(id: serial.next()) {
                // Comes back to the container while it lets go of this instance.
                found.add(view.resolve(Flown.self, name: "other")?.id ?? -1)
            }
        }
        .inObjectScope(.container)
        let kept = try await view.resolveAsync(Flown.self, name: "other")
        #expect(view.resolve(Flown.self, name: "other") === kept, "a synchronous resolve finds the kept instance")
        #expect(try await view.resolveAsync(Parting.self).id == 1)
        entry.inObjectScope(.multiton)
        #expect(found.all == [kept.id], "the deinitializer of the dropped instance ran, and found the kept one")
        let next = try await view.resolveAsync(Parting.self)
        #expect(next.id == 2)
        try await container.disposeAsync()
        #expect(other.ended.all == [kept.id])
    }

    /// A scope change lets go of the kept instance under the hierarchy's lock, while the scope's storage is
    /// being cleared (`InstanceCache.dropInstance`). A deinitializer that calls dispose() there used to find
    /// the instance still in the storage, take it for disposal, and release it a second time: the process
    /// crashed (a bad pointer dereference in swift_release, from the deinitializer). Run in a process of its
    /// own, so that a crash fails this test alone.
    @Test("An instance whose deinitializer calls dispose(), let go by a scope change: the process goes on")
    func deinitDisposesDuringScopeChange() async {
        await #expect(processExitsWith: .success) {
            let container = Container()
            nonisolated(unsafe) let disposable = container
            let entry = container.registerAsync(Parting.self) { _ in
                Parting(id: 1) { try? disposable.dispose() }
            }
            .inObjectScope(.container)
            _ = try? await container.resolveAsync(Parting.self)
            entry.inObjectScope(.multiton)
            let again = try? await container.resolveAsync(Parting.self)
            precondition(again?.id == 1, "the scope change kept nothing, and the next resolve made one")
        }
    }

    /// The synchronous counterparts: a `.container` instance let go by a scope change, and `.multiton`
    /// instances let go by a scope change and by a failed `initCompleted` action, each with a
    /// deinitializer that disposes of the container.
    @Test("Synchronous instances whose deinitializer calls dispose(), let go while the scope drops them")
    func syncDeinitDisposesWhileDropped() async {
        await #expect(processExitsWith: .success) {
            let container = Container()
            nonisolated(unsafe) let disposable = container
            let serial = Counter()
            let single = container.register(Parting.self) { _ in
                Parting(id: serial.next()) { try? disposable.dispose() }
            }
            .inObjectScope(.container)
            _ = container.resolve(Parting.self)
            single.inObjectScope(.multiton)
            let many = container.register(Parting.self, name: "many") { (_, value: Int) in
                Parting(id: value) { try? disposable.dispose() }
            }
            .inObjectScope(.multiton)
            for value in 0..<3 {
                _ = container.resolve(Parting.self, name: "many", argument: value)
            }
            many.inObjectScope(.container)
            struct Refused: Error {}
            container.register(Parting.self, name: "failing") { (_, value: Int) in
                Parting(id: value) { try? disposable.dispose() }
            }
            .inObjectScope(.multiton)
            .initCompleted { _, _ in throw Refused() }
            precondition(container.resolve(Parting.self, name: "failing", argument: 1) == nil)
            precondition(container.resolve(Parting.self)?.id == 2, "the scope change kept nothing")
        }
    }

    @Test(
        "A factory that throws: its waiters get the error, the flight is gone, the next resolve retries",
        arguments: [ObjectScope.container, .multiton]
    )
    func failedCreationRetries(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        let entered = Gate()
        let release = Gate()
        let attempts = Counter()
        ledger.watch(
            container.registerAsync(Flown.self) { (_, argument: Int) in
                if attempts.next() == 1 {
                    entered.open()
                    await release.wait()
                    throw Refused()
                }
                return ledger.make(argument)
            }
            .inObjectScope(scope)
        )
        let view = container.synchronize()
        let creator = Task { try await view.resolveAsync(Flown.self, argument: 1) }
        await entered.wait()
        let waiters = (0..<3).map { _ in Task { try await view.resolveAsync(Flown.self, argument: 1) } }
        #expect(await eventually { waitersInFlight(container) == 4 })
        nonisolated(unsafe) let disposable = container
        let disposing = Task { try await disposable.disposeAsync() }
        #expect(await eventually { waitersInFlight(container) == 5 })
        release.open()
        for task in [creator] + waiters {
            let outcome = await task.result
            #expect(throws: DIError.self) { try outcome.get() }
        }
        try await disposing.value
        #expect(noFlights(container))
        #expect(ledger.ended.all.isEmpty && ledger.endedAsync.all.isEmpty)
        let retried = try await view.resolveAsync(Flown.self, argument: 1)
        #expect(retried.id == 1 && attempts.count == 2)
        #expect(try await view.resolveAsync(Flown.self, argument: 1) === retried)
        try await container.disposeAsync()
        #expect(ledger.ended.all == [1] && ledger.endedAsync.all == [1])
    }

    @Test(
        "The task that started a creation cancelled: its wait ends, the creation goes on for the other waiters",
        arguments: [ObjectScope.container, .multiton]
    )
    func starterCancelled(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        let entered = Gate()
        let release = Gate()
        ledger.watch(
            container.registerAsync(Flown.self) { (_, argument: Int) in
                let made = ledger.make(argument)
                if made.id == 1 {
                    entered.open()
                    await release.wait()
                    // A factory that honours cancellation of the task it runs in.
                    try Task.checkCancellation()
                }
                return made
            }
            .inObjectScope(scope)
        )
        let view = container.synchronize()
        let starter = Task { try await view.resolveAsync(Flown.self, argument: 1) }
        await entered.wait()
        let waiters = (0..<3).map { _ in Task { try await view.resolveAsync(Flown.self, argument: 1) } }
        #expect(await eventually { waitersInFlight(container) == 4 })
        starter.cancel()
        // The synchronized view runs the creation in a task of its own: the cancelled wait ends at once.
        let cancelled = await starter.result
        #expect(throws: (any Error).self) { try cancelled.get() }
        #expect(await eventually { waitersInFlight(container) == 3 })
        release.open()
        var got: [Flown] = []
        for waiter in waiters {
            got.append(try await waiter.value)
        }
        #expect(got.allSatisfy { $0.id == 1 }, "one creation, one instance: \(got.map(\.id))")
        #expect(noFlights(container))
        #expect(try await view.resolveAsync(Flown.self, argument: 1).id == 1, "and it is kept")
        try await container.disposeAsync()
        #expect(ledger.ended.all == [1] && ledger.endedAsync.all == [1])
    }

    @Test(
        "A plain container's creating task cancelled: the creation fails, nothing is kept, the next resolve retries",
        arguments: [ObjectScope.container, .multiton]
    )
    func plainCreatorCancelled(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        let entered = Gate()
        let release = Gate()
        ledger.watch(
            container.registerAsync(Flown.self) { (_, argument: Int) in
                let made = ledger.make(argument)
                if made.id == 1 {
                    entered.open()
                    await release.wait()
                    try Task.checkCancellation()
                }
                return made
            }
            .inObjectScope(scope)
        )
        nonisolated(unsafe) let plain = container
        let creator = Task { try await plain.resolveAsync(Flown.self, argument: 1) }
        await entered.wait()
        creator.cancel()
        release.open()
        let outcome = await creator.result
        #expect(throws: (any Error).self) { try outcome.get() }
        #expect(noFlights(container))
        let next = try await container.resolveAsync(Flown.self, argument: 1)
        #expect(next.id == 2)
        #expect(try await container.resolveAsync(Flown.self, argument: 1) === next)
        try await container.disposeAsync()
        #expect(ledger.ended.all == [2] && ledger.endedAsync.all == [2], "the failed creation's instance is not kept")
    }

    @Test(
        "Tasks a factory spawns to resolve its own key join the creation and get its instance",
        arguments: [ObjectScope.container, .multiton]
    )
    func spawnedTasksJoin(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        let view = container.synchronize()
        nonisolated(unsafe) let watched = container
        let spawned = Slot<[Task<Flown, any Error>]>()
        ledger.watch(
            container.registerAsync(Flown.self) { (_, argument: Int) in
                let made = ledger.make(argument)
                if made.id == 1 {
                    spawned.set([
                        Task { try await view.resolveAsync(Flown.self, argument: argument) },
                        Task.detached { try await view.resolveAsync(Flown.self, argument: argument) },
                        Task { try await view.resolveAsync(Flown.self, argument: argument) },
                    ])
                    // Not awaited (that would be a deadlock): they are waiters of this creation.
                    _ = await eventually { waitersInFlight(watched) == 4 }
                }
                return made
            }
            .inObjectScope(scope)
        )
        let first = try await view.resolveAsync(Flown.self, argument: 1)
        let tasks = try #require(spawned.value)
        for task in tasks {
            #expect(try await task.value === first)
        }
        #expect(ledger.made.all == [1])
        try await container.disposeAsync()
        #expect(ledger.ended.all == [1] && ledger.endedAsync.all == [1])
    }

    @Test(
        "A child task of a factory (async let) resolving the factory's key through its resolver: a cycle, no hang",
        arguments: [ObjectScope.container, .multiton]
    )
    func asyncLetResolvesOwnKey(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        let inner = Slot<String>()
        ledger.watch(
            container.registerAsync(Flown.self) { (resolver, argument: Int) in
                let made = ledger.make(argument)
                if made.id == 1 {
                    // The resolver carries this creation's resolution into the child task.
                    nonisolated(unsafe) let carried = resolver
                    async let again = carried.resolveAsync(Flown.self, argument: argument)
                    do {
                        let found = try await again
                        inner.set("resolved \(found.id)")
                    } catch let error as DIError {
                        if case .circularDependency = error {
                            inner.set("cycle")
                        } else {
                            inner.set("\(error)")
                        }
                    } catch {
                        inner.set("\(error)")
                    }
                }
                return made
            }
            .inObjectScope(scope)
        )
        let view = container.synchronize()
        let outcome = await Task { try await view.resolveAsync(Flown.self, argument: 1) }.result
        let text = try #require(inner.value)
        #expect(text == "cycle")
        #expect(noFlights(container))
        // Whatever the outer resolve got, nothing is ended twice and the key resolves again.
        let next = try await view.resolveAsync(Flown.self, argument: 1)
        #expect(try await view.resolveAsync(Flown.self, argument: 1) === next)
        try await container.disposeAsync()
        #expect(repeated(ledger.ended.all).isEmpty && repeated(ledger.endedAsync.all).isEmpty)
        if let first = try? outcome.get() {
            // Handed out, so kept (then it is `next`) or ended.
            #expect(first === next || ledger.ended.all.contains(first.id))
        }
    }

    @Test("Two async .container creations that need each other, started at once: a cycle error, then retries work")
    func cycleBetweenCreations() async throws {
        let container = Container()
        let ledger = Ledger()
        let bothStarted = Counter()
        let go = Gate()
        let cyclic = Slot<Bool>()
        cyclic.set(true)
        ledger.watch(
            container.registerAsync(Flown.self, name: "a") { resolver in
                bothStarted.increment()
                await go.wait()
                if cyclic.value == true {
                    _ = try await resolver.resolveAsync(Flown.self, name: "b")
                }
                return ledger.make(1)
            }
            .inObjectScope(.container)
        )
        ledger.watch(
            container.registerAsync(Flown.self, name: "b") { resolver in
                bothStarted.increment()
                await go.wait()
                _ = try await resolver.resolveAsync(Flown.self, name: "a")
                return ledger.make(2)
            }
            .inObjectScope(.container)
        )
        let view = container.synchronize()
        let a = Task { try await view.resolveAsync(Flown.self, name: "a") }
        let b = Task { try await view.resolveAsync(Flown.self, name: "b") }
        #expect(await eventually { bothStarted.count == 2 })
        go.open()
        let outcomes = [await a.result, await b.result]
        #expect(
            outcomes.contains { outcome in
                if case .failure(let error) = outcome, case .circularDependency = error as? DIError { return true }
                return false
            }
        )
        #expect(noFlights(container))
        cyclic.set(false)
        let madeB = try await view.resolveAsync(Flown.self, name: "b")
        let madeA = try await view.resolveAsync(Flown.self, name: "a")
        #expect(try await view.resolveAsync(Flown.self, name: "a") === madeA)
        #expect(try await view.resolveAsync(Flown.self, name: "b") === madeB)
        try await container.disposeAsync()
        #expect(repeated(ledger.ended.all).isEmpty)
        #expect(Set(ledger.ended.all) == Set(ledger.made.all))
    }

    @Test(
        "A child's disposeAsync() while it resolves its parent's creation in flight: the parent's instance lives on",
        arguments: [ObjectScope.container, .multiton]
    )
    func childDisposesDuringParentCreation(scope: ObjectScope) async throws {
        let parent = Container()
        let ledger = Ledger()
        let entered = Gate()
        let release = Gate()
        Self.register(parent, scope, ledger: ledger, entered: entered, release: release)
        let child = Container(parent: parent)
        let local = Ledger()
        local.watch(
            child.registerAsync(Flown.self, name: "local") { resolver in
                let shared = try await resolver.resolveAsync(Flown.self, argument: 1)
                return local.make(shared.id)
            }
            .inObjectScope(scope)
        )
        let childView = child.synchronize()
        let creator = Task { try await childView.resolveAsync(Flown.self, name: "local") }
        await entered.wait()
        let parentView = parent.synchronize()
        let viaParent = Task { try await parentView.resolveAsync(Flown.self, argument: 1) }
        #expect(await eventually { waitersInFlight(parent) == 2 })
        nonisolated(unsafe) let disposableChild = child
        let disposing = Task { try await disposableChild.disposeAsync() }
        try await Task.sleep(for: .milliseconds(20))
        release.open()
        try await disposing.value
        let made = try await creator.value
        let shared = try await viaParent.value
        #expect(shared.id == 1 && made.argument == 1)
        #expect(ledger.ended.all.isEmpty && ledger.endedAsync.all.isEmpty, "the child ends none of its parent's")
        #expect(local.ended.all == [made.id] && local.endedAsync.all == [made.id], "the child's creation it took")
        #expect(try await childView.resolveAsync(Flown.self, argument: 1) === shared)
        try await parent.disposeAsync()
        #expect(ledger.ended.all == [1] && ledger.endedAsync.all == [1])
    }
}

/// A lock-guarded list of the instances handed out during a round.
private final class Handed: @unchecked Sendable {
    // @unchecked: `instances` is used only under `lock`.
    private let lock = NSLock()
    private var instances: [Flown] = []

    func add(_ instance: Flown) {
        lock.lock()
        instances.append(instance)
        lock.unlock()
    }

    /// Returns the instances handed out so far and forgets them.
    func take() -> [Flown] {
        lock.lock()
        defer {
            instances = []
            lock.unlock()
        }
        return instances
    }
}

@Suite("Flight end attack: many tasks around the end of creations", .hangLimit, .tags(.concurrency, .engine))
struct FlightEndStressTests {
    /// The disposing calls raced against the waiters.
    enum Drop: String, CaseIterable, Sendable {
        case dispose, disposeAsync, reset, mixed
    }

    /// Registers an async `Flown` taking an `Int` in `scope`, whose factory yields once before it makes
    /// the instance (so that creations stay in flight while other tasks arrive).
    @discardableResult
    private static func register(_ container: Container, _ scope: ObjectScope, ledger: Ledger) -> ServiceEntry<Flown> {
        ledger.watch(
            container.registerAsync(Flown.self) { (_, argument: Int) in
                await Task.yield()
                return ledger.make(argument)
            }
            .inObjectScope(scope)
        )
    }

    /// Checks that each instance handed out is still the one its scope keeps, or was ended.
    private static func checkHandedOut(
        _ instances: [Flown],
        view: SynchronizedResolver,
        ledger: Ledger,
        round: Int
    ) async throws {
        for instance in instances {
            let now = try await view.resolveAsync(Flown.self, argument: instance.argument)
            #expect(
                now === instance || ledger.ended.all.contains(instance.id),
                "round \(round): instance \(instance.id) handed out, neither kept nor ended"
            )
        }
    }

    @Test(
        "Waiters joining creations around their end while disposing calls drop them",
        arguments: [ObjectScope.container, .multiton],
        Drop.allCases
    )
    func disposingCallsAroundTheEnd(scope: ObjectScope, drop: Drop) async throws {
        let container = Container()
        let ledger = Ledger()
        Self.register(container, scope, ledger: ledger)
        let view = container.synchronize()
        nonisolated(unsafe) let disposable = container
        let handed = Handed()
        for round in 0..<60 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        handed.add(try await view.resolveAsync(Flown.self, argument: (round + worker) % 3))
                    }
                }
                group.addTask {
                    for _ in 0..<(round % 4) {
                        await Task.yield()
                    }
                    let action = drop == .mixed ? [Drop.dispose, .disposeAsync, .reset][round % 3] : drop
                    switch action {
                    case .dispose: try disposable.dispose()
                    case .disposeAsync, .mixed: try await disposable.disposeAsync()
                    case .reset: disposable.resetObjectScope(scope)
                    }
                }
                try await group.waitForAll()
            }
            try await Self.checkHandedOut(handed.take(), view: view, ledger: ledger, round: round)
        }
        #expect(noFlights(container))
        try await container.disposeAsync()
        // With disposeAsync() alone, every instance gets its asynchronous handlers as well.
        expectEndedOnce(ledger, allAsync: drop == .disposeAsync)
    }

    @Test(
        "Waiters joining creations around their end while the key is registered again or everything removed",
        arguments: [ObjectScope.container, .multiton]
    )
    func registrationsAroundTheEnd(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        Self.register(container, scope, ledger: ledger)
        let view = container.synchronize()
        nonisolated(unsafe) let changing = container
        let handed = Handed()
        let missing = Counter()
        for round in 0..<60 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        do {
                            handed.add(try await view.resolveAsync(Flown.self, argument: (round + worker) % 3))
                        } catch {
                            // Between removeAll() and the next registration the key is not registered.
                            missing.increment()
                        }
                    }
                }
                group.addTask {
                    for _ in 0..<(round % 4) {
                        await Task.yield()
                    }
                    if round % 2 == 0 {
                        Self.register(changing, scope, ledger: ledger)
                    } else {
                        changing.removeAll()
                        await Task.yield()
                        Self.register(changing, scope, ledger: ledger)
                    }
                }
                try await group.waitForAll()
            }
            try await Self.checkHandedOut(handed.take(), view: view, ledger: ledger, round: round)
        }
        try await container.disposeAsync()
        expectEndedOnce(ledger, allAsync: false)
    }

    @Test("Waiters joining creations around their end while the scope changes: nothing ended but what is kept last")
    func scopeChangesAroundTheEnd() async throws {
        let container = Container()
        let ledger = Ledger()
        let entry = Self.register(container, .container, ledger: ledger)
        nonisolated(unsafe) let changed = entry
        let view = container.synchronize()
        let handed = Handed()
        for round in 0..<60 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        handed.add(try await view.resolveAsync(Flown.self, argument: (round + worker) % 3))
                    }
                }
                group.addTask {
                    for _ in 0..<(round % 4) {
                        await Task.yield()
                    }
                    changed.inObjectScope(round % 2 == 0 ? .multiton : .container)
                }
                try await group.waitForAll()
            }
            let instances = handed.take()
            // Handed out, but possibly dropped by the scope change: not ended.
            #expect(instances.allSatisfy { ledger.made.all.contains($0.id) })
        }
        #expect(ledger.ended.all.isEmpty, "a scope change alone ends nothing: \(ledger.ended.all)")
        var last: [Flown] = []
        for argument in 0..<3 {
            last.append(try await view.resolveAsync(Flown.self, argument: argument))
        }
        try await container.disposeAsync()
        let kept = Set(last.map(\.id))
        #expect(repeated(ledger.ended.all).isEmpty)
        #expect(Set(ledger.ended.all) == kept, "only what the last scope keeps is ended")
        #expect(Set(ledger.endedAsync.all) == kept)
    }

    @Test(
        "disposeAsync() looping against tasks resolving several argument values: both handlers once per instance",
        arguments: [ObjectScope.container, .multiton]
    )
    func disposeAsyncLoop(scope: ObjectScope) async throws {
        let container = Container()
        let ledger = Ledger()
        // No suspension in the factory: creations end as soon as they start, the window the fix closed.
        ledger.watch(
            container.registerAsync(Flown.self) { (_, argument: Int) in ledger.make(argument) }.inObjectScope(scope)
        )
        let view = container.synchronize()
        nonisolated(unsafe) let disposable = container
        let rounds = 1_500
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<3 {
                group.addTask {
                    for step in 0..<rounds {
                        _ = try await view.resolveAsync(Flown.self, argument: (worker + step) % 4)
                    }
                }
            }
            group.addTask {
                for step in 0..<rounds {
                    if step % 5 == 0 {
                        try disposable.dispose()
                    } else {
                        try await disposable.disposeAsync()
                    }
                }
            }
            try await group.waitForAll()
        }
        try await container.disposeAsync()
        expectEndedOnce(ledger, allAsync: false)
    }

    /// Every resolve asks for new argument values, so every one is a creation that ends, while
    /// disposeAsync() runs without pause: a disposal lands between the moment an instance is kept and the
    /// moment its flight leaves the hierarchy as often as it can.
    @Test("disposeAsync() without pause against creations that all end at once: async handlers once each")
    func disposeAsyncAgainstEndingCreations() async throws {
        let container = Container()
        let ledger = Ledger()
        ledger.watch(
            container.registerAsync(Flown.self) { (_, argument: Int) in ledger.make(argument) }
                .inObjectScope(.multiton)
        )
        let view = container.synchronize()
        nonisolated(unsafe) let disposable = container
        let resolving = Counter()
        let perWorker = 2_000
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<2 {
                group.addTask {
                    defer { resolving.increment() }
                    for step in 0..<perWorker {
                        _ = try await view.resolveAsync(Flown.self, argument: worker * perWorker + step)
                    }
                }
            }
            group.addTask {
                while resolving.count < 2 {
                    try await disposable.disposeAsync()
                }
            }
            try await group.waitForAll()
        }
        try await container.disposeAsync()
        #expect(ledger.made.all.count == 2 * perWorker)
        expectEndedOnce(ledger, allAsync: true)
    }

    @Test("Request scopes resolving their parent's async creations while both dispose: each instance ended once")
    func childrenAndParent() async throws {
        let parent = Container()
        let shared = Ledger()
        Self.register(parent, .multiton, ledger: shared)
        let local = Ledger()
        nonisolated(unsafe) let disposableParent = parent
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<3 {
                group.addTask {
                    for round in 0..<40 {
                        let child = Container(parent: disposableParent)
                        local.watch(
                            child.registerAsync(Flown.self, name: "local") { resolver in
                                let from = try await resolver.resolveAsync(Flown.self, argument: (worker + round) % 2)
                                return local.make(from.id)
                            }
                            .inObjectScope(.container)
                        )
                        let view = child.synchronize()
                        let first = Task { try await view.resolveAsync(Flown.self, name: "local") }
                        let second = Task { try await view.resolveAsync(Flown.self, name: "local") }
                        let pair = (try await first.value, try await second.value)
                        #expect(pair.0 === pair.1, "two waiters of one request's creation")
                        try await child.disposeAsync()
                        #expect(local.ended.all.contains(pair.0.id))
                    }
                }
            }
            group.addTask {
                for round in 0..<40 {
                    if round % 2 == 0 {
                        try await disposableParent.disposeAsync()
                    } else {
                        try disposableParent.dispose()
                    }
                    await Task.yield()
                }
            }
            try await group.waitForAll()
        }
        try await parent.disposeAsync()
        expectEndedOnce(shared, allAsync: false)
        // Each request's instance is ended by its own disposeAsync(), whichever way its creation went.
        expectEndedOnce(local, allAsync: true)
    }
}
