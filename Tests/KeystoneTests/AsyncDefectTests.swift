import Dispatch
import Foundation
import Testing

@testable import Keystone

// The async path's rules at their edges: where a plain container's async factories run, what a task a
// factory starts inherits, `warmUp()` inside a factory and its order, creations in flight when their scope
// is dropped, async `.multiton`, `.graph` instances between sub-resolves, and cycles a factory tolerates or
// that pass through a synchronous factory.

private final class Session: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

private final class Piece: Sendable {}

private final class PiecePair: Sendable {
    let first: Piece
    let second: Piece
    init(first: Piece, second: Piece) {
        self.first = first
        self.second = second
    }
}

private final class Front: Sendable {
    let back: Back?
    init(back: Back?) { self.back = back }
}

private final class Back: Sendable {
    let front: Front?
    init(front: Front?) { self.front = front }
}

private final class Screen: Sendable {
    let session: Session?
    init(session: Session?) { self.session = session }
}

/// Calls back when it is deinitialized.
private final class Noisy: Sendable {
    let onDeinit: @Sendable () -> Void
    init(onDeinit: @escaping @Sendable () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

/// A value set once from another task and read later.
private final class SetOnce<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is used under `lock`.
    private let lock = NSLock()
    private var stored: Value?

    var value: Value? {
        get {
            lock.lock()
            defer { lock.unlock() }
            return stored
        }
        set {
            lock.lock()
            stored = newValue
            lock.unlock()
        }
    }
}

/// Runs `body` as the factory of a main-actor-bound test would: records whether it ran on the main actor.
private func onMainActorNow() -> Bool {
    MainActorCheck.isCurrent
}

@Suite("Async defects", .tags(.concurrency, .engine), .hangLimit)
struct AsyncDefectTests {
    // MARK: - A plain container stays with its caller

    @Test @MainActor
    func aPlainContainersAsyncFactoriesRunInTheCallersIsolation() async throws {
        let container = Container()
        let onMainActor = SetOnce<[Bool]>()
        onMainActor.value = []
        container.register(Piece.self) { _ in Piece() }
        container.registerAsync(Session.self) { r in
            _ = try r.resolveThrows(Piece.self)
            await Task.yield()
            onMainActor.value?.append(onMainActorNow())
            return Session(serial: 1)
        }
        .inObjectScope(.container)
        container.registerAsync(PiecePair.self) { r in
            let first = try await r.resolveAsync(Piece.self)
            onMainActor.value?.append(onMainActorNow())
            return PiecePair(first: first, second: try r.resolveThrows(Piece.self))
        }
        _ = try await container.resolveAsync(Session.self)
        _ = try await container.resolveAsync(PiecePair.self)
        #expect(onMainActor.value == [true, true])
    }

    // MARK: - The resolution in flight stays with its call

    @Test func aTaskStartedInAFactoryDoesNotInheritTheResolutionInFlight() async throws {
        let container = Container()
        let view = container.synchronize()
        let later = Gate()
        let spawned = SetOnce<Task<Result<PiecePair, DIError>, Never>>()
        let made = Counter()
        container.register(Piece.self) { _ in
            made.increment()
            return Piece()
        }
        container.registerAsync(PiecePair.self) { r in
            let piece = try await r.resolveAsync(Piece.self)
            if spawned.value == nil {
                spawned.value = Task {
                    await later.wait()
                    do throws(DIError) {
                        return .success(try await view.resolveAsync(PiecePair.self))
                    } catch {
                        return .failure(error)
                    }
                }
            }
            return PiecePair(first: piece, second: piece)
        }
        let first = try await view.resolveAsync(PiecePair.self)
        later.open()
        let second = try #require(await spawned.value?.value).get()
        // A call of its own: no false cycle, and a new graph.
        #expect(second.first !== first.first)
        #expect(made.count == 2)
    }

    @Test func aResolverKeptBeyondItsFactoryStartsANewCall() async throws {
        let container = Container()
        let kept = SetOnce<AnyResolverBox>()
        container.register(Piece.self) { _ in Piece() }
        container.registerAsync(PiecePair.self) { r in
            kept.value = AnyResolverBox(r)
            let piece = try await r.resolveAsync(Piece.self)
            return PiecePair(first: piece, second: piece)
        }
        let pair = try await container.synchronize().resolveAsync(PiecePair.self)
        let resolver = try #require(kept.value)
        // Resolving the factory's own registration later is no cycle, and the finished graph is not reused.
        let again: PiecePair = try await resolver.resolver.resolveAsync(PiecePair.self)
        #expect(again.first !== pair.first)
        let piece = try resolver.resolver.resolveThrows(Piece.self)
        #expect(piece !== pair.first)
    }

