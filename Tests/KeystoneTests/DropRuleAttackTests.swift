import Foundation
import Keystone
import Testing

// Attacks on the rules of dropped creations (baf6625, ce1adb0, 820f586, 7111be7), on the `.multiton` key of
// several arguments taken by one tuple cast (b0b5b7a), on a miss's near-miss candidates (6abb53d) and on the
// log handler's lock (3c980a0), written only through the public API.

// MARK: - Fixtures

private final class Part: @unchecked Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private struct PartValue: Sendable {
    let id: Int
}

private struct ActionRefused: Error {}

/// A scope of my own, not an `ObjectScope`: one slot per registration.
private final class SlotStorage: InstanceStorage {
    var instance: Any?
}

private final class OwnScope: ObjectScopeProtocol, Sendable {
    func makeStorage() -> any InstanceStorage { SlotStorage() }
}

private let ownScope = OwnScope()
private let permanentScope = ObjectScope(storageFactory: PermanentStorage.init, description: "permanent")

/// The scopes whose instances `dispose()` leaves where they are.
enum KeptByDispose: String, CaseIterable, CustomStringConvertible {
    case weak, graph, storageFactory, ownProtocol

    var description: String { rawValue }

    var scope: any ObjectScopeProtocol {
        switch self {
        case .weak: ObjectScope.weak
        case .graph: ObjectScope.graph
        case .storageFactory: permanentScope
        case .ownProtocol: ownScope
        }
    }

    /// Keeps an instance across top-level resolves.
    var keepsAcrossCalls: Bool { self == .storageFactory || self == .ownProtocol }
}

/// Resolves `Part` twice in one graph, the first time allowing it to fail.
private final class TwoLooks {
    let first: Part?
    let second: Part?
    init(first: Part?, second: Part?) {
        self.first = first
        self.second = second
    }
}

/// Resolves `Part` (argument 7, or none) from its `initCompleted` action: reached from an action of `Part`, it
/// makes the nested resolve a reentry rather than a cycle (a `.graph` instance produced in between).
private final class Bridge {}

/// Registers `Bridge`, whose action resolves `Part` and hands it to `found`.
private func registerBridge(in container: Container, argument: Int?, found: @escaping (Part?) -> Void) {
    container.register(Bridge.self) { _ in Bridge() }
        .inObjectScope(.graph)
        .initCompleted { r, _ in
            if let argument {
                found(r.resolve(Part.self, argument: argument))
            } else {
                found(r.resolve(Part.self))
            }
        }
}

// MARK: - A drop in the factory, then a dispose() in an action

/// A creation dropped by a discarding call in its factory (a reset) stores its instance for its actions
/// (`holdsDroppedInstance`). A `dispose()` from an action then clears that mark as if it had taken the
/// instance — but `dispose()` leaves `.weak`, `.graph` and custom instances where they are. The creation
/// then neither takes its instance back when it ends nor discards it when its action throws: the instance
/// of a dropped creation, or of a failed one, stays kept.
@Suite("Drop rule attack: a reset in the factory, then dispose() in an action", .tags(.engine))
struct ResetThenDisposeAttackTests {
    private final class Scenario {
        let container = Container()
        let serial = Counter()
        var held: [Part] = []

        init(scope: KeptByDispose, throwing: Bool) {
            container.register(Part.self) { [unowned self] _ in
                let part = Part(id: serial.next())
                if part.id == 1 {
                    container.resetObjectScope(scope.scope)
                }
                return part
            }
            .inObjectScope(scope.scope)
            .initCompleted { [unowned self] _, made in
                guard made.id == 1 else { return }
                held.append(made)  // `.weak`: something holds it.
                try? container.dispose()
            }
            .initCompleted { _, made in
                if throwing, made.id == 1 {
                    throw ActionRefused()
                }
            }
            container.register(TwoLooks.self) { r in
                TwoLooks(first: try? r.resolveThrows(Part.self), second: try? r.resolveThrows(Part.self))
            }
            .inObjectScope(.transient)
        }
    }

