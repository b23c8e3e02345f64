import Foundation
import Keystone
import Testing

// Attacks on the ends of creations whose registration's instances were dropped while they were on their
// way (baf6625): what a dropped creation keeps, takes back, discards and disposes of, for every scope,
// every call that drops, every moment of the creation, and async creations suspended while it happens.

// MARK: - Fixtures

private final class Piece: @unchecked Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private struct PieceValue: Sendable {
    let id: Int
}

private struct ActionFailed: Error {}

/// Resolves `Piece` again from its own factory: through it, an `initCompleted` action of `Piece` makes a
/// newer instance while the first creation is still on the stack.
private final class Bridge {
    let piece: Piece?
    init(piece: Piece?) { self.piece = piece }
}

/// Drops from its factory, when resolved from a `Piece` action: a drop from a nested resolve.
private final class Dropper {}

/// A transient service whose factory resolves `Piece` twice in one graph, the first time allowing it to fail.
private final class Probe {
    let first: Piece?
    let second: Piece?
    init(first: Piece?, second: Piece?) {
        self.first = first
        self.second = second
    }
}

/// Keeps objects alive (a `.weak` instance must be held by something to stay findable).
private final class Retainer: @unchecked Sendable {
    private let lock = NSLock()
    private var held: [AnyObject] = []
    func hold(_ object: AnyObject) {
        lock.lock()
        held.append(object)
        lock.unlock()
    }
}

/// A custom scope whose storage keeps its instance until it is reset.
private let sessionScope = ObjectScope(storageFactory: PermanentStorage.init, description: "session")

// MARK: - The synchronous matrix

/// What drops `Piece`'s instances.
private enum Drop: String, CaseIterable, CustomStringConvertible {
    case dispose
    case reset
    case registerAgain
    case removeAll
    case changeScope
    case resetBySubtype

    var description: String { rawValue }

    /// Whether it runs disposal handlers (of `.container` / `.multiton` instances).
    var disposes: Bool { self != .changeScope }
    /// Whether the registration is gone after it.
    var removes: Bool { self == .removeAll }
}

/// When, during the first creation of `Piece`, the drop happens.
private enum Moment: String, CaseIterable, CustomStringConvertible {
    case factory
    case firstAction
    case secondAction
    case nestedResolve
    case deinitializer

    var description: String { rawValue }
    var afterFactory: Bool { self != .factory && self != .deinitializer }
}

private enum ScopeChoice: String, CaseIterable, CustomStringConvertible {
    case container, multiton, weak, graph, transient, custom

    var description: String { rawValue }

    var scope: ObjectScope {
        switch self {
        case .container: .container
        case .multiton: .multiton
        case .weak: .weak
        case .graph: .graph
        case .transient: .transient
        case .custom: sessionScope
        }
    }

    var disposes: Bool { self == .container || self == .multiton }
    /// Keeps an instance across top-level resolves (while nothing drops it).
    var keepsAcrossCalls: Bool { self == .container || self == .multiton || self == .custom }
}

/// An object whose deinitializer runs `body`: a drop from a deinitializer, during a factory.
private final class OnDeinit {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
    deinit { body() }
}

/// One container in which the first creation of `Piece` (argument 1) drops its registration's instances
/// at `moment`, optionally makes a newer instance through `Bridge` after the drop, and optionally throws
/// from its last action.
private final class DropScenario {
    let container = Container()
    let serial = Counter()
    let ends = Ends()
    let retainer = Retainer()
    let scope: ScopeChoice
    let drop: Drop
    let moment: Moment
    let makesNewer: Bool
    let throwing: Bool
    var entry: ServiceEntry<Piece>?
    var newer: Piece?

    init(scope: ScopeChoice, drop: Drop, moment: Moment, makesNewer: Bool, throwing: Bool) {
        self.scope = scope
        self.drop = drop
        self.moment = moment
        self.makesNewer = makesNewer
        self.throwing = throwing
        register()
        // `.graph`: a graph-shared instance between two creations of `Piece` makes the second a reentry,
        // not a cycle.
        container.register(Bridge.self) { _ in Bridge(piece: nil) }
            .inObjectScope(.graph)
            .initCompleted { [unowned self] r, _ in
                newer = r.resolve(Piece.self, argument: 1)
            }
        container.register(Dropper.self) { [unowned self] _ in
            performDrop()
            return Dropper()
        }
        .inObjectScope(.transient)
        container.register(Probe.self) { r in
            let first = try? r.resolveThrows(Piece.self, argument: 1)
            let second = try? r.resolveThrows(Piece.self, argument: 1)
            return Probe(first: first, second: second)
        }
        .inObjectScope(.transient)
    }

