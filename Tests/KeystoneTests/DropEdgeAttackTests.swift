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

/// Counts the disposals of each instance id.
private final class Ends: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]

    func add(_ id: Int) {
        lock.lock()
        counts[id, default: 0] += 1
        lock.unlock()
    }

    func count(_ id: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts[id] ?? 0
    }

    var twice: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return counts.filter { $0.value > 1 }.map(\.key).sorted()
    }

    var total: Int {
        lock.lock()
        defer { lock.unlock() }
        return counts.values.reduce(0, +)
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
            if makesNewer, moment == .firstAction || moment == .nestedResolve || moment == .factory
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

    /// The known defect (``DropEdgeAttackFailedAfterDropTests``): after its factory returned, a creation of a
    /// scope the drop took nothing from (`dispose()` of `.weak`, `.graph`, custom; a reset of `.weak` or
    /// `.graph`, which leaves the live graph's instance) whose action then throws stays kept.
    var failedButKeptDefect: Bool {
        guard throwing, moment.afterFactory else { return false }
        switch drop {
        case .dispose: return scope == .weak || scope == .graph || scope == .custom
        case .reset, .resetBySubtype: return scope == .weak || scope == .graph
        default: return false
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
        withKnownIssue("a failed creation the drop did not take stays kept", isIntermittent: true) {
            #expect(second?.id != 1, "\(name): a creation whose action threw was found again in its graph")
        } when: {
            s.failedButKeptDefect
        }
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
        withKnownIssue("a failed creation the drop did not take stays kept", isIntermittent: true) {
            #expect(next?.id != 1, "\(name): the dropped instance is still kept")
        } when: {
            s.failedButKeptDefect
        }
    }
    if let next {
        #expect(s.ends.count(next.id) == 0, "\(name): the next resolve returned a disposed instance \(next.id)")
    }
    let nextScope: ScopeChoice = s.drop == .changeScope ? (s.scope == .container ? .multiton : .container) : s.scope
    if nextScope.keepsAcrossCalls {
        #expect(next === again, "\(name): two resolves of a kept service differ (\(next?.id ?? -1), \(again?.id ?? -1))")
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

@Suite("Drop edge attack: synchronous creations dropped on their way")
struct DropEdgeAttackSyncTests {
    @Test(
        "Every scope, drop and moment: ended once, kept never, the next resolve sane",
        arguments: ScopeChoice.allCases, Drop.allCases
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
@Suite("Drop edge attack: a failed creation that the drop did not take out of its scope")
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
        withKnownIssue("A failed custom-scope creation stays in its storage after a dispose() in its action") {
            #expect(next.id == 2)
        }
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
        withKnownIssue("A failed .weak creation stays in its weak slot after a dispose() in its action") {
            #expect(next.id == 2)
        }
    }

    /// `.graph`, in one top-level call: a factory that tolerates the failure and resolves again gets the
    /// half-built instance, from the graph, instead of a new one.
    @Test(
        "Graph scope: a reset or dispose() in an action, then an action throws: the graph must not keep it",
        arguments: ["reset", "dispose"]
    )
    func graphScopeDropThenThrow(drop: String) throws {
        let container = Container()
        let serial = Counter()
        container.register(Piece.self) { _ in Piece(id: serial.next()) }
            .inObjectScope(.graph)
            .initCompleted { _, made in
                guard made.id == 1 else { return }
                if drop == "reset" {
                    container.resetObjectScope(.graph)
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
        withKnownIssue("A failed .graph creation stays in its graph after a drop in its action") {
            #expect(probe.second?.id == 2)
        }
    }

    @Test("Weak scope: resetObjectScope(.weak) in an action, then an action throws: the graph must not keep it")
    func weakScopeResetThenThrow() throws {
        let container = Container()
        let serial = Counter()
        container.register(Piece.self) { _ in Piece(id: serial.next()) }
            .inObjectScope(.weak)
            .initCompleted { _, made in
                guard made.id == 1 else { return }
                container.resetObjectScope(.weak)
                throw ActionFailed()
            }
        container.register(Probe.self) { r in
            Probe(first: try? r.resolveThrows(Piece.self), second: try? r.resolveThrows(Piece.self))
        }
        let probe = try container.resolveThrows(Probe.self)
        #expect(probe.first == nil)
        withKnownIssue("A failed .weak creation stays in its graph after resetObjectScope(.weak) in its action") {
            #expect(probe.second?.id == 2)
        }
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
        withKnownIssue("A failed async custom-scope creation stays in its storage after a dispose() in its action") {
            #expect(next.id == 2)
        }
    }
}