    @Test("A failed creation is not kept in its scope nor for the rest of its graph", arguments: KeptByDispose.allCases)
    func failedCreation(scope: KeptByDispose) throws {
        let s = Scenario(scope: scope, throwing: true)
        let looks = try s.container.resolveThrows(TwoLooks.self)
        #expect(looks.first == nil, "\(scope): the failed creation was handed out")
        // `dispose()` (`discarding: false`) takes nothing from `.weak`, `.graph` and custom scopes: the
        // creation keeps its mark (`holdsDroppedInstance`) and discards its instance itself.
        #expect(looks.second?.id != 1, "\(scope): the failed creation was found again in its graph")
        if scope != .graph {
            let next = s.container.resolve(Part.self)
            #expect(next?.id != 1, "\(scope): the failed creation is still kept")
        }
        _ = s.held
    }

    @Test("A dropped creation that completes keeps nothing", arguments: KeptByDispose.allCases)
    func droppedCreation(scope: KeptByDispose) throws {
        let s = Scenario(scope: scope, throwing: false)
        let first = try s.container.resolveThrows(Part.self)
        #expect(first.id == 1)
        guard scope.keepsAcrossCalls || scope == .weak else { return }
        // As above: `endDropped` takes back the instance, whose mark a `dispose()` that took nothing left.
        #expect(s.container.resolve(Part.self)?.id != 1, "\(scope): the dropped creation is still kept")
    }

    /// The same with no `dispose()`: the creation takes its instance back (the control).
    @Test("Without the dispose(), the dropped creation keeps nothing", arguments: KeptByDispose.allCases)
    func control(scope: KeptByDispose) throws {
        let container = Container()
        let serial = Counter()
        var held: [Part] = []
        container.register(Part.self) { _ in
            let part = Part(id: serial.next())
            if part.id == 1 {
                container.resetObjectScope(scope.scope)
            }
            return part
        }
        .inObjectScope(scope.scope)
        .initCompleted { _, made in held.append(made) }
        #expect(try container.resolveThrows(Part.self).id == 1)
        if scope.keepsAcrossCalls || scope == .weak {
            #expect(container.resolve(Part.self)?.id != 1, "\(scope)")
        }
        _ = held
    }
}

// MARK: - A failed creation and a newer instance

/// Creations whose action fails after a drop and a newer instance: the newer one stays, for every scope.
@Suite("Drop rule attack: a failed creation leaves a newer instance alone", .tags(.engine))
struct FailedCreationNewerInstanceAttackTests {
    enum Drop: String, CaseIterable, CustomStringConvertible {
        case reset, dispose, removeAndRegister
        var description: String { rawValue }
    }

    /// `.weak`: a reset in the first action empties the weak slot but not the graph's instance; a resolve in
    /// a fresh graph (`withObjectGraph`) then makes a newer instance, which the caller holds. The failed
    /// creation must not take it from the weak slot.
    @Test("A .weak creation whose action fails after a reset and a newer instance in another graph")
    func weakNewerInAnotherGraph() throws {
        let container = Container()
        let serial = Counter()
        var newer: Part?
        registerBridge(in: container, argument: nil) { newer = $0 }
        container.register(Part.self) { _ in Part(id: serial.next()) }
            .inObjectScope(.weak)
            .initCompleted { _, made in
                guard made.id == 1 else { return }
                container.resetObjectScope(.weak)
                _ = container.withObjectGraph(GraphIdentifier()) { $0.resolve(Bridge.self) }
            }
            .initCompleted { _, made in
                if made.id == 1 { throw ActionRefused() }
            }
        #expect(container.resolve(Part.self) == nil)
        #expect(newer?.id == 2)
        let next = container.resolve(Part.self)
        // A drop after the factory returned does not mark a `.weak` frame (`noteDropped`): the failed creation
        // runs `discardIncomplete`, which clears the weak slot only if it still holds the failed instance.
        #expect(next === newer, "the newer instance \(newer?.id ?? -1) was lost; next is \(next?.id ?? -1)")
        withExtendedLifetime(newer) {}
    }