    var name: String {
        "\(scope), \(drop) at \(moment)\(makesNewer ? ", newer made" : "")\(throwing ? ", action throws" : "")"
    }

    func register() {
        entry = container.register(Piece.self) { [unowned self] (_, _: Int) in
            let piece = Piece(id: serial.next())
            if piece.id == 1 {
                switch moment {
                case .factory:
                    performDrop()
                case .deinitializer:
                    // An object made and let go in the factory drops the scope from its deinitializer.
                    _ = OnDeinit { [unowned self] in performDrop() }
                default:
                    break
                }
            }
            return piece
        }
        .inObjectScope(scope.scope)
        .initCompleted { [unowned self] r, made in
            guard made.id == 1 else { return }
            retainer.hold(made)
            switch moment {
            case .firstAction:
                performDrop()
            case .nestedResolve:
                _ = r.resolve(Dropper.self)
            default:
                break
            }
            if makesNewer,
                moment == .firstAction || moment == .nestedResolve || moment == .factory
                    || moment == .deinitializer
            {
                _ = r.resolve(Bridge.self)
            }
        }
        .initCompleted { [unowned self] r, made in
            guard made.id == 1 else { return }
            if moment == .secondAction {
                performDrop()
                if makesNewer {
                    _ = r.resolve(Bridge.self)
                }
            }
            if throwing {
                throw ActionFailed()
            }
        }
        .onDispose { [ends] in ends.add($0.id) }
    }

    func performDrop() {
        switch drop {
        case .dispose: try? container.dispose()
        case .reset: container.resetObjectScope(scope.scope)
        case .registerAgain: register()
        case .removeAll: container.removeAll()
        case .changeScope:
            // To another scope that keeps instances.
            entry?.inObjectScope(scope == .container ? ObjectScope.multiton : .container)
        case .resetBySubtype: container.resetObjectScope(scope.scope, serviceType: Piece.self)
        }
    }

    /// Whether the drop takes the first instance out of its scope (a `dispose()` leaves the scopes that are
    /// not `.container` or `.multiton` alone).
    var dropTakesInstance: Bool {
        drop != .dispose || scope.disposes
    }
}

private func runScenario(_ s: DropScenario) {
    let name = s.name
    // The top-level resolve goes through `Probe`, which resolves `Piece` a second time in the same graph.
    let outcome = Result { () throws(DIError) -> Probe in try s.container.resolveThrows(Probe.self) }
    let probe = try? outcome.get()
    #expect(probe != nil, "\(name): Probe failed: \(outcome)")
    let first = probe?.first
    let second = probe?.second

    // The first resolve hands out the first instance, unless its action threw.
    if s.throwing {
        #expect(first == nil, "\(name): the failed creation was handed out")
        // A creation whose action threw is not kept, not even for the rest of its graph.
        #expect(second?.id != 1, "\(name): a creation whose action threw was found again in its graph")
    } else {
        #expect(first?.id == 1, "\(name): first got \(String(describing: first?.id))")
    }
    // Never disposed twice, and only the disposing scopes dispose.
    #expect(s.ends.twice.isEmpty, "\(name): ended twice: \(s.ends.twice)")
    if !s.scope.disposes {
        #expect(s.ends.total == 0, "\(name): a \(s.scope) instance was disposed")
    }
    // Dropped after its factory returned by a disposing call: that call ended it, once.
    if s.scope.disposes, s.drop.disposes, s.moment.afterFactory {
        #expect(s.ends.count(1) == 1, "\(name): the dropped instance ended \(s.ends.count(1)) times")
    }
    // Dropped before its factory returned by a disposing call: ended once when it completes.
    if s.scope.disposes, s.drop.disposes, !s.moment.afterFactory, !s.throwing {
        #expect(s.ends.count(1) == 1, "\(name): the dropped instance ended \(s.ends.count(1)) times")
    }
    // A scope change disposes of nothing.
    if s.drop == .changeScope {
        #expect(s.ends.count(1) == 0, "\(name): a scope change ended the instance")
    }

    // What the container keeps now.
    if s.drop.removes {
        #expect(s.container.resolve(Piece.self, argument: 1) == nil, "\(name): removed but resolved")
        return
    }
    let next = s.container.resolve(Piece.self, argument: 1)
    let again = s.container.resolve(Piece.self, argument: 1)
    #expect(next != nil, "\(name): next resolve failed")
    if s.throwing || (s.dropTakesInstance && s.scope.keepsAcrossCalls) {
        // Dropped (or failed): never kept.
        #expect(next?.id != 1, "\(name): the dropped instance is still kept")
    }
    if let next {
        #expect(s.ends.count(next.id) == 0, "\(name): the next resolve returned a disposed instance \(next.id)")
    }
    let nextScope: ScopeChoice = s.drop == .changeScope ? (s.scope == .container ? .multiton : .container) : s.scope
    if nextScope.keepsAcrossCalls {
        #expect(
            next === again,
            "\(name): two resolves of a kept service differ (\(next?.id ?? -1), \(again?.id ?? -1))"
        )
        // (Dropped in its factory, the first instance waits in its scope for its actions: `Bridge` then
        // finds it, and makes nothing newer.)
        if s.makesNewer, let newer = s.newer, newer.id != 1, s.ends.count(newer.id) == 0, s.drop != .changeScope {
            // The newer instance made meanwhile is the one kept.
            #expect(next === newer, "\(name): the newer instance \(newer.id) was lost; next is \(next?.id ?? -1)")
        }
    }
    // The end of the container: every instance is ended at most once.
    try? s.container.dispose()
    #expect(s.ends.twice.isEmpty, "\(name): ended twice after dispose(): \(s.ends.twice)")
    if nextScope.disposes, let next {
        #expect(s.ends.count(next.id) == 1, "\(name): the kept instance \(next.id) was not ended by dispose()")
    }
}

