import Foundation
import Keystone
import Testing

// Attacks on disposal (`dispose()`, `disposeAsync()`, `resetObjectScope`, re-registration, `removeAll()`):
// which instances are ended, in what order, exactly once, with nothing left alive afterwards, whatever
// scope each registration had when its instances were made or has now, with creations in flight, with
// handlers and deinitializers that come back to the container, and with other threads resolving.

/// A disposable object that records its end.
private final class Held: Sendable {
    let id: Int
    let label: String
    private let ended: SerialLog?

    init(_ id: Int, _ label: String = "", ended: SerialLog? = nil) {
        self.id = id
        self.label = label
        self.ended = ended
    }

    deinit {
        ended?.add(id)
    }
}

/// A type `Held` is also registered as (`implements`).
private protocol Ending: AnyObject {}

extension Held: Ending {}

/// An object whose deinitializer runs `body`: a way to act when the container lets go of it.
private final class Farewell {
    let body: () -> Void

    init(_ body: @escaping () -> Void) {
        self.body = body
    }

    deinit {
        body()
    }
}

private struct HandlerFailed: Error, Equatable {
    let label: String
}

/// A value-type service.
private struct Ticket {
    let id: Int
}

/// The number of times each value occurs in `values`.
private func occurrences(_ values: [Int]) -> [Int: Int] {
    values.reduce(into: [:]) { $0[$1, default: 0] += 1 }
}

/// The ids of the handler failures in a `disposalFailed` error, in the order reported.
private func failedLabels(_ error: DIError) -> [String] {
    guard case .disposalFailed(let failures) = error else { return ["not disposalFailed: \(error)"] }
    return failures.map { failure in
        guard case .factoryFailed(_, _, let underlying) = failure, let failed = underlying as? HandlerFailed else {
            return "unexpected: \(failure)"
        }
        return failed.label
    }
}

@Suite("Disposal attack: scopes, order and errors", .tags(.engine))
struct DisposalAttackScopeTests {
    @Test("dispose() ends the .container and .multiton instances, newest first, and nothing of the other scopes")
    func onlyKeptInstancesAreDisposed() throws {
        let container = Container()
        let serial = Counter()
        let disposed = EventLog()
        let custom = ObjectScope(storageFactory: PermanentStorage.init, description: "custom")
        let scopes: [(String, ObjectScope)] = [
            ("transient", .transient), ("graph", .graph), ("container", .container), ("weak", .weak),
            ("custom", custom),
        ]
        for (name, scope) in scopes {
            container.register(Held.self, name: name) { _ in Held(serial.next(), name) }
                .inObjectScope(scope)
                .onDispose { disposed.record("\($0.label) \($0.id)") }
        }
        container.register(Held.self, name: "multiton") { (_, _: Int) in Held(serial.next(), "multiton") }
            .inObjectScope(.multiton)
            .onDispose { disposed.record("\($0.label) \($0.id)") }
        var kept: [String: Held] = [:]
        for (name, _) in scopes {
            kept[name] = try container.resolveThrows(Held.self, name: name)
        }
        let first = try container.resolveThrows(Held.self, name: "multiton", argument: 1)
        let second = try container.resolveThrows(Held.self, name: "multiton", argument: 2)
        #expect(try container.resolveThrows(Held.self, name: "multiton", argument: 1) === first)
        let single = try #require(kept["container"])

        try container.dispose()
        #expect(disposed.all == ["multiton \(second.id)", "multiton \(first.id)", "container \(single.id)"])

        // Dropped: a second dispose() ends nothing, and new resolves make new instances.
        try container.dispose()
        #expect(disposed.all.count == 3)
        let next = try container.resolveThrows(Held.self, name: "container")
        #expect(next !== single)
        let nextFirst = try container.resolveThrows(Held.self, name: "multiton", argument: 1)
        #expect(nextFirst !== first)
        try container.dispose()
        #expect(disposed.all.dropFirst(3) == ["multiton \(nextFirst.id)", "container \(next.id)"])
    }

    @Test("What dispose() ends is released: the container keeps no reference to it")
    func disposedInstancesAreReleased() throws {
        let container = Container()
        let serial = Counter()
        let ended = SerialLog()
        let disposed = SerialLog()
        container.register(Held.self) { _ in Held(serial.next(), ended: ended) }
            .inObjectScope(.container)
            .onDispose { disposed.add($0.id) }
        container.register(Held.self, name: "multiton") { (_, _: String) in Held(serial.next(), ended: ended) }
            .inObjectScope(.multiton)
            .onDispose { disposed.add($0.id) }
        container.register(Held.self, name: "graph") { _ in Held(serial.next(), ended: ended) }
            .onDispose { disposed.add($0.id) }
        weak var single: Held?
        weak var a: Held?
        weak var b: Held?
        do {
            single = try container.resolveThrows(Held.self)
            a = try container.resolveThrows(Held.self, name: "multiton", argument: "a")
            b = try container.resolveThrows(Held.self, name: "multiton", argument: "b")
            _ = try container.resolveThrows(Held.self, name: "graph")
        }
        #expect(single != nil && a != nil && b != nil, "the container holds its instances until dispose()")
        try container.dispose()
        #expect(single == nil && a == nil && b == nil)
        #expect(Set(disposed.all) == [1, 2, 3])
        #expect(disposed.all.count == 3)
        #expect(Set(ended.all) == [1, 2, 3, 4])
    }