    /// A custom scope (both kinds) and `.container`/`.multiton`: the drop in the first action, a newer
    /// instance made by a nested resolve, then the second action throws.
    @Test(
        "Custom, .container and .multiton: a drop in the first action, a newer instance, a failing second action",
        arguments: ["container", "multiton", "storageFactory", "ownProtocol"],
        Drop.allCases
    )
    func newerAfterDrop(scopeName: String, drop: Drop) throws {
        let scope: any ObjectScopeProtocol =
            switch scopeName {
            case "container": ObjectScope.container
            case "multiton": ObjectScope.multiton
            case "storageFactory": permanentScope
            default: ownScope
            }
        let disposes = scopeName == "container" || scopeName == "multiton"
        let container = Container()
        let serial = Counter()
        let tally = Ends()
        var newer: Part?
        registerBridge(in: container, argument: 7) { newer = $0 }
        func register() {
            container.register(Part.self) { (_, _: Int) in Part(id: serial.next()) }
                .inObjectScope(scope)
                .initCompleted { r, made in
                    guard made.id == 1 else { return }
                    switch drop {
                    case .reset: container.resetObjectScope(scope)
                    case .dispose: try? container.dispose()
                    case .removeAndRegister: register()
                    }
                    _ = r.resolve(Bridge.self)
                }
                .initCompleted { _, made in
                    if made.id == 1 { throw ActionRefused() }
                }
                .onDispose { tally.add($0.id) }
        }
        register()
        let name = "\(scopeName), \(drop)"
        #expect(container.resolve(Part.self, argument: 7) == nil, "\(name)")
        let next = container.resolve(Part.self, argument: 7)
        if drop == .dispose && !disposes {
            // dispose() left the first instance in place: the nested resolve found it; the failed creation
            // discards it.
            #expect(newer?.id == 1, "\(name)")
            #expect(next?.id == 2, "\(name): next is \(next?.id ?? -1)")
        } else {
            #expect(newer?.id == 2, "\(name)")
            #expect(next === newer, "\(name): the newer instance was lost; next is \(next?.id ?? -1)")
        }
        if disposes {
            #expect(
                tally.count(1) == (drop == .dispose || drop == .reset || drop == .removeAndRegister ? 1 : 0),
                "\(name)"
            )
            #expect(tally.count(2) == 0, "\(name): a kept instance was disposed")
            try container.dispose()
            #expect(tally.twice.isEmpty, "\(name): \(tally.twice)")
            if let next {
                #expect(tally.count(next.id) == 1, "\(name)")
            }
        }
    }
}

// MARK: - Disposal exactly once, scope changes

@Suite("Drop rule attack: .container and .multiton disposal", .tags(.engine))
struct DisposalOnceAttackTests {
    /// Two disposing calls on one creation: a reset in the factory, then `dispose()` in the first action and
    /// a reset in the second. The instance ends once, and is not kept.
    @Test("Drops in the factory and in two actions end the instance once", arguments: ["container", "multiton"])
    func dropsEverywhere(scopeName: String) throws {
        let scope: ObjectScope = scopeName == "container" ? .container : .multiton
        let container = Container()
        let serial = Counter()
        let tally = Ends()
        container.register(Part.self) { (_, _: Int, _: String) in
            let part = Part(id: serial.next())
            if part.id == 1 { container.resetObjectScope(scope) }
            return part
        }
        .inObjectScope(scope)
        .initCompleted { _, made in if made.id == 1 { try? container.dispose() } }
        .initCompleted { _, made in if made.id == 1 { container.resetObjectScope(scope) } }
        .onDispose { tally.add($0.id) }
        let first = try container.resolveThrows(Part.self, arguments: 1, "a")
        #expect(first.id == 1)
        #expect(tally.count(1) == 1, "\(scopeName): ended \(tally.count(1)) times")
        let next = try container.resolveThrows(Part.self, arguments: 1, "a")
        #expect(next.id == 2)
        #expect(try container.resolveThrows(Part.self, arguments: 1, "a") === next)
        try container.dispose()
        #expect(tally.count(1) == 1)
        #expect(tally.count(2) == 1)
        #expect(tally.twice.isEmpty)
    }

    /// A scope change in an action of a creation dropped by `dispose()` in its factory: the scope change does
    /// not dispose, the disposing drop does, once.
    @Test("A scope change after a disposing drop disposes once; a scope change alone never", arguments: [false, true])
    func scopeChange(afterDispose: Bool) throws {
        let container = Container()
        let serial = Counter()
        let tally = Ends()
        let entry = container.register(Part.self) { _ in
            let part = Part(id: serial.next())
            if afterDispose, part.id == 1 { try? container.dispose() }
            return part
        }
        entry.inObjectScope(.container)
            .initCompleted { _, made in if made.id == 1 { entry.inObjectScope(.multiton) } }
            .onDispose { tally.add($0.id) }
        #expect(try container.resolveThrows(Part.self).id == 1)
        #expect(tally.count(1) == (afterDispose ? 1 : 0))
        let next = try container.resolveThrows(Part.self)
        #expect(next.id == 2)
        #expect(try container.resolveThrows(Part.self) === next)
        try container.dispose()
        #expect(tally.count(1) == (afterDispose ? 1 : 0))
        #expect(tally.count(2) == 1)
    }