@Suite("Drop edge attack: synchronous creations dropped on their way", .tags(.engine))
struct DropEdgeAttackSyncTests {
    @Test(
        "Every scope, drop and moment: ended once, kept never, the next resolve sane",
        arguments: ScopeChoice.allCases,
        Drop.allCases
    )
    fileprivate func matrix(scope: ScopeChoice, drop: Drop) {
        for moment in Moment.allCases {
            for makesNewer in [false, true] {
                for throwing in [false, true] {
                    let scenario = DropScenario(
                        scope: scope,
                        drop: drop,
                        moment: moment,
                        makesNewer: makesNewer,
                        throwing: throwing
                    )
                    runScenario(scenario)
                    withExtendedLifetime(scenario) {}
                }
            }
        }
    }
}

// MARK: - Known defects: a failed creation that a drop did not take stays kept

/// baf6625 made `ResolutionState.noteDropped` mark a creation whose factory has returned as `dropped`,
/// "the dropping call took the instance, and ends it", whatever the dropping call is; and made
/// `completeInitialization` discard the instance of a failed action only if the frame is not `dropped` (or
/// still `holdsDroppedInstance`). But some dropping calls take nothing: `dispose()` leaves `.weak`, `.graph`
/// and custom-scope instances where they are (it ends `.container` and `.multiton` only), and
/// `resetObjectScope(.weak / .graph)` leaves the live graph's instance. A creation of such a scope whose
/// `initCompleted` action throws after one of those calls is then not discarded: its half-built instance
/// stays kept, against "a creation whose initCompleted action throws is not kept". Before baf6625 it was
/// discarded (`discardIncomplete` ran unless the scope had changed).
@Suite("Drop edge attack: a failed creation that the drop did not take out of its scope", .tags(.engine))
struct DropEdgeAttackFailedAfterDropTests {
    /// A custom scope whose storage keeps its instance: the next top-level resolve returns the instance
    /// whose action threw.
    @Test("Custom scope: dispose() in an action, then an action throws: the instance must not stay kept")
    func customScopeDisposeThenThrow() throws {
        let container = Container()
        let serial = Counter()
        container.register(Piece.self) { _ in Piece(id: serial.next()) }
            .inObjectScope(sessionScope)
            .initCompleted { _, made in
                guard made.id == 1 else { return }
                try? container.dispose()
                throw ActionFailed()
            }
        #expect(throws: DIError.self) { try container.resolveThrows(Piece.self) }
        let next = try container.resolveThrows(Piece.self)
        #expect(next.id == 2)
        #expect(serial.count == (next.id == 1 ? 1 : 2))
    }

    @Test("Custom scope: the same without dispose(): the failed instance is not kept (control)")
    func customScopeThrowAlone() throws {
        let container = Container()
        let serial = Counter()
        container.register(Piece.self) { _ in Piece(id: serial.next()) }
            .inObjectScope(sessionScope)
            .initCompleted { _, made in
                if made.id == 1 { throw ActionFailed() }
            }
        #expect(throws: DIError.self) { try container.resolveThrows(Piece.self) }
        #expect(try container.resolveThrows(Piece.self).id == 2)
    }