    @Test("Handlers run newest completion first across registrations, each registration's in the order added")
    func handlerOrder() throws {
        let container = Container()
        let serial = Counter()
        let events = EventLog()
        container.register(Held.self, name: "leaf") { _ in Held(serial.next(), "leaf") }
            .inObjectScope(.container)
            .onDispose { events.record("leaf-1 \($0.id)") }
            .onDispose { events.record("leaf-2 \($0.id)") }
        container.register(Held.self, name: "middle") { (r, _: Int) in
            _ = try r.resolveThrows(Held.self, name: "leaf")
            return Held(serial.next(), "middle")
        }
        .inObjectScope(.multiton)
        .onDispose { events.record("middle-1 \($0.id)") }
        .onDispose { events.record("middle-2 \($0.id)") }
        .onDispose { events.record("middle-3 \($0.id)") }
        container.register(Held.self, name: "root") { r in
            _ = try r.resolveThrows(Held.self, name: "middle", argument: 1)
            return Held(serial.next(), "root")
        }
        .inObjectScope(.container)
        .onDispose { events.record("root-1 \($0.id)") }
        // Completions: leaf (1), middle for 1 (2), root (3), then middle for 2 (4).
        let root = try container.resolveThrows(Held.self, name: "root")
        let later = try container.resolveThrows(Held.self, name: "middle", argument: 2)
        #expect(root.id == 3 && later.id == 4)
        try container.dispose()
        #expect(
            events.all == [
                "middle-1 4", "middle-2 4", "middle-3 4", "root-1 3", "middle-1 2", "middle-2 2", "middle-3 2",
                "leaf-1 1", "leaf-2 1",
            ]
        )
    }

    @Test("Every handler runs when some throw; the errors come once all ran, in the order they were thrown")
    func throwingHandlers() throws {
        let container = Container()
        let events = EventLog()
        container.register(Held.self, name: "first") { _ in Held(1) }
            .inObjectScope(.container)
            .onDispose { _ in events.record("first a") }
            .onDispose { _ in
                events.record("first b")
                throw HandlerFailed(label: "first b")
            }
            .onDispose { _ in events.record("first c") }
        container.register(Held.self, name: "second") { (_, id: Int) in Held(id) }
            .inObjectScope(.multiton)
            .onDispose { held in
                events.record("second \(held.id)")
                throw HandlerFailed(label: "second \(held.id)")
            }
        weak var first: Held?
        do {
            first = try container.resolveThrows(Held.self, name: "first")
            _ = try container.resolveThrows(Held.self, name: "second", argument: 7)
        }
        do {
            try container.dispose()
            Issue.record("dispose() did not report the handlers' errors")
        } catch {
            #expect(failedLabels(error) == ["second 7", "first b"])
        }
        #expect(events.all == ["second 7", "first a", "first b", "first c"])
        #expect(first == nil, "an instance whose handler threw is dropped all the same")
        // Nothing is left to end, and nothing throws any more.
        try container.dispose()
        #expect(events.all.count == 4)
    }

    @Test("A handler added after the instance exists runs; one added to disposeAsync() only is skipped by dispose()")
    func handlersAddedLater() async throws {
        let container = Container()
        let events = EventLog()
        let entry = container.register(Held.self) { _ in Held(1) }.inObjectScope(.container)
        let made = try container.resolveThrows(Held.self)
        entry.onDispose { events.record("sync \($0.id)") }
        entry.onDisposeAsync { events.record("async \($0.id)") }
        entry.onDispose { events.record("sync again \($0.id)") }
        try container.dispose()
        #expect(events.all == ["sync 1", "sync again 1"])
        #expect(try container.resolveThrows(Held.self) !== made)
        try await container.disposeAsync()
        #expect(events.all.dropFirst(2) == ["sync 1", "async 1", "sync again 1"])
    }

    @Test("A handler added while disposal runs is not run by that disposal, and is by the next")
    func handlerAddedDuringDisposal() throws {
        let container = Container()
        let events = EventLog()
        let serial = Counter()
        var entry: ServiceEntry<Held>?
        entry = container.register(Held.self) { _ in Held(serial.next()) }
            .inObjectScope(.container)
            .onDispose { held in
                events.record("first \(held.id)")
                if held.id == 1 {
                    entry?.onDispose { events.record("added \($0.id)") }
                }
            }
        _ = try container.resolveThrows(Held.self)
        try container.dispose()
        #expect(events.all == ["first 1"])
        _ = try container.resolveThrows(Held.self)
        try container.dispose()
        #expect(events.all == ["first 1", "first 2", "added 2"])
        entry = nil
    }

    @Test("A value-type .container instance is disposed, once")
    func valueTypeInstance() throws {
        let container = Container()
        let serial = Counter()
        let disposed = SerialLog()
        container.register(Ticket.self) { _ in Ticket(id: serial.next()) }
            .inObjectScope(.container)
            .onDispose { disposed.add($0.id) }
        #expect(try container.resolveThrows(Ticket.self).id == 1)
        #expect(try container.resolveThrows(Ticket.self).id == 1)
        try container.dispose()
        try container.dispose()
        #expect(disposed.all == [1])
        #expect(try container.resolveThrows(Ticket.self).id == 2)
    }

    @Test("Many registrations that keep nothing, beside a few that do: only the kept are disposed")
    func requestScopeShape() throws {
        let parent = Container()
        let disposed = EventLog()
        parent.register(Held.self, name: "app") { _ in Held(0, "app") }
            .inObjectScope(.container)
            .onDispose { disposed.record("app \($0.id)") }
        let app = try parent.resolveThrows(Held.self, name: "app")
        for request in 1...20 {
            let child = Container(parent: parent)
            for index in 0..<30 {
                child.register(Held.self, name: "graph \(index)") { _ in Held(index, "graph") }
                    .onDispose { disposed.record("graph \($0.id)") }
                child.register(Held.self, name: "transient \(index)") { _ in Held(index, "transient") }
                    .inObjectScope(.transient)
                    .onDispose { disposed.record("transient \($0.id)") }
            }
            child.register(Held.self, name: "unit") { r in
                _ = try r.resolveThrows(Held.self, name: "app")
                return Held(request, "unit")
            }
            .inObjectScope(.container)
            .onDispose { disposed.record("unit \($0.id)") }
            for index in 0..<30 {
                _ = try child.resolveThrows(Held.self, name: "graph \(index)")
                _ = try child.resolveThrows(Held.self, name: "transient \(index)")
            }
            _ = try child.resolveThrows(Held.self, name: "unit")
            #expect(try child.resolveThrows(Held.self, name: "app") === app)
            try child.dispose()
            #expect(disposed.all.last == "unit \(request)")
        }
        #expect(disposed.all == (1...20).map { "unit \($0)" })
        #expect(try parent.resolveThrows(Held.self, name: "app") === app)
        try parent.dispose()
        #expect(disposed.all.last == "app 0")
        #expect(disposed.all.count == 21)
    }
}

