import Foundation
import Testing

@testable import Keystone

// Attacks on where `warmUp()` and the other actor-isolated entry points of the engine run their steps:
// every factory and every engine step between suspension points must run in the isolation it belongs to
// (the caller's actor, the main actor, or warm-up's own lane), never beside another one. The checks do
// not crash: a lane actor runs on an executor of its own that tells whether the current thread is running
// one of its jobs, and the main actor is the main thread.

// MARK: - Fixtures

private final class WIA: Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

private final class WIB: Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

private final class WIC: Sendable {
    let id: Int
    init(_ id: Int = 0) { self.id = id }
}

private final class WIStore: Sendable {}

@MainActor
private final class WIViewModel {
    let id: Int
    init(_ id: Int) { self.id = id }
}

private final class WISync: Sendable {
    let id: Int
    init(_ id: Int) { self.id = id }
}

private struct WIBoom: Error {}

/// A container handed to `@Sendable` closures: the tests use it only as the engine allows.
private struct WIRef: @unchecked Sendable {
    let c: Container
}

/// An actor whose isolation the tests can check without crashing (``isCurrent``).
private actor WILane {
    let executor = QueueExecutor(label: "warmup-lane")

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    /// Whether the current thread runs on this actor.
    nonisolated var isCurrent: Bool {
        executor.isCurrent
    }

    func warm(_ ref: WIRef) async throws(DIError) {
        try await ref.c.warmUp()
    }

    func profileWarmUp(_ ref: WIRef) async throws -> CreationProfile {
        try await ref.c.profilingCreations { try await ref.c.warmUp() }.profile
    }

    /// An actor method whose only statement is the resolve: its first executor-bound step is a call of a
    /// `nonisolated(nonsending)` function.
    func resolveA(_ ref: WIRef) async throws(DIError) -> WIA {
        try await ref.c.resolveAsync(WIA.self)
    }

    func resolveSync(_ ref: WIRef) async throws(DIError) -> WISync {
        try await ref.c.resolveAsync(WISync.self)
    }

    func disposeAsync(_ ref: WIRef) async throws(DIError) {
        try await ref.c.disposeAsync()
    }

    func withCurrent(_ ref: WIRef, _ probe: IsolationProbe) async throws -> WIA {
        try await Container.withCurrent(ref.c) { () async throws -> WIA in
            probe.check("withCurrent body", isCurrent)
            return try await ref.c.resolveAsync(WIA.self)
        }
    }

    func warmNested(_ ref: WIRef) async throws(DIError) {
        try await ref.c.warmUp()
    }
}

/// A value that is not `Sendable`: it lives in its owner's isolation.
private final class WIBox {
    var items: [Int] = []
}

/// An actor that owns a plain container and state its registrations' handlers use.
private actor WIOwner {
    let executor = QueueExecutor(label: "warmup-lane")
    private let box = WIBox()
    private let container = Container()
    private let probe: IsolationProbe
    private let detector: WIParallelDetector

    nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    init(probe: IsolationProbe, detector: WIParallelDetector) {
        self.probe = probe
        self.detector = detector
    }

    /// Registers `handlers` `.container` services whose `onDispose` handlers use the actor's state, and
    /// creates them.
    func setUp(handlers: Int) {
        let executor = executor
        for index in 0..<handlers {
            container.register(WISync.self, name: "s\(index)") { _ in WISync(index) }
                .inObjectScope(.container)
                .onDispose { [box, probe, detector] _ in
                    probe.check("onDispose s\(index)", executor.isCurrent)
                    detector.section(microseconds: 5000) { box.items.append(-1) }
                }
            _ = container.resolve(WISync.self, name: "s\(index)")
        }
    }

    func dispose() async throws(DIError) {
        try await container.disposeAsync()
    }

    /// Uses the actor's state, as any of its methods may while it awaits.
    func touch() {
        detector.section(microseconds: 100) { box.items.append(1) }
    }

    var disposedCount: Int {
        box.items.filter { $0 == -1 }.count
    }
}