    /// A `.container` value type: a reset in the factory and a newer value made in an action, then a throw.
    @Test("A .container value whose action throws after a drop and a newer value keeps the newer value")
    func valueType() throws {
        let container = Container()
        let serial = Counter()
        var newer: PartValue?
        container.register(Bridge.self) { _ in Bridge() }
            .inObjectScope(.graph)
            .initCompleted { r, _ in newer = r.resolve(PartValue.self) }
        container.register(PartValue.self) { _ in
            let value = PartValue(id: serial.next())
            if value.id == 1 { container.resetObjectScope(.container) }
            return value
        }
        .inObjectScope(.container)
        .initCompleted { r, made in
            guard made.id == 1 else { return }
            container.resetObjectScope(.container)
            _ = r.resolve(Bridge.self)
        }
        .initCompleted { _, made in if made.id == 1 { throw ActionRefused() } }
        #expect(container.resolve(PartValue.self) == nil)
        #expect(newer?.id == 2)
        #expect(container.resolve(PartValue.self)?.id == 2)
    }
}

// MARK: - Async creations across a scope change

@Suite("Drop rule attack: async creations end in the scope they end in", .tags(.concurrency, .engine))
struct AsyncAdoptAttackTests {
    private actor Gate {
        private var opened = false
        private var waiters: [CheckedContinuation<Void, Never>] = []
        private var arrivedCount = 0
        func arrive() { arrivedCount += 1 }
        var arrived: Int { arrivedCount }
        func wait() async {
            if opened { return }
            await withCheckedContinuation { waiters.append($0) }
        }
        func open() {
            opened = true
            for waiter in waiters { waiter.resume() }
            waiters.removeAll()
        }
    }

    private static func arrival(_ gate: Gate, count: Int) async {
        while await gate.arrived < count {
            await Task.yield()
        }
    }

    @Test("A .transient async creation suspended while its scope becomes .container is the one kept, and disposed once")
    func transientBecomesContainer() async throws {
        let container = Container()
        let gate = Gate()
        let serial = Counter()
        let tally = Ends()
        let entry = container.registerAsync(Part.self) { _ in
            await gate.arrive()
            await gate.wait()
            return Part(id: serial.next())
        }
        entry.onDispose { tally.add($0.id) }
        let view = container.synchronize()
        let task = Task { try await view.resolveAsync(Part.self) }
        await Self.arrival(gate, count: 1)
        entry.inObjectScope(.container)
        await gate.open()
        let made = try await task.value
        #expect(try await container.resolveAsync(Part.self) === made)
        try await container.disposeAsync()
        #expect(tally.count(made.id) == 1)
        #expect(tally.twice.isEmpty)
    }

    @Test("A .container async creation suspended while its scope becomes .multiton keeps nothing and is not disposed")
    func containerBecomesMultiton() async throws {
        let container = Container()
        let gate = Gate()
        let serial = Counter()
        let tally = Ends()
        let entry = container.registerAsync(Part.self) { _ in
            let part = Part(id: serial.next())
            if part.id == 1 {
                await gate.arrive()
                await gate.wait()
            }
            return part
        }
        entry.inObjectScope(.container).onDispose { tally.add($0.id) }
        let view = container.synchronize()
        let task = Task { try await view.resolveAsync(Part.self) }
        await Self.arrival(gate, count: 1)
        entry.inObjectScope(.multiton)
        await gate.open()
        let made = try await task.value
        #expect(made.id == 1)
        let next = try await container.resolveAsync(Part.self)
        #expect(next !== made, "kept across a scope change")
        #expect(try await container.resolveAsync(Part.self) === next)
        try await container.disposeAsync()
        #expect(tally.count(1) == 0, "a scope change disposed")
        #expect(tally.count(next.id) == 1)
    }