@Suite("Disposal attack: a scope changed after instances were made", .tags(.engine))
struct DisposalAttackScopeChangeTests {
    /// A registration of `Held` taking an `Int`, in `scope`, that counts its creations and disposals.
    private static func register(
        in container: Container,
        scope: ObjectScope,
        serial: Counter,
        ended: SerialLog,
        disposed: SerialLog
    ) -> ServiceEntry<Held> {
        container.register(Held.self) { (_, _: Int) in Held(serial.next(), ended: ended) }
            .inObjectScope(scope)
            .onDispose { disposed.add($0.id) }
    }

    @Test(".multiton, then .container: the multiton instances are dropped, and only the new instance is disposed")
    func multitonToContainer() throws {
        let container = Container()
        let serial = Counter()
        let ended = SerialLog()
        let disposed = SerialLog()
        let entry = Self.register(in: container, scope: .multiton, serial: serial, ended: ended, disposed: disposed)
        do {
            for argument in 1...3 {
                _ = try container.resolveThrows(Held.self, argument: argument)
            }
        }
        #expect(ended.all.isEmpty)
        entry.inObjectScope(.container)
        #expect(Set(ended.all) == [1, 2, 3], "changing the scope lets go of the multiton instances")
        let single = try container.resolveThrows(Held.self, argument: 1)
        #expect(single.id == 4)
        #expect(try container.resolveThrows(Held.self, argument: 2) === single)
        try container.dispose()
        #expect(disposed.all == [4])
        try container.dispose()
        #expect(disposed.all == [4])
        // Back to .multiton: nothing of the first instances comes back.
        entry.inObjectScope(.multiton)
        let again = try container.resolveThrows(Held.self, argument: 1)
        #expect(again.id == 5)
        try container.dispose()
        #expect(disposed.all == [4, 5])
    }

    @Test(".container, then .multiton: the .container instance is dropped, and only the multiton ones are disposed")
    func containerToMultiton() throws {
        let container = Container()
        let serial = Counter()
        let ended = SerialLog()
        let disposed = SerialLog()
        let entry = Self.register(in: container, scope: .container, serial: serial, ended: ended, disposed: disposed)
        do {
            _ = try container.resolveThrows(Held.self, argument: 1)
        }
        entry.inObjectScope(.multiton)
        #expect(ended.all == [1])
        let two = try container.resolveThrows(Held.self, argument: 2)
        let three = try container.resolveThrows(Held.self, argument: 3)
        #expect(try container.resolveThrows(Held.self, argument: 2) === two)
        try container.dispose()
        #expect(disposed.all == [three.id, two.id])
        try container.dispose()
        #expect(disposed.all.count == 2)
        // And back to .container: a new single instance, disposed once.
        entry.inObjectScope(.container)
        let single = try container.resolveThrows(Held.self, argument: 2)
        #expect(single !== two)
        try container.dispose()
        #expect(disposed.all == [three.id, two.id, single.id])
    }

    @Test(
        "Kept instances, then a scope that keeps nothing: dispose() ends nothing and nothing stays alive",
        arguments: [
            "graph", "transient", "weak", "custom",
        ]
    )
    func toScopeThatKeepsNothing(_ target: String) throws {
        let scopes: [String: ObjectScope] = [
            "graph": .graph, "transient": .transient, "weak": .weak,
            "custom": ObjectScope(storageFactory: PermanentStorage.init, description: "custom"),
        ]
        let scope = try #require(scopes[target])
        for start in [ObjectScope.container, .multiton] {
            let container = Container()
            let serial = Counter()
            let ended = SerialLog()
            let disposed = SerialLog()
            let entry = Self.register(in: container, scope: start, serial: serial, ended: ended, disposed: disposed)
            do {
                _ = try container.resolveThrows(Held.self, argument: 1)
                _ = try container.resolveThrows(Held.self, argument: 2)
            }
            let made = serial.count
            entry.inObjectScope(scope)
            #expect(ended.all.count == made, "\(start) to \(target): the kept instances are let go")
            do {
                _ = try container.resolveThrows(Held.self, argument: 1)
            }
            try container.dispose()
            #expect(disposed.all.isEmpty, "\(start) to \(target)")
            // Back to the first scope: its instances are new, and each is disposed once.
            entry.inObjectScope(start)
            let fresh = try container.resolveThrows(Held.self, argument: 1)
            #expect(fresh.id > made + 1)
            try container.dispose()
            try container.dispose()
            #expect(disposed.all == [fresh.id], "\(start) to \(target) and back")
        }
    }

    @Test("A scope changed back and forth many times never disposes an instance twice nor leaks one")
    func scopeChurn() throws {
        let container = Container()
        let serial = Counter()
        let ended = SerialLog()
        let disposed = SerialLog()
        let entry = Self.register(in: container, scope: .multiton, serial: serial, ended: ended, disposed: disposed)
        let cycle: [ObjectScope] = [.multiton, .container, .graph, .multiton, .weak, .container, .transient]
        var disposedExpected: [Int] = []
        for round in 0..<35 {
            let scope = cycle[round % cycle.count]
            entry.inObjectScope(scope)
            let before = serial.count
            do {
                for argument in 0..<(round % 4 + 1) {
                    _ = try container.resolveThrows(Held.self, argument: argument)
                }
            }
            let made = serial.count > before ? Array((before + 1)...serial.count) : []
            if round % 3 == 0 {
                try container.dispose()
                if scope === ObjectScope.multiton || scope === ObjectScope.container {
                    disposedExpected += made.reversed()
                }
            }
        }
        try container.dispose()
        try container.dispose()
        entry.inObjectScope(.graph)
        #expect(occurrences(disposed.all).values.allSatisfy { $0 == 1 })
        #expect(disposed.all == disposedExpected)
        #expect(Set(ended.all) == Set(1...serial.count), "every instance is let go")
        #expect(ended.all.count == serial.count)
    }
}