    // MARK: - warmUp() inside a factory

    @Test(.hangLimit(seconds: 120))
    func warmUpInsideAContainerFactoryFailsWithTheCycleInsteadOfWaitingForItself() async {
        let container = Container()
        nonisolated(unsafe) let warming = container
        container.registerAsync(Session.self) { _ in
            try await warming.warmUp()
            return Session(serial: 1)
        }
        .inObjectScope(.container)
        let key = ServiceKey(serviceType: Session.self)
        await #expect(throws: DIError.circularDependency(path: [key, key])) {
            try await container.synchronize().resolveAsync(Session.self)
        }
        // The same through the plain container.
        await #expect(throws: DIError.circularDependency(path: [key, key])) {
            try await container.resolveAsync(Session.self)
        }
    }

    @Test func warmUpInsideAFactoryCreatesWhatIsNotOnItsWay() async throws {
        let container = Container()
        nonisolated(unsafe) let warming = container
        container.registerAsync(Piece.self) { _ in Piece() }.inObjectScope(.container)
        container.registerAsync(PiecePair.self) { r in
            try await warming.warmUp()
            let piece = try r.resolveThrows(Piece.self)
            return PiecePair(first: piece, second: piece)
        }
        let pair = try await container.resolveAsync(PiecePair.self)
        #expect(container.resolve(Piece.self) === pair.first)
    }

    // MARK: - Creations in flight when their scope is dropped

    /// Starts a `.container` creation that waits on `release`, and returns once its factory runs.
    private func startCreation(
        in container: Container,
        release: Gate,
        disposed: Counter
    ) async -> Task<Session, any Error> {
        let entered = Gate()
        let runs = Counter()
        container.registerAsync(Session.self) { _ in
            runs.increment()
            let serial = runs.count
            if serial == 1 {
                entered.open()
                await release.wait()
            }
            return Session(serial: serial)
        }
        .inObjectScope(.container)
        .onDispose { _ in disposed.increment() }
        let view = container.synchronize()
        let task = Task { try await view.resolveAsync(Session.self) }
        await entered.wait()
        return task
    }

    @Test func aCreationInFlightDuringResetObjectScopeIsNotKeptAndIsDisposed() async throws {
        let container = Container()
        let release = Gate()
        let disposed = Counter()
        let pending = await startCreation(in: container, release: release, disposed: disposed)
        container.resetObjectScope(.container)
        release.open()
        let first = try await pending.value
        #expect(first.serial == 1, "the waiter still gets the instance made for it")
        #expect(container.resolve(Session.self) == nil, "it is not kept")
        #expect(disposed.count == 1)
        let next = try await container.resolveAsync(Session.self)
        #expect(next.serial == 2)
        #expect(container.resolve(Session.self) === next)
    }

    @Test func aCreationInFlightDuringDisposeIsNotKeptAndIsDisposed() async throws {
        let container = Container()
        let release = Gate()
        let disposed = Counter()
        let pending = await startCreation(in: container, release: release, disposed: disposed)
        try container.dispose()
        release.open()
        _ = try await pending.value
        #expect(container.resolve(Session.self) == nil)
        #expect(disposed.count == 1)
    }

    @Test func aCreationInFlightDuringReRegistrationIsNotKept() async throws {
        let container = Container()
        let release = Gate()
        let disposed = Counter()
        let pending = await startCreation(in: container, release: release, disposed: disposed)
        container.registerAsync(Session.self) { _ in Session(serial: 100) }.inObjectScope(.container)
        release.open()
        #expect(try await pending.value.serial == 1)
        #expect(disposed.count == 1)
        #expect(try await container.resolveAsync(Session.self).serial == 100)
    }

    @Test func disposeAsyncWaitsForACreationInFlightAndDisposesOfItsInstance() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let disposed = Counter()
        let disposedAsync = Counter()
        container.registerAsync(Session.self) { _ in
            entered.open()
            await release.wait()
            return Session(serial: 1)
        }
        .inObjectScope(.container)
        .onDispose { _ in disposed.increment() }
        .onDisposeAsync { _ in disposedAsync.increment() }
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(Session.self) }
        await entered.wait()
        let finished = SetOnce<Bool>()
        // Disposal takes the hierarchy's lock, as the view's resolves do.
        nonisolated(unsafe) let disposable = container
        let disposing = Task {
            defer { finished.value = true }
            try await disposable.disposeAsync()
        }
        // Both the resolve and the disposal wait for the creation (or the disposal did not wait at all).
        while container.waitersOnCreationsInFlight() < 2 && finished.value == nil {
            await Task.yield()
        }
        #expect(finished.value == nil, "disposeAsync() returned while a creation was in flight")
        release.open()
        try await disposing.value
        #expect(disposed.count == 1)
        #expect(disposedAsync.count == 1)
        #expect(try await pending.value.serial == 1)
        #expect(container.resolve(Session.self) == nil)
    }

    // MARK: - Async .multiton

    @Test func concurrentFirstResolvesOfAnAsyncMultitonWithEqualArgumentsCreateOnce() async throws {
        let container = Container()
        let runs = Counter()
        let release = Gate()
        container.registerAsync(Session.self) { (_, serial: Int) in
            runs.increment()
            await release.wait()
            return Session(serial: serial)
        }
        .inObjectScope(.multiton)
        let view = container.synchronize()
        let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<10 {
                group.addTask { ObjectIdentifier(try await view.resolveAsync(Session.self, argument: 7)) }
            }
            // Every resolve waits for the one creation before it ends; a second run of the factory ends the
            // wait early, and fails below.
            while container.waitersOnCreationsInFlight() < 10 && runs.count < 2 {
                await Task.yield()
            }
            release.open()
            var identities: Set<ObjectIdentifier> = []
            for try await identity in group {
                identities.insert(identity)
            }
            return identities
        }
        #expect(runs.count == 1)
        #expect(identities.count == 1)
        #expect(try await view.resolveAsync(Session.self, argument: 8).serial == 8)
        #expect(runs.count == 2)
    }

    @Test func anAsyncMultitonWithoutArgumentsBehavesAsContainer() async throws {
        let container = Container()
        let runs = Counter()
        container.registerAsync(Piece.self) { _ in
            runs.increment()
            return Piece()
        }
        .inObjectScope(.multiton)
        try await container.warmUp()
        #expect(runs.count == 1)
        let piece = try #require(container.resolve(Piece.self))
        #expect(try await container.resolveAsync(Piece.self) === piece)
        try await container.warmUp()
        #expect(runs.count == 1)
    }

    // MARK: - .graph instances within one resolveAsync

    @Test func aGraphInstanceLetGoIsStillSharedForTheRestOfTheCall() async throws {
        let container = Container()
        let made = Counter()
        container.register(Piece.self) { _ in
            made.increment()
            return Piece()
        }
        container.registerAsync(Session.self) { r in
            // Each instance is let go at once: the graph must hold it until the top-level call ends.
            _ = ObjectIdentifier(try await r.resolveAsync(Piece.self))
            _ = ObjectIdentifier(try r.resolveThrows(Piece.self))
            _ = ObjectIdentifier(try await r.resolveAsync(Piece.self))
            return Session(serial: made.count)
        }
        let session = try await container.resolveAsync(Session.self)
        #expect(session.serial == 1)
    }

    // MARK: - Cycles

    @Test func aCycleAnAsyncFactoryToleratesStillFailsTheCallAndCachesNothing() async {
        let container = Container()
        container.registerAsync(Front.self) { r in Front(back: try? await r.resolveAsync(Back.self)) }
            .inObjectScope(.container)
        container.registerAsync(Back.self) { r in Back(front: try await r.resolveAsync(Front.self)) }
        let front = ServiceKey(serviceType: Front.self)
        let back = ServiceKey(serviceType: Back.self)
        await #expect(throws: DIError.circularDependency(path: [front, back, front])) {
            try await container.resolveAsync(Front.self)
        }
        #expect(container.resolve(Front.self) == nil, "an instance built around a cycle is not kept")
        await #expect(throws: DIError.circularDependency(path: [front, back, front])) {
            try await container.synchronize().resolveAsync(Front.self)
        }
        #expect(container.resolve(Front.self) == nil)
    }

    @Test func aCycleFromAnAsyncFactoryThroughASyncOneIsACycle() async {
        let container = Container()
        container.registerAsync(Front.self) { r in Front(back: try await r.resolveAsync(Back.self)) }
        container.register(Back.self) { r in Back(front: try r.resolveThrows(Front.self)) }
        let front = ServiceKey(serviceType: Front.self)
        let back = ServiceKey(serviceType: Back.self)
        await #expect(throws: DIError.circularDependency(path: [front, back, front])) {
            try await container.resolveAsync(Front.self)
        }
    }

    // MARK: - warmUp() order

    @Test func warmUpCreatesAsyncDependenciesBeforeMainActorFactoriesRegisteredEarlier() async throws {
        let container = Container()
        container.register(Screen.self, mainActorFactory: { r in Screen(session: r.resolve(Session.self)) })
            .inObjectScope(.container)
        container.registerAsync(Session.self) { _ in Session(serial: 1) }.inObjectScope(.container)
        try await container.warmUp()
        let screen = try #require(container.resolve(Screen.self))
        #expect(screen.session === container.resolve(Session.self))
        #expect(screen.session != nil)
    }
}