    /// Cancelled waiters on a `.container` creation whose registration is reset while it is suspended, and a
    /// factory that spawns a task resolving the same registration.
    @Test("Waiters cancelled while a reset drops the creation they wait for")
    func cancelledWaiters() async throws {
        let container = Container()
        let gate = Gate()
        let serial = Counter()
        let tally = Ends()
        let spawnView = container.synchronize()
        container.registerAsync(Part.self) { _ in
            let part = Part(id: serial.next())
            if part.id == 1 {
                // A task spawned by the factory, resolving the same registration.
                Task { _ = try? await spawnView.resolveAsync(Part.self) }
                await gate.arrive()
                await gate.wait()
            }
            return part
        }
        .inObjectScope(.container)
        .onDispose { tally.add($0.id) }
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(Part.self) }
        await Self.arrival(gate, count: 1)
        let waiters = (0..<4).map { _ in Task { try await view.resolveAsync(Part.self) } }
        for _ in 0..<20 { await Task.yield() }
        waiters[0].cancel()
        waiters[1].cancel()
        container.resetObjectScope(.container)
        await gate.open()
        let made = try? await first.value
        var seen: [Part] = []
        for waiter in waiters {
            if let part = try? await waiter.value { seen.append(part) }
        }
        let kept = try await container.resolveAsync(Part.self)
        #expect(kept.id != 1, "the dropped creation is kept")
        #expect(try await container.resolveAsync(Part.self) === kept)
        if made != nil {
            #expect(tally.count(1) == 1, "the dropped creation ended \(tally.count(1)) times")
        }
        try await container.disposeAsync()
        #expect(tally.count(kept.id) == 1)
        #expect(tally.twice.isEmpty, "\(tally.twice)")
        _ = seen
    }
}

// MARK: - .multiton keys of several arguments

private final class Keyed: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private class Tag: Hashable {
    let n: Int
    init(_ n: Int) { self.n = n }
    static func == (lhs: Tag, rhs: Tag) -> Bool { lhs.n == rhs.n }
    func hash(into hasher: inout Hasher) { hasher.combine(n) }
}

private final class RedTag: Tag {}

private struct NotHashable {}

@Suite("Drop rule attack: .multiton keys of two to six arguments", .tags(.engine))
struct MultitonTupleKeyAttackTests {
    /// Says whether a first resolve (`resolveA`) and a second (`resolveB`) of `.multiton` `Keyed` share an
    /// instance: synchronously, through `any Resolver`, through a synchronized view, asynchronously.
    private func core(
        register: (Container, Counter) -> Void,
        resolveA: (any Resolver) throws -> Keyed,
        resolveB: (any Resolver) throws -> Keyed,
        resolveBAsync: (Container) async throws -> Keyed
    ) async throws -> [Bool] {
        let serial = Counter()
        let container = Container()
        register(container, serial)
        let first = try resolveA(container)
        return [
            try resolveB(container) === first,
            try resolveB(Container(parent: container)) === first,
            try resolveB(container.synchronize()) === first,
            try await resolveBAsync(container) === first,
        ]
    }

    private func shares<A, B>(_ a: (A, B), _ b: (A, B)) async throws -> [Bool] {
        nonisolated(unsafe) let b = b
        return try await core(
            register: { c, n in
                c.register(Keyed.self) { (_, _: A, _: B) in Keyed(id: n.next()) }.inObjectScope(.multiton)
            },
            resolveA: { try $0.resolveThrows(Keyed.self, arguments: a.0, a.1) },
            resolveB: { try $0.resolveThrows(Keyed.self, arguments: b.0, b.1) },
            resolveBAsync: { try await $0.resolveAsync(Keyed.self, arguments: b.0, b.1) }
        )
    }

    private func shares<A, B, C>(_ a: (A, B, C), _ b: (A, B, C)) async throws -> [Bool] {
        nonisolated(unsafe) let b = b
        return try await core(
            register: { c, n in
                c.register(Keyed.self) { (_, _: A, _: B, _: C) in Keyed(id: n.next()) }.inObjectScope(.multiton)
            },
            resolveA: { try $0.resolveThrows(Keyed.self, arguments: a.0, a.1, a.2) },
            resolveB: { try $0.resolveThrows(Keyed.self, arguments: b.0, b.1, b.2) },
            resolveBAsync: { try await $0.resolveAsync(Keyed.self, arguments: b.0, b.1, b.2) }
        )
    }