@Suite("Disposal attack: what resets, re-registrations and removals drop", .tags(.engine))
struct DisposalAttackDropTests {
    @Test("resetObjectScope(.multiton) ends the multiton instances only, newest first; dispose() the rest")
    func resetMultiton() throws {
        let container = Container()
        let events = EventLog()
        container.register(Held.self, name: "m") { (_, id: Int) in Held(id) }
            .inObjectScope(.multiton)
            .onDispose { events.record("m \($0.id)") }
        container.register(Held.self, name: "c") { _ in Held(0) }
            .inObjectScope(.container)
            .onDispose { events.record("c \($0.id)") }
        let kept = try container.resolveThrows(Held.self, name: "m", argument: 1)
        _ = try container.resolveThrows(Held.self, name: "c")
        _ = try container.resolveThrows(Held.self, name: "m", argument: 2)
        container.resetObjectScope(.multiton)
        #expect(events.all == ["m 2", "m 1"])
        #expect(try container.resolveThrows(Held.self, name: "m", argument: 1) !== kept)
        try container.dispose()
        #expect(events.all == ["m 2", "m 1", "m 1", "c 0"])
    }

    @Test("resetObjectScope(_:serviceType:) ends the instances of that type only")
    func resetOneType() throws {
        let container = Container()
        let events = EventLog()
        container.register(Held.self) { (_, id: Int) in Held(id) }
            .inObjectScope(.multiton)
            .onDispose { events.record("held \($0.id)") }
        container.register(Ticket.self) { (_, id: Int) in Ticket(id: id) }
            .inObjectScope(.multiton)
            .onDispose { events.record("ticket \($0.id)") }
        _ = try container.resolveThrows(Held.self, argument: 1)
        _ = try container.resolveThrows(Ticket.self, argument: 2)
        container.resetObjectScope(.multiton, serviceType: Ticket.self)
        #expect(events.all == ["ticket 2"])
        container.resetObjectScope(.container, serviceType: Held.self)
        #expect(events.all == ["ticket 2"], "a reset of another scope ends nothing")
        try container.dispose()
        #expect(events.all == ["ticket 2", "held 1"])
    }

    @Test("removeAll() ends every kept instance once; dispose() afterwards ends nothing")
    func removeAllEnds() throws {
        let container = Container()
        let events = EventLog()
        let ended = SerialLog()
        container.register(Held.self, name: "m") { (_, id: Int) in Held(id, ended: ended) }
            .inObjectScope(.multiton)
            .onDispose { events.record("m \($0.id)") }
        container.register(Held.self, name: "c") { _ in Held(0, ended: ended) }
            .inObjectScope(.container)
            .onDispose { events.record("c \($0.id)") }
        do {
            _ = try container.resolveThrows(Held.self, name: "c")
            _ = try container.resolveThrows(Held.self, name: "m", argument: 5)
        }
        container.removeAll()
        #expect(events.all == ["m 5", "c 0"])
        #expect(Set(ended.all) == [0, 5])
        try container.dispose()
        #expect(events.all.count == 2)
    }

    @Test("Re-registering ends the old instances with the old handlers; the new handlers see only new instances")
    func reRegistration() throws {
        let container = Container()
        let events = EventLog()
        let old = container.register(Held.self) { (_, id: Int) in Held(id, "old") }
            .inObjectScope(.multiton)
            .onDispose { events.record("old \($0.id)") }
        _ = try container.resolveThrows(Held.self, argument: 1)
        _ = try container.resolveThrows(Held.self, argument: 2)
        container.register(Held.self) { (_, id: Int) in Held(id, "new") }
            .inObjectScope(.multiton)
            .onDispose { events.record("new \($0.id)") }
        #expect(events.all == ["old 2", "old 1"])
        // The replaced registration is configured further: nothing it held is left to end.
        old.onDispose { events.record("late \($0.id)") }
        old.inObjectScope(.container)
        let fresh = try container.resolveThrows(Held.self, argument: 1)
        #expect(fresh.label == "new")
        try container.dispose()
        #expect(events.all == ["old 2", "old 1", "new 1"])
    }

    @Test("A replaced registration still reached through a forwarded key is disposed once, with its own handlers")
    func replacedButForwarded() throws {
        let container = Container()
        let events = EventLog()
        container.register(Held.self) { _ in Held(1, "old") }
            .inObjectScope(.container)
            .onDispose { events.record("old \($0.id)") }
            .implements(Ending.self)
        let first = try container.resolveThrows(Held.self)
        container.register(Held.self) { _ in Held(2, "new") }
            .inObjectScope(.container)
            .onDispose { events.record("new \($0.id)") }
        #expect(events.all.isEmpty, "the forwarded key still reaches the old registration")
        #expect(try container.resolveThrows(Ending.self) === first)
        _ = try container.resolveThrows(Held.self)
        try container.dispose()
        #expect(events.all.sorted() == ["new 2", "old 1"])
        try container.dispose()
        #expect(events.all.count == 2)
    }

    @Test("A child's dispose() ends only the child's instances, never its parent's")
    func childLeavesParentAlone() throws {
        let parent = Container()
        let events = EventLog()
        parent.register(Held.self, name: "app") { _ in Held(0, "app") }
            .inObjectScope(.container)
            .onDispose { events.record("app \($0.id)") }
        parent.register(Held.self, name: "shared") { (_, id: Int) in Held(id, "shared") }
            .inObjectScope(.multiton)
            .onDispose { events.record("shared \($0.id)") }
        let child = Container(parent: parent)
        child.register(Held.self, name: "own") { r in
            _ = try r.resolveThrows(Held.self, name: "app")
            _ = try r.resolveThrows(Held.self, name: "shared", argument: 9)
            return Held(1, "own")
        }
        .inObjectScope(.container)
        .onDispose { events.record("own \($0.id)") }
        let app = try child.resolveThrows(Held.self, name: "app")
        _ = try child.resolveThrows(Held.self, name: "own")
        try child.dispose()
        #expect(events.all == ["own 1"])
        #expect(try parent.resolveThrows(Held.self, name: "app") === app)
        child.resetObjectScope(.multiton)
        #expect(events.all == ["own 1", "shared 9"], "a reset reaches the ancestors' instances, as documented")
        try parent.dispose()
        #expect(events.all == ["own 1", "shared 9", "app 0"])
    }
}