/// Counts synchronous sections that overlap on different threads.
private final class WIParallelDetector: @unchecked Sendable {
    // @unchecked: every field is used under `lock`.
    private let lock = NSLock()
    private var busy = 0
    private var overlaps = 0

    func section(microseconds: Int = 200, _ body: () -> Void = {}) {
        lock.lock()
        if busy > 0 { overlaps += 1 }
        busy += 1
        lock.unlock()
        body()
        let end = ContinuousClock.now + .microseconds(microseconds)
        while ContinuousClock.now < end {}
        lock.lock()
        busy -= 1
        lock.unlock()
    }

    var overlapCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return overlaps
    }
}

/// Whether `isolation` is `actor`, the same instance.
private func wiIsolation(_ isolation: (any Actor)?, is actor: (any Actor)?) -> Bool {
    switch (isolation, actor) {
    case (nil, nil): true
    case (let a?, let b?): a === b
    default: false
    }
}

/// The isolation a `nonisolated(nonsending)` caller runs in.
private nonisolated(nonsending) func wiCurrentIsolation() async -> (any Actor)? {
    #isolation
}

/// A key only the main queue has: on Linux the main actor runs its jobs on the main dispatch queue, which
/// `dispatchMain()` hands to a worker thread, so `Thread.isMainThread` cannot tell.
private let wiMainKey: DispatchSpecificKey<Int> = {
    let key = DispatchSpecificKey<Int>()
    DispatchQueue.main.setSpecific(key: key, value: 1)
    return key
}()

/// Whether the current thread runs a job of the main actor (the main queue).
private func wiOnMainActor() -> Bool {
    DispatchQueue.getSpecific(key: wiMainKey) == 1
}

private func wiWaitUntil(_ condition: () -> Bool) async {
    for _ in 0..<5000 {
        if condition() { return }
        try? await Task.sleep(for: .milliseconds(1))
    }
}

/// Async `.container` registrations `WIA` named `a0`…, each checking it runs where `isHome` says, and
/// resolving synchronously from the captured container between suspensions, inside `detector`'s sections;
/// then (with `trailing`) main-actor and synchronous `.container` registrations that depend on them.
private func wiContainer(
    asyncCount: Int,
    probe: IsolationProbe,
    detector: WIParallelDetector,
    trailing: Bool,
    isHome: @escaping @Sendable () -> Bool
) -> Container {
    let container = Container()
    let ref = WIRef(c: container)
    container.register(WIStore.self) { _ in
        probe.check("synchronous factory resolved inside an async one", isHome())
        return WIStore()
    }
    for index in 0..<asyncCount {
        container.registerAsync(WIA.self, name: "a\(index)") { r in
            probe.check("a\(index) start", isHome())
            for round in 0..<3 {
                detector.section { _ = ref.c.resolve(WIStore.self) }
                await Task.yield()
                probe.check("a\(index) after yield \(round)", isHome())
                if index > 0, round == 1 {
                    // A dependency on another warm-up creation, maybe in flight.
                    _ = try await r.resolveAsync(WIA.self, name: "a\(index - 1)")
                    probe.check("a\(index) after resolving a\(index - 1)", isHome())
                }
                try await Task.sleep(for: .microseconds(200))
                probe.check("a\(index) after sleep \(round)", isHome())
            }
            return WIA(index)
        }.inObjectScope(.container)
    }
    if trailing {
        container.register(
            WIViewModel.self,
            mainActorFactory: { r in
                probe.check("main-actor factory", wiOnMainActor())
                return WIViewModel(r.resolve(WIA.self, name: "a0")?.id ?? -1)
            }
        ).inObjectScope(.container)
        container.register(WISync.self) { r in
            probe.check("trailing synchronous factory", isHome())
            return WISync(r.resolve(WIA.self, name: "a\(asyncCount - 1)")?.id ?? -1)
        }.inObjectScope(.container)
    }
    return container
}

// MARK: - Warm-up