    /// `.weak`: while something holds the failed instance (its action handed it to an observer before
    /// throwing), later resolves return it.
    @Test("Weak scope: dispose() in an action, then an action throws: the held instance must not be found")
    func weakScopeDisposeThenThrow() throws {
        let container = Container()
        let serial = Counter()
        let retainer = Retainer()
        container.register(Piece.self) { _ in Piece(id: serial.next()) }
            .inObjectScope(.weak)
            .initCompleted { _, made in
                guard made.id == 1 else { return }
                retainer.hold(made)
                try? container.dispose()
                throw ActionFailed()
            }
        #expect(throws: DIError.self) { try container.resolveThrows(Piece.self) }
        let next = try container.resolveThrows(Piece.self)
        #expect(next.id == 2)
    }

    /// `.graph`, and the graph part of `.weak`, in one top-level call: a factory that tolerates the failure
    /// and resolves again must get a new instance, not the half-built one from the graph.
    @Test(
        "Graph and weak scopes: a reset or dispose() in an action, then an action throws: the graph must not keep it",
        arguments: [("graph", "reset"), ("graph", "dispose"), ("weak", "reset")]
    )
    func graphDropThenThrow(scopeName: String, drop: String) throws {
        let container = Container()
        let serial = Counter()
        let scope: ObjectScope = scopeName == "graph" ? .graph : .weak
        container.register(Piece.self) { _ in Piece(id: serial.next()) }
            .inObjectScope(scope)
            .initCompleted { _, made in
                guard made.id == 1 else { return }
                if drop == "reset" {
                    container.resetObjectScope(scope)
                } else {
                    try? container.dispose()
                }
                throw ActionFailed()
            }
        container.register(Probe.self) { r in
            Probe(first: try? r.resolveThrows(Piece.self), second: try? r.resolveThrows(Piece.self))
        }
        let probe = try container.resolveThrows(Probe.self)
        #expect(probe.first == nil)
        #expect(probe.second?.id == 2)
    }

    /// The same through an async creation (`adopt`): the async factory returns, its action disposes and
    /// throws.
    @Test("Async custom scope: dispose() in an action, then an action throws: the instance must not stay kept")
    func asyncCustomScopeDisposeThenThrow() async throws {
        let container = Container()
        let serial = Counter()
        container.registerAsync(Piece.self) { _ in
            await Task.yield()
            return Piece(id: serial.next())
        }
        .inObjectScope(sessionScope)
        .initCompleted { _, made in
            guard made.id == 1 else { return }
            try? container.dispose()
            throw ActionFailed()
        }
        await #expect(throws: DIError.self) { try await container.resolveAsync(Piece.self) }
        let next = try await container.resolveAsync(Piece.self)
        #expect(next.id == 2)
    }
}

// MARK: - Async creations dropped while suspended

/// What drops an async creation's registration while its factory is suspended.
private enum AsyncDrop: String, CaseIterable, CustomStringConvertible {
    case dispose, disposeAsync, reset, registerAgain, removeAll, release, changeScope, changeScopeAndBack

    var description: String { rawValue }
    var disposes: Bool { self != .changeScope && self != .changeScopeAndBack }
    var removes: Bool { self == .removeAll || self == .release }
}

/// A box for the entry whose scope a test changes, filled once registered.
private final class EntryBox<Service>: @unchecked Sendable {
    var entry: ServiceEntry<Service>?
}

/// One container with an async `Piece` registration (`.multiton`: with an `Int` argument) whose first
/// creation waits in its factory until `release` opens.
private final class AsyncDropScenario: @unchecked Sendable {
    // @unchecked: the container is used from the test's task, and from other tasks only through `view`
    // or while the test waits for them.
    let container = Container()
    let scope: ScopeChoice
    let serial = Counter()
    let ends = Ends()
    let endsAsync = Ends()
    let entered = Gate()
    let release = Gate()
    let box = EntryBox<Piece>()
    let throwsForFirst: Bool

    init(scope: ScopeChoice, throwsForFirst: Bool = false) {
        self.scope = scope
        self.throwsForFirst = throwsForFirst
        register(gated: true)
    }