@Suite("Disposal attack: handlers and deinitializers that come back to the container", .tags(.engine))
struct DisposalAttackReentryTests {
    @Test(
        "A factory that calls dispose() and then changes its registration's scope: its instance is ended once",
        arguments: ["graph", "transient", "weak"]
    )
    func factoryDisposesThenChangesScope(_ target: String) throws {
        let targets: [String: ObjectScope] = ["graph": .graph, "transient": .transient, "weak": .weak]
        let scope = try #require(targets[target])
        let container = Container()
        let disposed = SerialLog()
        final class EntryBox {
            var entry: ServiceEntry<Held>?
        }
        let box = EntryBox()
        box.entry = container.register(Held.self) { [unowned container] _ in
            // dispose() drops the creation in flight; the scope then changes before the factory returns.
            try? container.dispose()
            box.entry?.inObjectScope(scope)
            return Held(7)
        }
        .inObjectScope(.container)
        .onDispose { disposed.add($0.id) }
        #expect(container.resolve(Held.self)?.id == 7)
        #expect(disposed.all == [7], "\(target): the instance dispose() dropped in flight is ended by its creation")
        try container.dispose()
        #expect(disposed.all == [7], "\(target): and only once")
    }

    @Test("A handler that resolves during dispose() makes an instance the next dispose() ends")
    func handlerResolves() throws {
        let container = Container()
        let events = EventLog()
        let serial = Counter()
        container.register(Held.self, name: "other") { _ in Held(serial.next(), "other") }
            .inObjectScope(.container)
            .onDispose { events.record("other \($0.id)") }
        container.register(Held.self) { _ in Held(serial.next(), "main") }
            .inObjectScope(.container)
            .onDispose { [unowned container] held in
                events.record("main \(held.id)")
                let other = try container.resolveThrows(Held.self, name: "other")
                events.record("resolved other \(other.id)")
                // Resolving the registration being disposed of makes a new instance.
                let again = try container.resolveThrows(Held.self)
                events.record("resolved main \(again.id)")
            }
        _ = try container.resolveThrows(Held.self)
        try container.dispose()
        #expect(events.all == ["main 1", "resolved other 2", "resolved main 3"])
        try container.dispose()
        // The second dispose() takes both instances first: the handler of the newer one finds the other
        // already gone, and makes another.
        #expect(
            events.all == [
                "main 1", "resolved other 2", "resolved main 3", "main 3", "resolved other 4", "resolved main 5",
                "other 2",
            ]
        )
    }

    @Test("A handler that calls dispose() again ends nothing twice")
    func handlerDisposesAgain() throws {
        let container = Container()
        let disposed = SerialLog()
        let failures = EventLog()
        for index in 1...4 {
            container.register(Held.self, name: "\(index)") { _ in Held(index) }
                .inObjectScope(.container)
                .onDispose { [unowned container] held in
                    disposed.add(held.id)
                    do {
                        try container.dispose()
                    } catch {
                        failures.record("\(error)")
                    }
                }
            _ = try container.resolveThrows(Held.self, name: "\(index)")
        }
        try container.dispose()
        #expect(disposed.all == [4, 3, 2, 1])
        #expect(failures.all.isEmpty)
    }

    @Test("A deinitializer that resolves and registers while disposal lets go of its instance")
    func deinitComesBack() throws {
        let container = Container()
        let events = EventLog()
        container.register(Held.self, name: "other") { _ in Held(7) }
            .inObjectScope(.container)
            .onDispose { events.record("other \($0.id)") }
        container.register(Farewell.self) { [unowned container] _ in
            Farewell {
                let other = container.resolve(Held.self, name: "other")
                events.record("deinit resolved \(other?.id ?? -1)")
                container.register(Ticket.self) { _ in Ticket(id: 1) }
            }
        }
        .inObjectScope(.container)
        .onDispose { _ in events.record("farewell disposed") }
        _ = try container.resolveThrows(Farewell.self)
        try container.dispose()
        #expect(events.all == ["farewell disposed", "deinit resolved 7"])
        #expect(try container.resolveThrows(Ticket.self).id == 1)
        try container.dispose()
        #expect(events.all.last == "other 7")
    }

    @Test("Deinitializers that resolve while a scope change, a reset or a re-registration lets go of them")
    func deinitDuringDrops() throws {
        let container = Container()
        let events = EventLog()
        container.register(Held.self) { _ in Held(3) }.inObjectScope(.container)
        let entry = container.register(Farewell.self) { [unowned container] (_, name: String) in
            Farewell {
                let held = container.resolve(Held.self)
                events.record("\(name) ended, resolved \(held?.id ?? -1)")
            }
        }
        .inObjectScope(.multiton)
        _ = try container.resolveThrows(Farewell.self, argument: "a")
        _ = try container.resolveThrows(Farewell.self, argument: "b")
        entry.inObjectScope(.container)
        #expect(events.all.sorted() == ["a ended, resolved 3", "b ended, resolved 3"])
        _ = try container.resolveThrows(Farewell.self, argument: "c")
        container.resetObjectScope(.container)
        #expect(events.all.count == 3 && events.all.last == "c ended, resolved 3")
        entry.inObjectScope(.multiton)
        _ = try container.resolveThrows(Farewell.self, argument: "d")
        container.register(Farewell.self) { (_, _: String) in Farewell {} }
        #expect(events.all.count == 4 && events.all.last == "d ended, resolved 3")
    }

    @Test("Instances kept in variables outlive dispose(): still usable, ended once, never handed out again")
    func keptAfterDispose() throws {
        let container = Container()
        let disposed = SerialLog()
        let serial = Counter()
        container.register(Held.self) { (_, _: Int) in Held(serial.next()) }
            .inObjectScope(.multiton)
            .onDispose { disposed.add($0.id) }
        let kept = try (0..<5).map { try container.resolveThrows(Held.self, argument: $0) }
        try container.dispose()
        #expect(disposed.all == [5, 4, 3, 2, 1])
        #expect(kept.map(\.id) == [1, 2, 3, 4, 5])
        let again = try (0..<5).map { try container.resolveThrows(Held.self, argument: $0) }
        #expect(zip(kept, again).allSatisfy { $0 !== $1 })
        try container.dispose()
        #expect(disposed.all == [5, 4, 3, 2, 1, 10, 9, 8, 7, 6])
    }
}

/// A service made by an async factory.
private final class Pending: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