@Suite("Warm-up isolation attacks", .tags(.concurrency), .hangLimit)
struct WarmUpIsolationAttackTests {
    @Test(
        "From a custom actor, many async creations, then main-actor and synchronous ones: all on their isolation",
        .timeLimit(.minutes(1)),
        arguments: [1, 2, 8]
    )
    func fromCustomActor(asyncCount: Int) async throws {
        for _ in 0..<3 {
            let lane = WILane()
            let probe = IsolationProbe()
            let detector = WIParallelDetector()
            let container = wiContainer(
                asyncCount: asyncCount,
                probe: probe,
                detector: detector,
                trailing: true
            ) { lane.isCurrent }
            try await lane.warm(WIRef(c: container))
            #expect(probe.offIsolation == [])
            #expect(detector.overlapCount == 0)
            #expect(probe.count >= asyncCount * 7)
            #expect(container.resolve(WISync.self)?.id == asyncCount - 1)
            #expect(container.resolve(WIA.self, name: "a0") != nil)
        }
    }

    @Test(
        "From the main actor, async creations and the ones after them all run on the main thread",
        .timeLimit(.minutes(1)),
        arguments: [1, 6]
    )
    @MainActor
    func fromMainActor(asyncCount: Int) async throws {
        let probe = IsolationProbe()
        let detector = WIParallelDetector()
        let container = wiContainer(
            asyncCount: asyncCount,
            probe: probe,
            detector: detector,
            trailing: true
        ) { wiOnMainActor() }
        try await container.warmUp()
        #expect(probe.offIsolation == [])
        #expect(detector.overlapCount == 0)
        #expect(container.resolve(WIViewModel.self)?.id == 0)
    }

    @Test(
        "From a nonisolated context, creations take turns on the private lane and never overlap",
        .timeLimit(.minutes(1)),
        arguments: [2, 8]
    )
    func fromNonisolated(asyncCount: Int) async throws {
        for _ in 0..<3 {
            let probe = IsolationProbe()
            let detector = WIParallelDetector()
            let container = wiContainer(
                asyncCount: asyncCount,
                probe: probe,
                detector: detector,
                trailing: true
            ) { true }
            let ref = WIRef(c: container)
            try await Task.detached { try await ref.c.warmUp() }.value
            #expect(detector.overlapCount == 0)
            #expect(container.resolve(WISync.self)?.id == asyncCount - 1)
        }
    }

    @Test(
        "Factories run with the lane as their isolation, and it is one actor for every creation",
        .timeLimit(.minutes(1))
    )
    func factoriesSeeOneLane() async throws {
        let container = Container()
        let seen = WILaneSet()
        for index in 0..<4 {
            container.registerAsync(WIA.self, name: "a\(index)") { _ in
                let isolation = await wiCurrentIsolation()
                seen.insert(isolation)
                try await Task.sleep(for: .microseconds(100))
                seen.insert(await wiCurrentIsolation())
                return WIA(index)
            }.inObjectScope(.container)
        }
        let ref = WIRef(c: container)
        try await Task.detached { try await ref.c.warmUp() }.value
        #expect(seen.count == 8)
        #expect(seen.distinct == 1)
        #expect(!seen.sawNil)

        let lane = WILane()
        let other = Container()
        let otherSeen = WILaneSet()
        for index in 0..<3 {
            other.registerAsync(WIA.self, name: "a\(index)") { _ in
                otherSeen.insert(await wiCurrentIsolation(), expected: lane)
                return WIA(index)
            }.inObjectScope(.container)
        }
        try await lane.warm(WIRef(c: other))
        #expect(otherSeen.mismatches == 0)
        #expect(otherSeen.count == 3)
    }