    func register(gated: Bool, in scope: ObjectScope? = nil) {
        let (serial, entered, release, ends, endsAsync) = (serial, entered, release, ends, endsAsync)
        let throwsForFirst = throwsForFirst
        let make: @Sendable () async -> Piece = {
            let id = serial.next()
            if gated, id == 1 {
                entered.open()
                await release.wait()
            }
            return Piece(id: id)
        }
        let entry: ServiceEntry<Piece>
        if self.scope == .multiton {
            entry = container.registerAsync(Piece.self) { (_, _: Int) in await make() }
        } else {
            entry = container.registerAsync(Piece.self) { _ in await make() }
        }
        box.entry =
            entry
            .inObjectScope(scope ?? self.scope.scope)
            .initCompleted { _, made in
                if throwsForFirst, made.id == 1 { throw ActionFailed() }
            }
            .onDispose { ends.add($0.id) }
            .onDisposeAsync { endsAsync.add($0.id) }
    }

    /// Resolves `Piece` (with argument 1 for `.multiton`) through `resolver`.
    func resolve(_ resolver: any Resolver) async throws -> Piece {
        if scope == .multiton {
            return try await resolver.resolveAsync(Piece.self, argument: 1)
        }
        return try await resolver.resolveAsync(Piece.self)
    }
}