    private func shares<A, B, C, D>(_ a: (A, B, C, D), _ b: (A, B, C, D)) async throws -> [Bool] {
        nonisolated(unsafe) let b = b
        return try await core(
            register: { c, n in
                c.register(Keyed.self) { (_, _: A, _: B, _: C, _: D) in Keyed(id: n.next()) }.inObjectScope(.multiton)
            },
            resolveA: { try $0.resolveThrows(Keyed.self, arguments: a.0, a.1, a.2, a.3) },
            resolveB: { try $0.resolveThrows(Keyed.self, arguments: b.0, b.1, b.2, b.3) },
            // Async resolves take up to three arguments.
            resolveBAsync: { try $0.resolveThrows(Keyed.self, arguments: b.0, b.1, b.2, b.3) }
        )
    }

    private func shares<A, B, C, D, E>(_ a: (A, B, C, D, E), _ b: (A, B, C, D, E)) async throws -> [Bool] {
        nonisolated(unsafe) let b = b
        return try await core(
            register: { c, n in
                c.register(Keyed.self) { (_, _: A, _: B, _: C, _: D, _: E) in Keyed(id: n.next()) }
                    .inObjectScope(.multiton)
            },
            resolveA: { try $0.resolveThrows(Keyed.self, arguments: a.0, a.1, a.2, a.3, a.4) },
            resolveB: { try $0.resolveThrows(Keyed.self, arguments: b.0, b.1, b.2, b.3, b.4) },
            // Async resolves take up to three arguments.
            resolveBAsync: { try $0.resolveThrows(Keyed.self, arguments: b.0, b.1, b.2, b.3, b.4) }
        )
    }

    private func shares<A, B, C, D, E, F>(_ a: (A, B, C, D, E, F), _ b: (A, B, C, D, E, F)) async throws -> [Bool] {
        nonisolated(unsafe) let b = b
        return try await core(
            register: { c, n in
                c.register(Keyed.self) { (_, _: A, _: B, _: C, _: D, _: E, _: F) in Keyed(id: n.next()) }
                    .inObjectScope(.multiton)
            },
            resolveA: { try $0.resolveThrows(Keyed.self, arguments: a.0, a.1, a.2, a.3, a.4, a.5) },
            resolveB: { try $0.resolveThrows(Keyed.self, arguments: b.0, b.1, b.2, b.3, b.4, b.5) },
            // Async resolves take up to three arguments.
            resolveBAsync: { try $0.resolveThrows(Keyed.self, arguments: b.0, b.1, b.2, b.3, b.4, b.5) }
        )
    }