/// A resolver kept out of its factory, to use later.
private struct AnyResolverBox: @unchecked Sendable {
    // @unchecked: the resolver an async factory is handed is `Sendable`; `any Resolver` does not say so.
    let resolver: any Resolver
    init(_ resolver: any Resolver) { self.resolver = resolver }
}

@Suite("Async defects: attacks on the fixes", .tags(.concurrency, .engine), .hangLimit)
struct AsyncDefectAttackTests {
    @Test func cancellingTheFirstCallerOfAPlainContainerReachesTheCreationItRunsAndKeepsNothing() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        container.registerAsync(Session.self) { _ in
            runs.increment()
            let serial = runs.count
            if serial == 1 {
                entered.open()
                await release.wait()
                try Task.checkCancellation()
            }
            return Session(serial: serial)
        }
        .inObjectScope(.container)
        nonisolated(unsafe) let plain = container
        let first = Task { try await plain.resolveAsync(Session.self) }
        await entered.wait()
        first.cancel()
        release.open()
        let error = await #expect(throws: DIError.self) { try await first.value }
        guard case .factoryFailed(_, _, let underlying)? = error else {
            Issue.record("expected the factory's cancellation, got \(String(describing: error))")
            return
        }
        #expect(underlying is CancellationError)
        #expect(container.resolve(Session.self) == nil)
        #expect(try await container.resolveAsync(Session.self).serial == 2)
    }

    @Test func aMultitonCreationInFlightDuringResetObjectScopeIsNotKept() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let runs = Counter()
        let disposed = Counter()
        container.registerAsync(Session.self) { (_, serial: Int) in
            runs.increment()
            if runs.count == 1 {
                entered.open()
                await release.wait()
            }
            return Session(serial: serial)
        }
        .inObjectScope(.multiton)
        .onDispose { _ in disposed.increment() }
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(Session.self, argument: 1) }
        await entered.wait()
        container.resetObjectScope(.multiton)
        release.open()
        let first = try await pending.value
        #expect(disposed.count == 1)
        #expect(try await view.resolveAsync(Session.self, argument: 1) !== first)
        #expect(runs.count == 2)
    }

    @Test func aFactoryResolvingThroughTheContainerItCapturedJoinsItsCall() async throws {
        let container = Container()
        nonisolated(unsafe) let captured = container
        container.register(Piece.self) { _ in Piece() }
        container.registerAsync(PiecePair.self) { r in
            let first = try await r.resolveAsync(Piece.self)
            // Same task, same call: the same graph.
            let second = try await captured.resolveAsync(Piece.self)
            return PiecePair(first: first, second: second)
        }
        let pair = try await container.resolveAsync(PiecePair.self)
        #expect(pair.first === pair.second)
        // A cycle through the captured container is found, not waited on.
        container.registerAsync(Session.self) { _ in
            _ = try await captured.resolveAsync(Session.self)
            return Session(serial: 0)
        }
        .inObjectScope(.container)
        let key = ServiceKey(serviceType: Session.self)
        await #expect(throws: DIError.circularDependency(path: [key, key])) {
            try await container.synchronize().resolveAsync(Session.self)
        }
    }

    @Test func aStructuredChildTaskUsingTheFactorysResolverStillFindsTheCycle() async {
        let container = Container()
        container.registerAsync(Session.self) { r in
            let resolver = AnyResolverBox(r)
            async let again: Session = resolver.resolver.resolveAsync(Session.self)
            return try await again
        }
        .inObjectScope(.container)
        let key = ServiceKey(serviceType: Session.self)
        await #expect(throws: DIError.circularDependency(path: [key, key])) {
            try await container.synchronize().resolveAsync(Session.self)
        }
    }

    @Test func aGraphInstanceWhoseDeinitResolvesIsReleasedWhenTheCallEnds() async throws {
        let container = Container()
        let view = container.synchronize()
        let resolvedInDeinit = Counter()
        let made = Counter()
        container.register(Piece.self) { _ in Piece() }
        container.register(Noisy.self) { _ in
            made.increment()
            return Noisy {
                if view.resolve(Piece.self) != nil {
                    resolvedInDeinit.increment()
                }
            }
        }
        container.registerAsync(Session.self) { r in
            _ = try await r.resolveAsync(Noisy.self)
            #expect(resolvedInDeinit.count == made.count - 1, "the graph holds it until the call ends")
            return Session(serial: 1)
        }
        _ = try await view.resolveAsync(Session.self)
        #expect(resolvedInDeinit.count == 1)
        _ = try await container.resolveAsync(Session.self)
        #expect(resolvedInDeinit.count == 2)
    }
}