@Suite(
    "Drop edge attack: async creations dropped while their factory is suspended",
    .hangLimit(seconds: 120),
    .tags(.concurrency, .engine)
)
struct DropEdgeAttackAsyncTests {
    @Test(
        "A suspended creation, its waiters and a cancelled waiter, while its registration is dropped",
        arguments: [ScopeChoice.container, .multiton, .custom],
        AsyncDrop.allCases
    )
    fileprivate func suspendedCreationDropped(scope: ScopeChoice, drop: AsyncDrop) async throws {
        // `DIActor.release` removes the key without arguments only.
        if scope == .multiton, drop == .release { return }
        let s = AsyncDropScenario(scope: scope)
        let view = s.container.synchronize()
        let first = Task { try await s.resolve(view) }
        await s.entered.wait()
        let waiters = (0..<3).map { _ in Task { try await s.resolve(view) } }
        let cancelled = Task { try await s.resolve(view) }
        try await Task.sleep(for: .milliseconds(30))
        var disposing: Task<Void, any Error>?
        switch drop {
        case .dispose: try s.container.dispose()
        case .disposeAsync:
            nonisolated(unsafe) let container = s.container
            disposing = Task { try await container.disposeAsync() }
            try await Task.sleep(for: .milliseconds(10))
        case .reset: s.container.resetObjectScope(scope.scope)
        case .registerAgain: s.register(gated: false)
        case .removeAll: s.container.removeAll()
        case .release:
            await Container.withCurrent(s.container) {
                await DIActor.shared.release(Piece.self)
            }
        case .changeScope: s.box.entry?.inObjectScope(scope == .container ? ObjectScope.multiton : .container)
        case .changeScopeAndBack:
            s.box.entry?.inObjectScope(.transient)
            s.box.entry?.inObjectScope(scope.scope)
        }
        cancelled.cancel()
        s.release.open()
        try await disposing?.value
        let made = try await first.value
        #expect(made.id == 1)
        for waiter in waiters {
            // Joined the creation before the drop: its instance. (A waiter that came after would start anew.)
            let got = try? await waiter.value
            #expect(got != nil, "\(scope), \(drop): a waiter failed")
        }
        _ = try? await cancelled.value
        #expect(s.ends.twice.isEmpty, "\(scope), \(drop): ended twice \(s.ends.twice)")
        #expect(s.endsAsync.twice.isEmpty, "\(scope), \(drop): ended twice (async) \(s.endsAsync.twice)")
        let expected = scope.disposes && drop.disposes ? 1 : 0
        #expect(s.ends.count(1) == expected, "\(scope), \(drop): instance 1 ended \(s.ends.count(1)) times")
        if drop == .disposeAsync {
            #expect(s.endsAsync.count(1) == expected, "\(scope), \(drop): async handlers ran \(s.endsAsync.count(1))")
        }
        if drop.removes {
            await #expect(throws: DIError.self) { try await s.resolve(s.container) }
            return
        }
        let next = try await s.resolve(s.container)
        #expect(next.id != 1, "\(scope), \(drop): the dropped creation was kept")
        #expect(try await s.resolve(s.container) === next, "\(scope), \(drop): the next instance is not kept")
        #expect(s.ends.count(next.id) == 0)
        try await s.container.disposeAsync()
        #expect(s.ends.twice.isEmpty, "\(scope), \(drop): ended twice after disposeAsync \(s.ends.twice)")
        // A scope change moves it to `.multiton` or `.container`, both disposing.
        let keptInDisposingScope = drop == .changeScope ? true : scope.disposes
        #expect(
            s.ends.count(next.id) == (keptInDisposingScope ? 1 : 0),
            "\(scope), \(drop): next ended \(s.ends.count(next.id))"
        )
    }

    @Test(
        "A suspended creation dropped, a newer instance made, then its action throws: the newer stays kept",
        arguments: [ScopeChoice.container, .multiton, .custom]
    )
    fileprivate func newerKeptWhenDroppedCreationFails(scope: ScopeChoice) async throws {
        let s = AsyncDropScenario(scope: scope, throwsForFirst: true)
        let view = s.container.synchronize()
        let first = Task { try await s.resolve(view) }
        await s.entered.wait()
        s.container.resetObjectScope(scope.scope)
        let newer = try await s.resolve(s.container)
        #expect(newer.id == 2)
        s.release.open()
        await #expect(throws: DIError.self) { try await first.value }
        #expect(try await s.resolve(s.container) === newer)
        #expect(s.ends.count(2) == 0)
        #expect(s.ends.count(1) <= 1)
        try s.container.dispose()
        #expect(s.ends.count(2) == (scope.disposes ? 1 : 0))
        #expect(s.ends.twice.isEmpty)
    }

    @Test("An async value service dropped while suspended: the newer value made meanwhile stays kept")
    func valueDroppedWhileSuspended() async throws {
        let container = Container()
        let serial = Counter()
        let entered = Gate()
        let release = Gate()
        container.registerAsync(PieceValue.self) { _ in
            let id = serial.next()
            if id == 1 {
                entered.open()
                await release.wait()
            }
            return PieceValue(id: id)
        }
        .inObjectScope(.container)
        .initCompleted { r, made in
            // Finds itself, or the newer value, in the scope: never fails.
            _ = try r.resolveThrows(PieceValue.self)
            _ = made
        }
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(PieceValue.self) }
        await entered.wait()
        container.resetObjectScope(.container)
        #expect(try await container.resolveAsync(PieceValue.self).id == 2)
        release.open()
        #expect(try await first.value.id == 1)
        #expect(try await container.resolveAsync(PieceValue.self).id == 2)
        #expect(container.resolve(PieceValue.self)?.id == 2)
        #expect(serial.count == 2)
    }

    @Test("DIActor.release while an async creation is suspended, then the key registered again")
    func releaseThenRegisterAgainWhileSuspended() async throws {
        let s = AsyncDropScenario(scope: .container)
        let view = s.container.synchronize()
        let first = Task { try await s.resolve(view) }
        await s.entered.wait()
        await Container.withCurrent(s.container) {
            await DIActor.shared.release(Piece.self)
        }
        s.register(gated: false)
        let fresh = try await s.resolve(s.container)
        s.release.open()
        #expect(try await first.value.id == 1)
        #expect(s.ends.count(1) == 1)
        #expect(try await s.resolve(s.container) === fresh)
        #expect(s.ends.count(fresh.id) == 0)
        try s.container.dispose()
        #expect(s.ends.count(fresh.id) == 1)
        #expect(s.ends.twice.isEmpty)
    }

    @Test("The creating task itself is cancelled while suspended and the scope is reset: sane afterwards")
    func creatingTaskCancelled() async throws {
        let s = AsyncDropScenario(scope: .container)
        nonisolated(unsafe) let container = s.container
        // A plain container runs the creation in the resolving task.
        let first = Task { try await s.resolve(container) }
        await s.entered.wait()
        first.cancel()
        s.container.resetObjectScope(.container)
        s.release.open()
        let outcome = await first.result
        if case .success(let made) = outcome {
            #expect(made.id == 1)
        }
        #expect(s.ends.count(1) <= 1)
        let next = try await s.resolve(s.container)
        #expect(next.id == 2)
        #expect(try await s.resolve(s.container) === next)
    }

    /// Each async factory spawns a task that drops the scope (reset, dispose, scope change back and forth)
    /// while the factory yields, and several tasks resolve at once. Afterwards: nothing ended twice, the
    /// kept instance is not an ended one, and a last disposal ends it once.
    @Test("Factories that spawn tasks dropping their own scope, under concurrent resolves")
    func spawnedDropsUnderConcurrentResolves() async throws {
        for round in 0..<40 {
            let container = Container()
            nonisolated(unsafe) let dropper = container
            let serial = Counter()
            let ends = Ends()
            let box = EntryBox<Piece>()
            box.entry = container.registerAsync(Piece.self) { _ in
                let id = serial.next()
                let spawned = Task {
                    switch (id + round) % 4 {
                    case 0: dropper.resetObjectScope(.container)
                    case 1: try? dropper.dispose()
                    case 2:
                        box.entry?.inObjectScope(.transient)
                        box.entry?.inObjectScope(.container)
                    default: break
                    }
                }
                await Task.yield()
                _ = await spawned.value
                return Piece(id: id)
            }
            .inObjectScope(.container)
            .onDispose { ends.add($0.id) }
            let view = container.synchronize()
            try await withThrowingTaskGroup(of: Piece.self) { group in
                for _ in 0..<6 {
                    group.addTask { try await view.resolveAsync(Piece.self) }
                }
                for try await _ in group {}
            }
            #expect(ends.twice.isEmpty, "round \(round): ended twice \(ends.twice)")
            // Settle: resolve until the same instance comes back twice (a drop may still be under way).
            var kept = try await container.resolveAsync(Piece.self)
            for _ in 0..<10 {
                let again = try await container.resolveAsync(Piece.self)
                if again === kept { break }
                kept = again
            }
            #expect(try await container.resolveAsync(Piece.self) === kept, "round \(round): not settled")
            #expect(ends.count(kept.id) == 0, "round \(round): the kept instance \(kept.id) was ended")
            try await container.disposeAsync()
            #expect(ends.count(kept.id) == 1, "round \(round): the kept instance ended \(ends.count(kept.id))")
            #expect(ends.twice.isEmpty, "round \(round): ended twice \(ends.twice)")
        }
    }
}