@Suite("Disposal attack: creations in flight", .hangLimit, .tags(.concurrency, .engine))
struct DisposalAttackInFlightTests {
    /// Registers an async `Pending` taking an `Int`, in `scope`, whose first creation waits for `release`
    /// after opening `entered`.
    @discardableResult
    private static func register(
        in container: Container,
        scope: ObjectScope,
        entered: Gate,
        release: Gate,
        disposed: SerialLog,
        disposedAsync: SerialLog? = nil
    ) -> ServiceEntry<Pending> {
        let serial = Counter()
        let entry = container.registerAsync(Pending.self) { (_, _: Int) in
            let id = serial.next()
            if id == 1 {
                entered.open()
                await release.wait()
            }
            return Pending(id: id)
        }
        .inObjectScope(scope)
        .onDispose { disposed.add($0.id) }
        if let disposedAsync {
            entry.onDisposeAsync { disposedAsync.add($0.id) }
        }
        return entry
    }

    @Test(
        "dispose() while an async creation is in flight ends its instance once, when it is made",
        arguments: [
            "container", "multiton",
        ]
    )
    func disposeDuringFlight(_ scopeName: String) async throws {
        let scope: ObjectScope = scopeName == "container" ? .container : .multiton
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let disposed = SerialLog()
        Self.register(in: container, scope: scope, entered: entered, release: release, disposed: disposed)
        // Registrations that keep nothing, visited while the creation is in flight.
        container.register(Held.self, name: "graph") { _ in Held(0) }.onDispose { disposed.add(100 + $0.id) }
        container.register(Held.self, name: "transient") { _ in Held(1) }
            .inObjectScope(.transient)
            .onDispose { disposed.add(100 + $0.id) }
        let view = container.synchronize()
        _ = view.resolve(Held.self, name: "graph")
        let pending = Task { try await view.resolveAsync(Pending.self, argument: 1) }
        await entered.wait()
        try container.dispose()
        try container.dispose()
        #expect(disposed.all.isEmpty)
        release.open()
        let made = try await pending.value
        #expect(made.id == 1)
        #expect(disposed.all == [1])
        // It was not kept: the next resolve makes another, which dispose() ends once.
        let next = try await view.resolveAsync(Pending.self, argument: 1)
        #expect(next.id == 2)
        try container.dispose()
        try container.dispose()
        #expect(disposed.all == [1, 2])
    }

    @Test(
        "disposeAsync() waits for a creation in flight and runs all its handlers once",
        arguments: [
            "container", "multiton",
        ]
    )
    func disposeAsyncDuringFlight(_ scopeName: String) async throws {
        let scope: ObjectScope = scopeName == "container" ? .container : .multiton
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let disposed = SerialLog()
        let disposedAsync = SerialLog()
        Self.register(
            in: container,
            scope: scope,
            entered: entered,
            release: release,
            disposed: disposed,
            disposedAsync: disposedAsync
        )
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(Pending.self, argument: 1) }
        await entered.wait()
        nonisolated(unsafe) let disposable = container
        let disposing = Task { try await disposable.disposeAsync() }
        // Give the disposal time to start waiting; it must not finish before the creation does.
        try await Task.sleep(for: .milliseconds(50))
        #expect(disposedAsync.all.isEmpty)
        release.open()
        try await disposing.value
        #expect(try await pending.value.id == 1)
        #expect(disposed.all == [1])
        #expect(disposedAsync.all == [1])
        try await container.disposeAsync()
        #expect(disposed.all == [1] && disposedAsync.all == [1])
    }

    @Test(
        "dispose() during a creation, then a scope change before it ends: its handlers still run once",
        arguments: ["graph", "transient", "weak", "container", "multiton"]
    )
    func scopeChangedAfterDisposeDuringFlight(_ target: String) async throws {
        let targets: [String: ObjectScope] = [
            "graph": .graph, "transient": .transient, "weak": .weak, "container": .container, "multiton": .multiton,
        ]
        let scope = try #require(targets[target])
        for start in [ObjectScope.container, .multiton] where start !== scope {
            let container = Container()
            let entered = Gate()
            let release = Gate()
            let disposed = SerialLog()
            let entry = Self.register(
                in: container,
                scope: start,
                entered: entered,
                release: release,
                disposed: disposed
            )
            let view = container.synchronize()
            let pending = Task { try await view.resolveAsync(Pending.self, argument: 1) }
            await entered.wait()
            try container.dispose()
            entry.inObjectScope(scope)
            release.open()
            #expect(try await pending.value.id == 1)
            // dispose() leaves the instance of a creation in flight to that creation, which runs the
            // synchronous handlers when it ends, whatever the registration's scope has become meanwhile.
            let ended = disposed.all
            #expect(ended == [1], "\(start) to \(target): the instance dispose() took is ended once")
            try container.dispose()
            #expect(disposed.all == ended, "\(start) to \(target): nothing ends twice")
        }
    }

    @Test("A scope change while a creation is in flight: nothing ends twice, and the scope keeps only new instances")
    func scopeChangedDuringFlight() async throws {
        for (start, target) in [(ObjectScope.multiton, ObjectScope.container), (.container, .multiton)] {
            let container = Container()
            let entered = Gate()
            let release = Gate()
            let disposed = SerialLog()
            let entry = Self.register(
                in: container,
                scope: start,
                entered: entered,
                release: release,
                disposed: disposed
            )
            let view = container.synchronize()
            let pending = Task { try await view.resolveAsync(Pending.self, argument: 1) }
            await entered.wait()
            entry.inObjectScope(target)
            release.open()
            #expect(try await pending.value.id == 1)
            let next = try await view.resolveAsync(Pending.self, argument: 1)
            #expect(next.id == 2, "\(start) to \(target): the creation started before the change is not kept")
            #expect(try await view.resolveAsync(Pending.self, argument: 1) === next)
            try container.dispose()
            try container.dispose()
            #expect(disposed.all.last == 2)
            #expect(occurrences(disposed.all).values.allSatisfy { $0 == 1 }, "\(start) to \(target): \(disposed.all)")
        }
    }

    @Test("A cancelled waiter does not cancel the creation; dispose() meanwhile ends its instance once")
    func cancelledWaiter() async throws {
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let disposed = SerialLog()
        Self.register(in: container, scope: .multiton, entered: entered, release: release, disposed: disposed)
        let view = container.synchronize()
        let first = Task { try await view.resolveAsync(Pending.self, argument: 1) }
        await entered.wait()
        // Joins the creation in flight, or, if it comes after dispose(), starts one of its own.
        let second = Task { try await view.resolveAsync(Pending.self, argument: 1) }
        try await Task.sleep(for: .milliseconds(20))
        first.cancel()
        try container.dispose()
        let cancelled = await first.result
        #expect(throws: (any Error).self) { try cancelled.get() }
        release.open()
        let joined = try await second.value
        try container.dispose()
        let expected = Set([1, joined.id])
        #expect(Set(disposed.all) == expected)
        try container.dispose()
        #expect(disposed.all.count == expected.count, "nothing ends twice: \(disposed.all)")
    }

    @Test("Tasks spawned by factories, resolving while the container disposes: every kept instance ends once")
    func tasksSpawnedByFactories() async throws {
        let container = Container()
        let serial = Counter()
        let disposed = SerialLog()
        let made = SerialLog()
        container.registerAsync(Pending.self, name: "leaf") { (_, _: Int) in
            await Task.yield()
            let id = serial.next()
            made.add(id)
            return Pending(id: id)
        }
        .inObjectScope(.multiton)
        .onDispose { disposed.add($0.id) }
        let view = container.synchronize()
        container.registerAsync(Pending.self, name: "root") { (_, fanOut: Int) in
            let spawned = (0..<fanOut).map { argument in
                Task { try await view.resolveAsync(Pending.self, name: "leaf", argument: argument) }
            }
            for task in spawned {
                _ = try await task.value
            }
            let id = serial.next()
            made.add(id)
            return Pending(id: id)
        }
        .inObjectScope(.container)
        .onDispose { disposed.add($0.id) }
        nonisolated(unsafe) let disposable = container
        try await withThrowingTaskGroup(of: Void.self) { group in
            for round in 0..<20 {
                group.addTask { _ = try await view.resolveAsync(Pending.self, name: "root", argument: round % 5 + 1) }
            }
            group.addTask {
                for _ in 0..<20 {
                    try await disposable.disposeAsync()
                    await Task.yield()
                }
            }
            try await group.waitForAll()
        }
        try await container.disposeAsync()
        let counts = occurrences(disposed.all)
        #expect(counts.values.allSatisfy { $0 == 1 }, "ended twice: \(counts.filter { $0.value > 1 })")
        #expect(Set(disposed.all) == Set(made.all), "every instance made was kept and ended, or ended when made")
    }
}