    @Test(
        "warmUp() nested in an async factory, from a custom actor: every creation stays on the actor",
        .timeLimit(.minutes(1))
    )
    func nestedFromActor() async throws {
        let lane = WILane()
        let probe = IsolationProbe()
        let detector = WIParallelDetector()
        let container = wiContainer(asyncCount: 4, probe: probe, detector: detector, trailing: true) {
            lane.isCurrent
        }
        let ref = WIRef(c: container)
        container.registerAsync(WIStore.self, name: "outer") { _ in
            probe.check("outer before", lane.isCurrent)
            try await ref.c.warmUp()
            probe.check("outer after", lane.isCurrent)
            return WIStore()
        }
        let outer = try await lane.resolveOuter(ref)
        #expect(outer)
        #expect(probe.offIsolation == [])
        #expect(detector.overlapCount == 0)
        #expect(container.resolve(WISync.self)?.id == 3)
    }

    @Test("profilingCreations { warmUp() } from a custom actor keeps every creation on it", .timeLimit(.minutes(1)))
    func profilingFromActor() async throws {
        let lane = WILane()
        let probe = IsolationProbe()
        let detector = WIParallelDetector()
        let container = wiContainer(asyncCount: 5, probe: probe, detector: detector, trailing: true) {
            lane.isCurrent
        }
        let profile = try await lane.profileWarmUp(WIRef(c: container))
        #expect(probe.offIsolation == [])
        #expect(detector.overlapCount == 0)
        // 5 async, the main-actor and the synchronous one, at least.
        #expect(profile.records.count >= 7)
    }

    @Test(
        "A scope reset while the creations are in flight: they stay on the actor, and warm-up creates them again",
        .timeLimit(.minutes(1))
    )
    func resetMidCreation() async throws {
        let lane = WILane()
        let probe = IsolationProbe()
        let gate = Gate()
        let started = Counter()
        let made = Counter()
        let container = Container()
        for index in 0..<3 {
            container.registerAsync(WIA.self, name: "a\(index)") { _ in
                probe.check("a\(index) start", lane.isCurrent)
                _ = made.next()
                _ = started.next()
                await gate.wait()
                probe.check("a\(index) resumed", lane.isCurrent)
                return WIA(index)
            }.inObjectScope(.container)
        }
        let ref = WIRef(c: container)
        let task = Task { try await lane.warm(ref) }
        await wiWaitUntil { started.count == 3 }
        #expect(started.count == 3)
        container.resetObjectScope(.container)
        gate.open()
        try await task.value
        try await lane.warm(ref)
        #expect(probe.offIsolation == [])
        #expect(container.resolve(WIA.self, name: "a2")?.id == 2)
        #expect(made.count >= 3)
    }

    @Test("Cancelling a warm-up from a custom actor: the creations still finish on the actor", .timeLimit(.minutes(1)))
    func cancelledFromActor() async throws {
        let lane = WILane()
        let probe = IsolationProbe()
        let gate = Gate()
        let started = Counter()
        let container = Container()
        for index in 0..<3 {
            container.registerAsync(WIA.self, name: "a\(index)") { _ in
                _ = started.next()
                await gate.wait()
                probe.check("a\(index) resumed", lane.isCurrent)
                try? await Task.sleep(for: .milliseconds(1))
                probe.check("a\(index) after a cancelled sleep", lane.isCurrent)
                return WIA(index)
            }.inObjectScope(.container)
        }
        let ref = WIRef(c: container)
        let task = Task { try await lane.warm(ref) }
        await wiWaitUntil { started.count == 3 }
        task.cancel()
        gate.open()
        _ = await task.result
        try await lane.warm(ref)
        #expect(probe.offIsolation == [])
        #expect(started.count == 3)
        #expect(container.resolve(WIA.self, name: "a1")?.id == 1)
    }

    @Test(
        "Factories that start tasks: the tasks run elsewhere, the factories stay on their lane",
        .timeLimit(.minutes(1))
    )
    func factoriesThatSpawnTasks() async throws {
        let lane = WILane()
        let probe = IsolationProbe()
        let container = Container()
        let ref = WIRef(c: container)
        container.registerAsync(WIB.self) { _ in WIB(5) }.inObjectScope(.container)
        for index in 0..<4 {
            container.registerAsync(WIA.self, name: "a\(index)") { _ in
                probe.check("a\(index) start", lane.isCurrent)
                let other = await Task.detached { () -> Int in
                    (try? await ref.c.synchronize().resolveAsync(WIB.self))?.id ?? -1
                }.value
                probe.check("a\(index) after the task", lane.isCurrent)
                return WIA(other)
            }.inObjectScope(.container)
        }
        try await lane.warm(ref)
        #expect(probe.offIsolation == [])
        #expect(container.resolve(WIA.self, name: "a3")?.id == 5)
    }
}