    @Test("A nil optional in every position of two to six arguments is a key like any other")
    func nilInEveryPosition() async throws {
        let none = Int?.none
        #expect(try await shares((none, 1), (none, 1)) == [true, true, true, true])
        #expect(try await shares((1, none), (1, Int?.some(0))) == [false, false, false, false])
        #expect(try await shares((1, 2, none), (1, 2, none)) == [true, true, true, true])
        #expect(try await shares((none, 2, 3, 4), (none, 2, 3, 4)) == [true, true, true, true])
        #expect(try await shares((1, 2, 3, 4, none), (1, 2, 3, 4, none)) == [true, true, true, true])
        #expect(try await shares((1, 2, 3, 4, 5, none), (1, 2, 3, 4, 5, none)) == [true, true, true, true])
        #expect(try await shares((1, 2, 3, 4, 5, none), (1, 2, 3, 4, 5, Int?.some(6))) == [false, false, false, false])
        let nested = Int??.some(nil)
        #expect(try await shares((nested, "a", 1.0, 2), (Int??.none, "a", 1.0, 2)) == [false, false, false, false])
        #expect(try await shares((nested, "a", 1.0, 2, 3), (nested, "a", 1.0, 2, 3)) == [true, true, true, true])
        #expect(
            try await shares((nested, "a", 1.0, 2, 3), (Int??.none, "a", 1.0, 2, 3)) == [false, false, false, false]
        )
    }

    @Test("Existentials holding nil, numbers of other types and class hierarchies, at two to five arguments")
    func existentials() async throws {
        let nilAny = Int?.none as Any
        #expect(try await shares((nilAny, 1 as Any), (nilAny, 1 as Any)) == [true, true, true, true])
        #expect(
            try await shares((nilAny, 1 as Any, 2), (nilAny, 1.0 as Any, 2)) == [
                AnyHashable(1) == AnyHashable(1.0), AnyHashable(1) == AnyHashable(1.0),
                AnyHashable(1) == AnyHashable(1.0), AnyHashable(1) == AnyHashable(1.0),
            ]
        )
        let sendable = Int?.none as any Sendable
        #expect(try await shares((1, sendable, 3, 4, 5), (1, sendable, 3, 4, 5)) == [true, true, true, true])
        let tags = (RedTag(1) as Tag, Tag(1))
        let same = AnyHashable(tags.0) == AnyHashable(tags.1)
        #expect(try await shares((tags.0, 1, 2), (tags.1, 1, 2)) == [same, same, same, same])
        #expect(
            try await shares((tags.0 as any Hashable, 1, 2, 3), (tags.1 as any Hashable, 1, 2, 3)) == [
                same, same, same, same,
            ]
        )
        let zero = AnyHashable(0.0) == AnyHashable(-0.0)
        #expect(try await shares((0.0, Double.nan), (-0.0, Double.nan)) == [false, false, false, false])
        #expect(try await shares((0.0, 1, 2, 3, 4), (-0.0, 1, 2, 3, 4)) == [zero, zero, zero, zero])
        // On Linux, `AnyHashable(NSNumber(value: 1)) == AnyHashable(1)` but their hashes differ (Foundation), so
        // a key of an `NSNumber` and one of an `Int` meet only by chance, as in any `[AnyHashable]` dictionary:
        // compared here only between `NSNumber`s, whose hashes agree.
        let n1 = NSNumber(value: 1) as Any
        let n1d = NSNumber(value: 1.0) as Any
        #expect(try await shares((n1, "x"), (n1d, "x")) == [true, true, true, true])
        #expect(try await shares((n1, "x", 2), (n1d, "x", 2)) == [true, true, true, true])
        #expect(try await shares((n1, "x", 2, 3, 4), (n1d, "x", 2, 3, 4)) == [true, true, true, true])
        #expect(
            try await shares(
                (1 as any Hashable, "x" as any Sendable, 2, 3, 4, 5),
                (UInt8(1) as any Hashable, "x" as any Sendable, 2, 3, 4, 5)
            )
                == [true, true, true, true]
        )
    }

    @Test("A non-Hashable argument in any position of two to five fails, naming its type", arguments: [2, 3, 4, 5])
    func notHashable(count: Int) async throws {
        for position in 0..<count {
            let container = Container()
            container.register(Keyed.self) { (_, _: Any, _: Any, _: Any, _: Any, _: Any) in Keyed(id: 0) }
                .inObjectScope(.multiton)
            container.register(Keyed.self) { (_, _: Any, _: Any, _: Any, _: Any) in Keyed(id: 0) }
                .inObjectScope(.multiton)
            container.register(Keyed.self) { (_, _: Any, _: Any, _: Any) in Keyed(id: 0) }
                .inObjectScope(.multiton)
            container.register(Keyed.self) { (_, _: Any, _: Any) in Keyed(id: 0) }
                .inObjectScope(.multiton)
            var args: [Any] = (0..<count).map { $0 as Any }
            args[position] = NotHashable()
            let message: String
            do {
                switch count {
                case 2: _ = try container.resolveThrows(Keyed.self, arguments: args[0], args[1])
                case 3: _ = try container.resolveThrows(Keyed.self, arguments: args[0], args[1], args[2])
                case 4: _ = try container.resolveThrows(Keyed.self, arguments: args[0], args[1], args[2], args[3])
                default:
                    _ = try container.resolveThrows(Keyed.self, arguments: args[0], args[1], args[2], args[3], args[4])
                }
                message = "no error"
            } catch {
                message = "\(error)"
            }
            #expect(
                message.contains("NotHashable") && message.contains("not Hashable"),
                "\(count) at \(position): \(message)"
            )
            var asyncMessage = "no error"
            do {
                switch count {
                case 2: _ = try await container.resolveAsync(Keyed.self, arguments: args[0], args[1])
                default: _ = try await container.resolveAsync(Keyed.self, arguments: args[0], args[1], args[2])
                }
            } catch {
                asyncMessage = "\(error)"
            }
            if count <= 3 {
                #expect(asyncMessage.contains("NotHashable"), "async \(count) at \(position): \(asyncMessage)")
            }
        }
    }
}

// MARK: - A miss's near-miss candidates

private protocol Wanted {}
private final class WantedImpl: Wanted {}
private final class Asker {}