@Suite("Disposal attack: other threads resolving", .hangLimit, .tags(.concurrency, .engine))
struct DisposalAttackThreadTests {
    @Test("The synchronized view on several threads while another thread disposes: every instance ends once")
    func resolvesWhileDisposing() throws {
        let container = Container()
        let serial = Counter()
        let made = SerialLog()
        let disposed = SerialLog()
        let wrong = SerialLog()
        container.register(Held.self, name: "single") { _ in
            let id = serial.next()
            made.add(id)
            return Held(id)
        }
        .inObjectScope(.container)
        .onDispose { disposed.add($0.id) }
        container.register(Held.self, name: "multi") { (r, _: Int) in
            _ = try r.resolveThrows(Held.self, name: "single")
            let id = serial.next()
            made.add(id)
            return Held(id)
        }
        .inObjectScope(.multiton)
        .onDispose { disposed.add($0.id) }
        container.register(Held.self, name: "graph") { r in
            _ = try r.resolveThrows(Held.self, name: "multi", argument: 0)
            return Held(-1)
        }
        .onDispose { wrong.add($0.id) }
        container.register(Held.self, name: "transient") { _ in Held(-2) }
            .inObjectScope(.transient)
            .onDispose { wrong.add($0.id) }
        let view = container.synchronize()
        nonisolated(unsafe) let disposable = container
        let failures = EventLog()
        DispatchQueue.concurrentPerform(iterations: 5) { worker in
            for step in 0..<300 {
                if worker == 0 {
                    do {
                        try disposable.dispose()
                    } catch {
                        failures.record("\(error)")
                    }
                    if step % 10 == 0 {
                        disposable.resetObjectScope(.multiton)
                    }
                } else {
                    _ = view.resolve(Held.self, name: "multi", argument: step % 7)
                    _ = view.resolve(Held.self, name: "graph")
                    _ = view.resolve(Held.self, name: "transient")
                    if view.resolve(Held.self, name: "single") == nil {
                        failures.record("no single")
                    }
                }
            }
        }
        try container.dispose()
        #expect(failures.all.isEmpty)
        #expect(wrong.all.isEmpty)
        let counts = occurrences(disposed.all)
        #expect(counts.values.allSatisfy { $0 == 1 }, "ended twice: \(counts.filter { $0.value > 1 })")
        #expect(Set(disposed.all) == Set(made.all))
    }