// MARK: - Other isolated entry points

@Suite("Warm-up isolation attacks: other isolated entry points", .tags(.concurrency), .hangLimit)
struct WarmUpIsolationAttackEntryPointTests {
    @Test(
        "An actor method whose only statement is resolveAsync runs the factories on the actor",
        .timeLimit(.minutes(1))
    )
    func resolveAsyncOnlyStatement() async throws {
        for _ in 0..<5 {
            let lane = WILane()
            let probe = IsolationProbe()
            let container = Container()
            container.register(WIStore.self) { _ in
                probe.check("synchronous dependency", lane.isCurrent)
                return WIStore()
            }
            container.registerAsync(WIA.self) { r in
                probe.check("async factory start", lane.isCurrent)
                _ = try await r.resolveAsync(WIStore.self)
                try await Task.sleep(for: .microseconds(50))
                probe.check("async factory end", lane.isCurrent)
                return WIA(1)
            }.inObjectScope(.container)
            container.register(WISync.self) { r in
                probe.check("synchronous top-level factory", lane.isCurrent)
                return WISync(r.resolve(WIStore.self) == nil ? 0 : 2)
            }
            let ref = WIRef(c: container)
            #expect(try await lane.resolveA(ref).id == 1)
            #expect(try await lane.resolveSync(ref).id == 2)
            #expect(probe.offIsolation == [])
            #expect(probe.count == 5)
        }
    }

    @Test(
        "Actor methods whose only statement calls a nonisolated(nonsending) requirement through an existential",
        .timeLimit(.minutes(1)),
        arguments: [1, 4]
    )
    func existentialOnlyStatement(asyncCount: Int) async throws {
        for _ in 0..<3 {
            let lane = WILane()
            let probe = IsolationProbe()
            let detector = WIParallelDetector()
            let container = wiContainer(
                asyncCount: asyncCount,
                probe: probe,
                detector: detector,
                trailing: true
            ) { lane.isCurrent }
            let ref = WIRef(c: container)
            let resolved = try await lane.resolveThroughExistential(ref, name: "a\(asyncCount - 1)")
            #expect(resolved == asyncCount - 1)
            try await lane.warmThroughExistential(ref)
            #expect(container.resolve(WISync.self)?.id == asyncCount - 1)
            #expect(probe.offIsolation == [])
            #expect(detector.overlapCount == 0)
        }
    }

    @Test(
        "disposeAsync() from an actor runs its synchronous onDispose handlers on the actor, never beside it",
        .timeLimit(.minutes(1))
    )
    func disposeAsyncFromActor() async throws {
        let probe = IsolationProbe()
        let detector = WIParallelDetector()
        let owner = WIOwner(probe: probe, detector: detector)
        await owner.setUp(handlers: 3)
        let stop = Counter()
        async let touching: Void = {
            while stop.count == 0 {
                await owner.touch()
                await Task.yield()
            }
        }()
        try await owner.dispose()
        stop.increment()
        await touching
        #expect(await owner.disposedCount == 3)
        #expect(probe.offIsolation == [])
        #expect(detector.overlapCount == 0)
    }

    @Test(
        "Container.withCurrent from a custom actor runs its body and the factories on the actor",
        .timeLimit(.minutes(1))
    )
    func withCurrentFromActor() async throws {
        let lane = WILane()
        let probe = IsolationProbe()
        let container = Container()
        container.registerAsync(WIA.self) { _ in
            probe.check("factory", lane.isCurrent)
            return WIA(3)
        }
        #expect(try await lane.withCurrent(WIRef(c: container), probe).id == 3)
        #expect(probe.offIsolation == [])
        #expect(probe.count == 2)
    }