@Suite("Drop rule attack: a miss's candidates and path", .tags(.concurrency, .engine), .swapsLogHandler, .serialized)
struct MissCandidatesAttackTests {
    private func collecting(_ body: () -> Void) -> [(key: ServiceKey, path: [ServiceKey], candidates: [ServiceKey])] {
        let inbox = LoggedErrors()
        let previous = Container.logHandler
        Container.logHandler = { error in
            if case .notRegistered(let key, _, _) = error, key.description.contains("Wanted") {
                inbox.append(error)
            } else {
                previous?(error)
            }
        }
        defer { Container.logHandler = previous }
        body()
        return inbox.all.compactMap {
            if case .notRegistered(let key, let path, let candidates) = $0 { return (key, path, candidates) }
            return nil
        }
    }

    @Test("Candidates from the container and its ancestors, once each, never the key itself; the path to the miss")
    func candidatesAndPath() throws {
        let root = Container()
        root.register((any Wanted).self, name: "a") { _ in WantedImpl() }
        root.register((any Wanted).self) { (_, _: Int) in WantedImpl() }
        let middle = Container(parent: root)
        middle.register((any Wanted).self, name: "a") { _ in WantedImpl() }
        middle.register((any Wanted).self, name: "b") { _ in WantedImpl() }
        let leaf = Container(parent: middle)
        leaf.register((any Wanted).self, name: "b") { _ in WantedImpl() }
        leaf.register((any Wanted).self) { (_, _: String) in WantedImpl() }
        leaf.register(Asker.self) { r in
            _ = r.resolve((any Wanted).self, name: "c")
            return Asker()
        }
        let received = collecting {
            #expect(leaf.resolve((any Wanted).self, name: "c") == nil)
            #expect(leaf.resolve(Asker.self) != nil)
        }
        #expect(received.count == 2)
        let expected: Set<String> = [
            ServiceKey(serviceType: (any Wanted).self, name: "a").description,
            ServiceKey(serviceType: (any Wanted).self, name: "b").description,
            ServiceKey(serviceType: (any Wanted).self, argumentsType: Int.self).description,
            ServiceKey(serviceType: (any Wanted).self, argumentsType: String.self).description,
        ]
        for (index, miss) in received.enumerated() {
            let names = miss.candidates.map(\.description)
            #expect(Set(names) == expected, "\(index): \(names)")
            #expect(names.count == Set(names).count, "\(index): duplicates in \(names)")
            #expect(!miss.candidates.contains(miss.key), "\(index): the key itself")
        }
        #expect(received.first?.path.isEmpty == true, "a top-level miss: \(String(describing: received.first?.path))")
        let nestedPath = received.last?.path.map(\.description) ?? []
        #expect(nestedPath.first == ServiceKey(serviceType: Asker.self).description, "\(nestedPath)")
        // The thrown error says the same.
        do {
            _ = try leaf.resolveThrows((any Wanted).self, name: "c")
            Issue.record("resolved a missing registration")
        } catch {
            guard case .notRegistered(_, let path, let candidates) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(path.isEmpty)
            #expect(Set(candidates.map(\.description)) == expected)
            #expect(candidates.count == expected.count)
        }
    }

    /// Concurrent sets of the log handler while many threads fail resolves (LockedValue, exclusivity unchecked).
    @Test("Handler sets racing failing resolves")
    func racingHandlerSets() async {
        let container = Container().synchronize()
        let received = Counter()
        let previous = Container.logHandler
        defer { Container.logHandler = previous }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    for round in 0..<400 {
                        if worker % 2 == 0 {
                            let handler: (@Sendable (DIError) -> Void)? = { _ in received.increment() }
                            Container.logHandler = round % 3 == 0 ? nil : handler
                            _ = Container.logHandler
                        } else {
                            _ = container.resolve((any Wanted).self, name: "missing\(round % 7)")
                        }
                    }
                }
            }
        }
        // Other tests running meanwhile may fail resolves too, which reach the same global handler: count only
        // this one's, by a name no other test uses.
        let marked = Counter()
        Container.logHandler = { error in
            if case .notRegistered(let key, _, _) = error, key.name == "racingHandlerSets-last" {
                marked.increment()
            }
        }
        _ = container.resolve((any Wanted).self, name: "racingHandlerSets-last")
        #expect(marked.count == 1)
    }
}