    @Test("Request scopes on several threads: each ends its own instances once, never the parent's")
    func requestScopesOnThreads() throws {
        let parent = Container()
        let parentDisposed = SerialLog()
        let childDisposed = SerialLog()
        let requests = Counter()
        parent.register(Held.self, name: "app") { _ in Held(0) }
            .inObjectScope(.container)
            .onDispose { parentDisposed.add($0.id) }
        parent.register(Held.self, name: "pool") { (_, id: Int) in Held(id) }
            .inObjectScope(.multiton)
            .onDispose { parentDisposed.add($0.id) }
        let view = parent.synchronize()
        let app = try #require(view.resolve(Held.self, name: "app"))
        let failures = EventLog()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<100 {
                let request = requests.next()
                let child = view.makeChild { child in
                    child.register(Held.self, name: "unit") { r in
                        _ = try r.resolveThrows(Held.self, name: "app")
                        _ = try r.resolveThrows(Held.self, name: "pool", argument: request % 3 + 1)
                        return Held(request)
                    }
                    .inObjectScope(.container)
                    .onDispose { childDisposed.add($0.id) }
                    child.register(Held.self, name: "step") { (_, id: Int) in Held(-id) }
                        .inObjectScope(.multiton)
                        .onDispose { childDisposed.add($0.id) }
                    child.register(Held.self, name: "graph") { _ in Held(0) }
                        .onDispose { _ in failures.record("graph disposed") }
                }
                let scope = child.synchronize()
                _ = scope.resolve(Held.self, name: "unit")
                _ = scope.resolve(Held.self, name: "step", argument: request)
                _ = scope.resolve(Held.self, name: "graph")
                if scope.resolve(Held.self, name: "app") !== app {
                    failures.record("app changed")
                }
                do {
                    try child.dispose()
                    try child.dispose()
                } catch {
                    failures.record("\(error)")
                }
            }
        }
        #expect(failures.all.isEmpty)
        #expect(parentDisposed.all.isEmpty)
        let expected = (1...400).flatMap { [$0, -$0] }
        #expect(childDisposed.all.sorted() == expected.sorted())
        try parent.dispose()
        #expect(parentDisposed.all.sorted() == [0, 1, 2, 3])
    }

    @Test("Handlers added on one thread while another resolves and disposes: each disposal runs a prefix of them")
    func handlersAddedWhileDisposing() throws {
        let container = Container()
        let serial = Counter()
        let runs = EventLog()
        // Configured on another thread: `onDispose` takes the hierarchy's lock.
        nonisolated(unsafe) let entry = container.register(Held.self) { (_, _: Int) in Held(serial.next()) }
            .inObjectScope(.multiton)
        let view = container.synchronize()
        nonisolated(unsafe) let disposable = container
        let failures = EventLog()
        let added = 200
        DispatchQueue.concurrentPerform(iterations: 3) { worker in
            for step in 0..<added {
                switch worker {
                case 0:
                    entry.onDispose { runs.record("\($0.id) \(step)") }
                case 1:
                    _ = view.resolve(Held.self, argument: step % 3)
                default:
                    do {
                        try disposable.dispose()
                    } catch {
                        failures.record("\(error)")
                    }
                }
            }
        }
        let last = try container.resolveThrows(Held.self, argument: 99)
        try container.dispose()
        #expect(failures.all.isEmpty)
        // Per instance, the handlers that ran are the first ones added, in order, each once.
        var byInstance: [Int: [Int]] = [:]
        for run in runs.all {
            let parts = run.split(separator: " ").compactMap { Int($0) }
            byInstance[parts[0], default: []].append(parts[1])
        }
        for (id, steps) in byInstance {
            #expect(steps == Array(0..<steps.count), "instance \(id): \(steps)")
        }
        #expect(byInstance[last.id] == Array(0..<added))
    }

    @Test("Async resolves of .multiton and .container on several tasks while disposeAsync() loops")
    func asyncResolvesWhileDisposing() async throws {
        let container = Container()
        let serial = Counter()
        let made = SerialLog()
        let disposed = SerialLog()
        let disposedAsync = SerialLog()
        container.registerAsync(Pending.self) { (_, _: Int) in
            await Task.yield()
            let id = serial.next()
            made.add(id)
            return Pending(id: id)
        }
        .inObjectScope(.multiton)
        .onDispose { disposed.add($0.id) }
        .onDisposeAsync { disposedAsync.add($0.id) }
        container.registerAsync(Pending.self, name: "single") { _ in
            await Task.yield()
            let id = serial.next()
            made.add(id)
            return Pending(id: id)
        }
        .inObjectScope(.container)
        .onDispose { disposed.add($0.id) }
        .onDisposeAsync { disposedAsync.add($0.id) }
        let view = container.synchronize()
        nonisolated(unsafe) let disposable = container
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for step in 0..<60 {
                        _ = try await view.resolveAsync(Pending.self, argument: (worker + step) % 5)
                        _ = try await view.resolveAsync(Pending.self, name: "single")
                    }
                }
            }
            group.addTask {
                for _ in 0..<60 {
                    try await disposable.disposeAsync()
                    await Task.yield()
                }
            }
            try await group.waitForAll()
        }
        try await container.disposeAsync()
        let counts = occurrences(disposed.all)
        #expect(counts.values.allSatisfy { $0 == 1 }, "ended twice: \(counts.filter { $0.value > 1 })")
        #expect(Set(disposed.all) == Set(made.all))
        #expect(disposedAsync.all.sorted() == disposed.all.sorted())
    }

    /// A creation's instance is kept under the lock; its flight used to leave the hierarchy's creations in
    /// flight only under a later one. A disposal between the two took the instance twice: once as kept,
    /// once as the flight's (the asynchronous handlers ran twice, the synchronous ones once).
    @Test(
        "disposeAsync() racing creations that have just ended ends each instance once",
        arguments: [ObjectScope.container, .multiton]
    )
    func disposalRacingTheEndOfCreations(scope: ObjectScope) async throws {
        let container = Container()
        let serial = Counter()
        let made = SerialLog()
        let disposed = SerialLog()
        let disposedAsync = SerialLog()
        container.registerAsync(Pending.self) { (_, _: Int) in
            let id = serial.next()
            made.add(id)
            return Pending(id: id)
        }
        .inObjectScope(scope)
        .onDispose { disposed.add($0.id) }
        .onDisposeAsync { disposedAsync.add($0.id) }
        let view = container.synchronize()
        nonisolated(unsafe) let disposable = container
        let rounds = 5_000
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<2 {
                group.addTask {
                    for step in 0..<rounds {
                        _ = try await view.resolveAsync(Pending.self, argument: (worker + step) % 2)
                    }
                }
            }
            group.addTask {
                for _ in 0..<rounds {
                    try await disposable.disposeAsync()
                }
            }
            try await group.waitForAll()
        }
        try await container.disposeAsync()
        let counts = occurrences(disposed.all)
        let asyncCounts = occurrences(disposedAsync.all)
        #expect(counts.values.allSatisfy { $0 == 1 }, "ended twice: \(counts.filter { $0.value > 1 })")
        #expect(asyncCounts.values.allSatisfy { $0 == 1 }, "ended twice: \(asyncCounts.filter { $0.value > 1 })")
        #expect(Set(disposed.all) == Set(made.all))
        #expect(Set(disposedAsync.all) == Set(made.all))
    }
}