    @Test(
        "Container.withCurrent(_:isolation:operation:) runs its body on the actor it is given, as documented",
        .timeLimit(.minutes(1))
    )
    func withCurrentGivenIsolation() async throws {
        let lane = WILane()
        let probe = IsolationProbe()
        let container = Container()
        container.registerAsync(WIA.self) { _ in
            probe.check("factory", lane.isCurrent)
            return WIA(4)
        }
        let ref = WIRef(c: container)
        let id = try await Task.detached {
            try await Container.withCurrent(ref.c, isolation: lane) { () async throws -> Int in
                probe.check("withCurrent body", lane.isCurrent)
                return try await ref.c.resolveAsync(WIA.self).id
            }
        }.value
        #expect(id == 4)
        #expect(probe.offIsolation == [])
        #expect(probe.count == 2)
    }

    @Test(
        "DIActor: its synchronous factories, reached through resolveAsync or resolve, never run in parallel",
        .timeLimit(.minutes(1))
    )
    func diActorRunsOneAtATime() async throws {
        let actor = DIActor()
        let detector = WIParallelDetector()
        await actor.register(WISync.self) {
            var id = 0
            detector.section(microseconds: 300) { id = 1 }
            return WISync(id)
        }
        let ids = await withTaskGroup(of: Int.self) { group -> [Int] in
            for index in 0..<16 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        return (try? await actor.resolveAsync(WISync.self))?.id ?? -1
                    }
                    return await actor.resolve(WISync.self)?.id ?? -1
                }
            }
            var ids: [Int] = []
            for await id in group { ids.append(id) }
            return ids
        }
        #expect(ids.count == 16)
        #expect(ids.allSatisfy { $0 == 1 })
        #expect(detector.overlapCount == 0)
    }
}

/// The isolations factories ran in.
private final class WILaneSet: @unchecked Sendable {
    // @unchecked: every field is used under `lock`.
    private let lock = NSLock()
    private var identities: Set<ObjectIdentifier> = []
    private var total = 0
    private var nils = 0
    private var wrong = 0

    func insert(_ isolation: (any Actor)?, expected: (any Actor)? = nil) {
        lock.lock()
        total += 1
        if let isolation {
            identities.insert(ObjectIdentifier(isolation))
        } else {
            nils += 1
        }
        if let expected, !wiIsolation(isolation, is: expected) {
            wrong += 1
        }
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return total
    }

    var distinct: Int {
        lock.lock()
        defer { lock.unlock() }
        return identities.count
    }

    var sawNil: Bool {
        lock.lock()
        defer { lock.unlock() }
        return nils > 0
    }

    var mismatches: Int {
        lock.lock()
        defer { lock.unlock() }
        return wrong
    }
}

/// A user's protocol with a `nonisolated(nonsending)` requirement, which the container fulfils.
private protocol WIWarmable {
    nonisolated(nonsending) func warmAll() async throws(DIError)
}

extension Container: WIWarmable {
    nonisolated(nonsending) fileprivate func warmAll() async throws(DIError) {
        try await warmUp()
    }
}

extension WILane {
    /// The only statement: a call of a `nonisolated(nonsending)` requirement through `any Resolver`.
    func resolveThroughExistential(_ ref: WIRef, name: String) async throws(DIError) -> Int {
        try await (ref.c as any Resolver).resolveAsync(WIA.self, name: name).id
    }

    /// The only statement: a call of a `nonisolated(nonsending)` protocol requirement through `any P`.
    func warmThroughExistential(_ ref: WIRef) async throws(DIError) {
        try await (ref.c as any WIWarmable).warmAll()
    }

    /// Resolves the transient `WIStore` named "outer", whose factory warms the container up.
    func resolveOuter(_ ref: WIRef) async throws(DIError) -> Bool {
        _ = try await ref.c.resolveAsync(WIStore.self, name: "outer")
        return isCurrent
    }
}