// MARK: - Reentry and deinitializers

@Suite("Drop edge attack: a dropped creation that its own factory replaced", .tags(.engine))
struct DropEdgeAttackReentryTests {
    /// The factory disposes of the scope, then (through `Bridge`, whose action resolves `Piece` again) a
    /// newer instance is made and kept before the factory returns. The first creation hands out the newer
    /// instance; what does it do with the one its factory returned, which a disposing call dropped in flight?
    @Test("A creation dropped in its factory, whose factory then brings about a newer kept instance")
    func droppedThenReplacedByReentry() throws {
        let container = Container()
        let serial = Counter()
        let ends = Ends()
        let made = SerialLog()
        container.register(Piece.self) { r in
            let piece = Piece(id: serial.next())
            made.add(piece.id)
            if piece.id == 1 {
                try? container.dispose()
                _ = r.resolve(Bridge.self)
            }
            return piece
        }
        .inObjectScope(.container)
        .onDispose { ends.add($0.id) }
        container.register(Bridge.self) { _ in Bridge(piece: nil) }
            .inObjectScope(.graph)
            .initCompleted { r, _ in _ = r.resolve(Piece.self) }
        let first = try container.resolveThrows(Piece.self)
        #expect(made.all == [1, 2])
        // The reentering resolve stored its instance first: it is the one handed out, and kept.
        #expect(first.id == 2)
        #expect(try container.resolveThrows(Piece.self) === first)
        #expect(ends.count(2) == 0)
        #expect(ends.twice.isEmpty)
        try container.dispose()
        #expect(ends.count(2) == 1)
        // Instance 1: its factory returned it after `dispose()` dropped its creation (`disposesIfDropped`),
        // but `complete` returns the reentering creation's instance instead
        // (`storeAfterReentryOrDrop` finds it, `reentered`) and pops the frame without `endDropped`: the
        // instance is neither handed out, nor kept, nor ever ended. The rule: a creation a disposing call
        // dropped is disposed of once. (Not from baf6625: the same before it.)
        #expect(ends.count(1) == 1)
    }
}

@Suite(
    "Drop edge attack: async creations whose scope changes while suspended",
    .hangLimit(seconds: 120),
    .tags(.concurrency, .engine)
)
struct DropEdgeAttackAsyncScopeChangeTests {
    /// Registers an async `Piece` taking an `Int` in `scope`, whose first creation opens `entered` and
    /// waits for `release`; the others are made at once, numbered from 2.
    private static func registerSuspendingFirst(
        in container: Container,
        scope: ObjectScope,
        entered: Gate,
        release: Gate
    ) -> ServiceEntry<Piece> {
        let serial = Counter()
        return container.registerAsync(Piece.self) { (_, _: Int) in
            let id = serial.next()
            if id == 1 {
                entered.open()
                await release.wait()
            }
            return Piece(id: id)
        }
        .inObjectScope(scope)
    }

    /// Moved to `.multiton` (by arguments), a custom scope or `.container` while the factory is suspended.
    /// An async creation ends in the scope its registration has when it ends (`adopt`): one started under a
    /// scope that keeps nothing (`.transient`, `.graph`) is kept by the new scope, as when `inObjectScope`
    /// follows `registerAsync` while another task already resolves it; one started under a scope that keeps
    /// instances was dropped by the change and is kept in neither.
    @Test(
        "Moved to .multiton, a custom scope or .container while suspended: kept by the new scope or dropped",
        arguments: [ScopeChoice.transient, .graph, .weak, .custom],
        [ScopeChoice.multiton, .custom, .container]
    )
    fileprivate func movedWhileSuspended(from: ScopeChoice, to: ScopeChoice) async throws {
        guard from != to else { return }
        let container = Container()
        let (entered, release) = (Gate(), Gate())
        let ends = Ends()
        let entry = Self.registerSuspendingFirst(in: container, scope: from.scope, entered: entered, release: release)
            .onDispose { ends.add($0.id) }
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(Piece.self, argument: 1) }
        await entered.wait()
        entry.inObjectScope(to.scope)
        release.open()
        #expect(try await first.value.id == 1)
        let adopted = from == .transient || from == .graph
        let next = try await container.resolveAsync(Piece.self, argument: 1)
        #expect(next.id == (adopted ? 1 : 2), "\(from) -> \(to): instance \(next.id) kept")
        #expect(try await container.resolveAsync(Piece.self, argument: 1) === next)
        #expect(ends.total == 0)
        try container.dispose()
        #expect(ends.count(next.id) == (to.disposes ? 1 : 0))
        #expect(ends.total == (to.disposes ? 1 : 0), "\(from) -> \(to): a scope change alone disposed of instance 1")
    }

    /// Moved away and back while suspended: the same scope object at the end, but the instances were
    /// dropped meanwhile; for a `.container` async creation the generation tells.
    @Test("Moved away and back while suspended: not kept", arguments: [ScopeChoice.container, .multiton, .custom])
    fileprivate func movedAwayAndBack(scope: ScopeChoice) async throws {
        let container = Container()
        let (entered, release) = (Gate(), Gate())
        let entry = Self.registerSuspendingFirst(in: container, scope: scope.scope, entered: entered, release: release)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(Piece.self, argument: 1) }
        await entered.wait()
        entry.inObjectScope(.transient)
        entry.inObjectScope(scope.scope)
        release.open()
        #expect(try await first.value.id == 1)
        let next = try await container.resolveAsync(Piece.self, argument: 1)
        #expect(next.id == 2)
        #expect(try await container.resolveAsync(Piece.self, argument: 1) === next)
    }
}

@Suite("Drop edge attack: the facades drop a registration while its instance is made", .tags(.engine))
struct DropEdgeAttackFacadeTests {
    /// `DependencyRegistry.reset()` from the instantiator of the service being resolved: the instance is
    /// handed out and not kept, and the registration is gone.
    @Test("DependencyRegistry.reset() inside the instantiator being resolved")
    func dependencyRegistryResetWhileMaking() {
        let serial = Counter()
        Container.withCurrent(Container()) {
            DependencyRegistry.register { () -> Piece in
                let piece = Piece(id: serial.next())
                if piece.id == 1 {
                    DependencyRegistry.reset()
                }
                return piece
            }
            let first: Piece = DependencyRegistry.resolve()
            #expect(first.id == 1)
            let again: Piece? = DependencyRegistry.optional()
            #expect(again == nil)
        }
    }

    /// Registering the service again from its own instantiator: the new registration's instance comes next.
    @Test("DependencyRegistry.register of the same service inside its instantiator")
    func dependencyRegistryRegisterAgainWhileMaking() {
        let serial = Counter()
        Container.withCurrent(Container()) {
            DependencyRegistry.register { () -> Piece in
                let piece = Piece(id: serial.next())
                if piece.id == 1 {
                    DependencyRegistry.register { () -> Piece in Piece(id: 100 + serial.next()) }
                }
                return piece
            }
            let first: Piece = DependencyRegistry.resolve()
            #expect(first.id == 1)
            let next: Piece = DependencyRegistry.resolve()
            #expect(next.id > 100)
            let again: Piece = DependencyRegistry.resolve()
            #expect(again === next)
        }
    }
}
