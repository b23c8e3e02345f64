import Foundation
import Keystone
import Testing

// Attacks on two engine shortcuts: a failed resolve remembers the last service type it found to be no
// wrapper, and a creation that `dispose()` (or a reset, or a re-registration) drops while its factory
// runs ends its instance according to the scope it was dropped from.

private final class Absent {}
private final class Elsewhere {}

private final class Item: Sendable {
    let id: Int
    init(_ id: Int) { self.id = id }
}

private protocol Speaker: AnyObject {
    var id: Int { get }
}

private final class Loud: Speaker {
    let id: Int
    init(_ id: Int) { self.id = id }
}

private final class Outer {
    let item: Item?
    init(_ item: Item?) { self.item = item }
}

private final class EntryBox<Service> {
    var entry: ServiceEntry<Service>?
}

/// The missing key of a `notRegistered` error, its path and its candidates, as service types and names.
private func missDetails(_ error: DIError) -> (key: ServiceKey, path: [ServiceKey], candidates: [ServiceKey])? {
    guard case .notRegistered(let key, let path, let candidates) = error else { return nil }
    return (key, path, candidates)
}

private func failure<T>(_ result: Result<T, DIError>) -> DIError? {
    if case .failure(let error) = result { return error }
    return nil
}

@Suite("Miss memo attack: wrappers and registrations after misses", .tags(.engine))
struct MissMemoAttackWrapperTests {
    @Test("Every wrapper shape resolves right after a miss of another type, named and with arguments")
    func wrappersAfterMiss() {
        let container = Container()
        container.register(Item.self) { _ in Item(1) }
        container.register(Item.self, name: "named") { _ in Item(2) }
        container.register(Item.self) { (_, value: Int) in Item(value) }
        // The graph identifier is served without a registration, inside a graph.
        container.register(Item.self, name: "graph") { resolver in
            Item(resolver.resolve(GraphIdentifier.self) == nil ? -1 : 3)
        }
        for _ in 0..<3 {
            #expect(container.resolve(Absent.self) == nil)
            #expect(container.resolve(Lazy<Item>.self)?.instance.id == 1)
            #expect(container.resolve(Absent.self) == nil)
            #expect(container.resolve(Provider<Item>.self)?.instance.id == 1)
            #expect(container.resolve(Absent.self) == nil)
            #expect(container.resolve(Item?.self)??.id == 1)
            #expect(container.resolve(Absent.self) == nil)
            #expect(container.resolve(Lazy<Item>?.self)??.instance.id == 1)
            #expect(container.resolve(Absent.self) == nil)
            #expect(container.resolve(Item.self, name: "graph")?.id == 3)
            #expect(container.resolve(Absent.self) == nil)
            #expect(container.resolve(Lazy<Item>.self, name: "named")?.instance.id == 2)
            #expect(container.resolve(Absent.self, name: "named") == nil)
            #expect(container.resolve(Provider<Item>.self, name: "named")?.instance.id == 2)
            #expect(container.resolve(Absent.self, argument: 5) == nil)
            #expect(container.resolve(Item.self, argument: 5)?.id == 5)
            #expect(container.resolve(Item?.self, argument: 6)??.id == 6)
            #expect(container.resolve(Absent.self, argument: 5) == nil)
            #expect(container.resolve(Provider<Item>.self, argument: 7)?.instance.id == 7)
        }
    }

    @Test(
        "A miss of the very type a wrapper wraps, then the wrapper: the wrapper of nothing fails, the Optional is nil"
    )
    func wrapperOfMissedType() {
        let container = Container()
        for _ in 0..<3 {
            #expect(container.resolve(Absent.self) == nil)
            #expect(container.resolve(Lazy<Absent>.self) == nil)
            #expect(container.resolve(Absent.self) == nil)
            // `Optional<Absent>` is a wrapper: it resolves to an Optional holding nil, not a failure.
            let optional = container.resolve(Absent?.self)
            #expect(optional != nil)
            #expect(optional.flatMap { $0 } == nil)
            #expect(container.resolve(Absent.self) == nil)
            #expect(container.resolve(Provider<Absent>.self) == nil)
        }
        // Once registered, the same sequence succeeds throughout.
        container.register(Absent.self) { _ in Absent() }
        #expect(container.resolve(Absent.self) != nil)
        #expect(container.resolve(Lazy<Absent>.self)?.instance != nil)
        #expect(container.resolve(Absent?.self)?.flatMap { $0 } != nil)
    }

    @Test("A miss, then the type registered directly, in the parent, or through implements: it resolves")
    func registeredAfterMiss() {
        let container = Container()
        for _ in 0..<2 { #expect(container.resolve(Item.self) == nil) }
        container.register(Item.self) { _ in Item(3) }
        #expect(container.resolve(Item.self)?.id == 3)
        #expect(container.resolve(Lazy<Item>.self)?.instance.id == 3)

        let parent = Container()
        let child = Container(parent: parent)
        for _ in 0..<2 {
            #expect(child.resolve(Item.self) == nil)
            #expect(parent.resolve(Item.self) == nil)
        }
        parent.register(Item.self) { _ in Item(4) }
        #expect(child.resolve(Item.self)?.id == 4)
        #expect(child.synchronize().resolve(Item.self)?.id == 4)

        let forwarding = Container()
        for _ in 0..<2 { #expect(forwarding.resolve((any Speaker).self) == nil) }
        forwarding.register(Loud.self) { _ in Loud(5) }.implements((any Speaker).self)
        #expect(forwarding.resolve((any Speaker).self)?.id == 5)
        #expect(forwarding.resolve(Lazy<any Speaker>.self)?.instance.id == 5)
        #expect(forwarding.resolve(Absent.self) == nil)
        #expect(forwarding.resolve((any Speaker).self)?.id == 5)
    }

    @Test("removeAll() between misses and registrations: nothing stale resolves, nothing new fails")
    func removeAllBetween() {
        let container = Container()
        container.register(Item.self) { _ in Item(1) }
        #expect(container.resolve(Absent.self) == nil)
        container.removeAll()
        #expect(container.resolve(Item.self) == nil)
        #expect(container.resolve(Item.self) == nil)
        #expect(container.resolve(Lazy<Item>.self) == nil)
        container.register(Item.self) { _ in Item(2) }
        #expect(container.resolve(Item.self)?.id == 2)
        #expect(container.resolve(Provider<Item>.self)?.instance.id == 2)
        container.removeAll()
        #expect(container.resolve(Item.self) == nil)
        container.register(Absent.self) { _ in Absent() }
        #expect(container.resolve(Absent.self) != nil)
    }

    @Test("Misses alternate between types and between separate hierarchies")
    func alternatingTypesAndHierarchies() {
        let first = Container()
        let second = Container()
        let secondChild = Container(parent: second)
        first.register(Item.self) { _ in Item(1) }
        second.register(Item.self) { _ in Item(2) }
        for round in 0..<4 {
            let missing: Any.Type = round.isMultiple(of: 2) ? Absent.self : Elsewhere.self
            if missing == Absent.self {
                #expect(first.resolve(Absent.self) == nil)
                #expect(secondChild.resolve(Elsewhere.self) == nil)
            } else {
                #expect(first.resolve(Elsewhere.self) == nil)
                #expect(secondChild.resolve(Absent.self) == nil)
            }
            #expect(second.resolve(Lazy<Item>.self)?.instance.id == 2)
            #expect(first.resolve(Item?.self)??.id == 1)
            #expect(secondChild.resolve(Provider<Item>.self)?.instance.id == 2)
            #expect(first.resolve(Absent.self) == nil)
            #expect(first.resolve(Elsewhere.self) == nil)
            #expect(first.resolve(Lazy<Item>.self)?.instance.id == 1)
        }
    }
}

@Suite("Miss memo attack: errors stay exact", .tags(.engine))
struct MissMemoAttackErrorTests {
    @Test("Repeated misses report the same key, path and candidates, through resolveThrows and resolveResult")
    func repeatedErrorsExact() throws {
        let container = Container()
        container.register(Item.self, name: "one") { _ in Item(1) }
        container.register(Item.self) { (_, value: Int) in Item(value) }
        var seen: [String] = []
        for _ in 0..<4 {
            let thrown = #expect(throws: DIError.self) { try container.resolveThrows(Item.self) }
            let error = try #require(thrown)
            let details = try #require(missDetails(error))
            #expect(details.key.serviceType == Item.self && details.key.name == nil)
            #expect(details.path.isEmpty)
            #expect(Set(details.candidates.map { $0.name ?? "-" }) == ["one", "-"])
            #expect(details.candidates.count == 2)
            seen.append(error.description)
            let other = try #require(failure(container.resolveResult(Item.self, name: "two")))
            #expect(missDetails(other)?.key.name == "two")
            seen.append(other.description)
        }
        #expect(Set(seen).count == 2)
    }

    @Test("A miss inside a factory names the path, alternating with misses of the same type at top level")
    func nestedMissesKeepTheirPath() throws {
        let container = Container()
        container.register(Outer.self) { resolver in
            Outer(try? resolver.resolveThrows(Item.self, name: "gone"))
        }
        container.register(Outer.self, name: "strict") { resolver in
            Outer(try resolver.resolveThrows(Item.self, name: "gone"))
        }
        for _ in 0..<3 {
            let top = try #require(failure(container.resolveResult(Item.self, name: "gone")))
            #expect(missDetails(top)?.path.isEmpty == true)
            #expect(container.resolve(Outer.self)?.item == nil)
            let nested = try #require(failure(container.resolveResult(Outer.self, name: "strict")))
            let details = try #require(missDetails(nested), "expected notRegistered, got \(nested)")
            #expect(details.key.serviceType == Item.self && details.key.name == "gone")
            #expect(details.path.map(\.name) == ["strict"])
            #expect(details.path.first?.serviceType == Outer.self)
        }
    }

    @Test("verify() and dependencyGraph() report a nested miss each time, between misses at top level")
    func verifyAfterMisses() throws {
        let container = Container()
        container.register(Outer.self) { resolver in Outer(resolver.resolve(Item.self)) }
        container.register(Elsewhere.self) { resolver in
            _ = try resolver.resolveThrows(Absent.self)
            return Elsewhere()
        }
        for _ in 0..<3 {
            #expect(container.resolve(Absent.self) == nil)
            #expect(container.resolve(Item.self) == nil)
            let errors = container.verify()
            let misses = errors.compactMap(missDetails)
            #expect(
                misses.contains { $0.key.serviceType == Absent.self && $0.path.first?.serviceType == Elsewhere.self }
            )
            #expect(container.resolve(Absent.self) == nil)
            let graph = container.dependencyGraph()
            #expect(graph.edges.contains { $0.from.serviceType == Outer.self && $0.to.serviceType == Item.self })
            #expect(graph.edges.contains { $0.from.serviceType == Elsewhere.self && $0.to.serviceType == Absent.self })
        }
        container.register(Absent.self) { _ in Absent() }
        #expect(container.verify().compactMap(missDetails).allSatisfy { $0.key.serviceType != Absent.self })
        #expect(container.resolve(Elsewhere.self) != nil)
    }
}

/// Counts resolves that returned the wrong thing, from many threads.
private final class Tally: @unchecked Sendable {
    // @unchecked: `wrong` is used only under `lock`.
    private let lock = NSLock()
    private var wrong: [String] = []

    func check(_ ok: Bool, _ what: @autoclosure () -> String) {
        guard !ok else { return }
        let text = what()
        lock.lock()
        wrong.append(text)
        lock.unlock()
    }

    var failures: [String] {
        lock.lock()
        defer { lock.unlock() }
        return wrong
    }
}

@Suite("Miss memo attack: threads and tasks", .hangLimit, .tags(.engine, .concurrency))
struct MissMemoAttackConcurrencyTests {
    @Test("Threads mix misses and wrapper resolves through views of one hierarchy")
    func threadsMixMissesAndWrappers() {
        let parent = Container()
        parent.register(Item.self) { _ in Item(1) }
        let child = Container(parent: parent)
        child.register(Item.self, name: "child") { _ in Item(2) }
        let views = [parent.synchronize(), child.synchronize()]
        let tally = Tally()
        DispatchQueue.concurrentPerform(iterations: 8) { worker in
            let view = views[worker % 2]
            for round in 0..<300 {
                switch (worker + round) % 6 {
                case 0:
                    tally.check(view.resolve(Absent.self) == nil, "Absent resolved")
                case 1:
                    tally.check(view.resolve(Lazy<Item>.self)?.instance.id == 1, "Lazy<Item>")
                case 2:
                    tally.check(view.resolve(Elsewhere.self) == nil, "Elsewhere resolved")
                case 3:
                    tally.check(view.resolve(Provider<Item>.self)?.instance.id == 1, "Provider<Item>")
                case 4:
                    tally.check(view.resolve(Item?.self)??.id == 1, "Item?")
                default:
                    if worker.isMultiple(of: 2) {
                        tally.check(view.resolve(Item.self, name: "child") == nil, "child name from the parent")
                    } else {
                        tally.check(view.resolve(Lazy<Item>.self, name: "child")?.instance.id == 2, "named Lazy")
                    }
                }
            }
        }
        let failures = Set(tally.failures)
        #expect(failures.isEmpty)
    }

    @Test("Tasks mix async misses and wrapper resolves on one hierarchy")
    func tasksMixAsyncMisses() async throws {
        let container = Container()
        container.register(Item.self) { _ in Item(1) }
        container.registerAsync(Item.self, name: "async") { _ in
            await Task.yield()
            return Item(9)
        }
        let view = container.synchronize()
        let tally = Tally()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<8 {
                group.addTask {
                    for round in 0..<50 {
                        if (task + round).isMultiple(of: 2) {
                            do {
                                _ = try await view.resolveAsync(Absent.self)
                                tally.check(false, "Absent resolved")
                            } catch {
                                tally.check(
                                    (error as? DIError).flatMap(missDetails)?.key.serviceType == Absent.self,
                                    "\(error)"
                                )
                            }
                        } else {
                            tally.check(view.resolve(Lazy<Item>.self)?.instance.id == 1, "Lazy<Item>")
                            let made = try? await view.resolveAsync(Item.self, name: "async")
                            tally.check(made?.id == 9, "async Item")
                        }
                    }
                }
            }
        }
        let failures = Set(tally.failures)
        #expect(failures.isEmpty)
    }
}

// MARK: - Creations dropped in flight

private let scopesByName: [String: ObjectScope] = [
    "graph": .graph, "transient": .transient, "weak": .weak, "container": .container,
    "custom": ObjectScope(storageFactory: PermanentStorage.init, description: "custom"),
]

private func occurrences(_ values: [Int]) -> [Int: Int] {
    values.reduce(into: [:]) { $0[$1, default: 0] += 1 }
}

@Suite("Miss memo attack: creations dropped while their factory runs", .tags(.engine))
struct MissMemoAttackDropTests {
    @Test(
        "A .container factory calls dispose() then changes its scope: its instance ends exactly once",
        arguments: ["graph", "transient", "weak", "container", "custom"]
    )
    func disposeThenScope(_ target: String) throws {
        let scope = try #require(scopesByName[target])
        let container = Container()
        let disposed = SerialLog()
        let serial = Counter()
        let box = EntryBox<Item>()
        box.entry = container.register(Item.self) { [unowned container] _ in
            let id = serial.next()
            if id == 1 {
                try? container.dispose()
                box.entry?.inObjectScope(scope)
            }
            return Item(id)
        }
        .inObjectScope(.container)
        .onDispose { disposed.add($0.id) }
        #expect(container.resolve(Item.self)?.id == 1)
        #expect(disposed.all == [1], "\(target)")
        try container.dispose()
        try container.dispose()
        #expect(occurrences(disposed.all)[1] == 1, "\(target): \(disposed.all)")
        // The dropped instance was not kept: the next resolve makes another.
        #expect(container.resolve(Item.self)?.id == 2, "\(target)")
    }

    @Test(
        "A .multiton factory with an argument calls dispose() then changes its scope: its instance ends once",
        arguments: ["graph", "transient", "weak", "container"]
    )
    func multitonDisposeThenScope(_ target: String) throws {
        let scope = try #require(scopesByName[target])
        let container = Container()
        let disposed = SerialLog()
        let serial = Counter()
        let box = EntryBox<Item>()
        box.entry = container.register(Item.self) { [unowned container] (_, _: Int) in
            let id = serial.next()
            if id == 1 {
                try? container.dispose()
                box.entry?.inObjectScope(scope)
            }
            return Item(id)
        }
        .inObjectScope(.multiton)
        .onDispose { disposed.add($0.id) }
        #expect(container.resolve(Item.self, argument: 4)?.id == 1)
        #expect(disposed.all == [1], "\(target)")
        try container.dispose()
        #expect(occurrences(disposed.all)[1] == 1, "\(target): \(disposed.all)")
    }

    @Test(
        "A factory whose scope keeps nothing calls dispose() (then maybe switches to .container): no handler runs",
        arguments: ["graph", "transient", "weak"]
    )
    func nonDisposingStart(_ start: String) throws {
        let scope = try #require(scopesByName[start])
        for switchesToContainer in [false, true] {
            let container = Container()
            let disposed = SerialLog()
            let serial = Counter()
            let box = EntryBox<Item>()
            box.entry = container.register(Item.self) { [unowned container] _ in
                let id = serial.next()
                if id == 1 {
                    try? container.dispose()
                    if switchesToContainer {
                        box.entry?.inObjectScope(.container)
                    }
                }
                return Item(id)
            }
            .inObjectScope(scope)
            .onDispose { disposed.add($0.id) }
            #expect(container.resolve(Item.self)?.id == 1)
            try container.dispose()
            #expect(disposed.all.isEmpty, "\(start), switched: \(switchesToContainer): \(disposed.all)")
            if switchesToContainer {
                // The registration is now .container: what it makes from now on is kept and ended.
                #expect(container.resolve(Item.self)?.id == 2)
                try container.dispose()
                #expect(disposed.all == [2])
            }
        }
    }

    @Test(
        "resetObjectScope or re-registration drops a .container creation in flight: its instance ends once",
        arguments: ["reset", "reregister"]
    )
    func resetOrReregister(_ how: String) throws {
        let container = Container()
        let disposed = SerialLog()
        let serial = Counter()
        let box = EntryBox<Item>()
        box.entry = container.register(Item.self) { [unowned container] _ in
            let id = serial.next()
            if id == 1 {
                if how == "reset" {
                    container.resetObjectScope(.container)
                } else {
                    container.register(Item.self) { _ in Item(100 + serial.next()) }
                        .inObjectScope(.container)
                        .onDispose { disposed.add($0.id) }
                }
                box.entry?.inObjectScope(.transient)
            }
            return Item(id)
        }
        .inObjectScope(.container)
        .onDispose { disposed.add($0.id) }
        #expect(container.resolve(Item.self)?.id == 1)
        #expect(disposed.all == [1], "\(how)")
        try container.dispose()
        #expect(occurrences(disposed.all)[1] == 1, "\(how): \(disposed.all)")
    }

    @Test("Nested .container factories both dropped by dispose() from the inner one, the outer's scope changed")
    func nestedDrops() throws {
        let container = Container()
        let disposed = SerialLog()
        let outer = EntryBox<Outer>()
        let serial = Counter()
        outer.entry = container.register(Outer.self) { resolver in Outer(resolver.resolve(Item.self)) }
            .inObjectScope(.container)
            .onDispose { disposed.add(1000 + ($0.item?.id ?? 0)) }
        container.register(Item.self) { [unowned container] _ in
            let id = serial.next()
            if id == 1 {
                try? container.dispose()
                outer.entry?.inObjectScope(.transient)
            }
            return Item(id)
        }
        .inObjectScope(.container)
        .onDispose { disposed.add($0.id) }
        #expect(container.resolve(Outer.self)?.item?.id == 1)
        #expect(Set(disposed.all) == [1, 1001])
        try container.dispose()
        #expect(occurrences(disposed.all).values.allSatisfy { $0 == 1 }, "\(disposed.all)")
    }

    @Test(
        "Dropped from .container, then the scope changes and the registration is dropped again: it still ends once",
        arguments: ["dispose", "reset", "reregister"]
    )
    func droppedTwice(_ second: String) throws {
        let container = Container()
        let disposed = SerialLog()
        let serial = Counter()
        let box = EntryBox<Item>()
        box.entry = container.register(Item.self) { [unowned container] _ in
            let id = serial.next()
            if id == 1 {
                try? container.dispose()
                box.entry?.inObjectScope(.graph)
                switch second {
                case "dispose": try? container.dispose()
                case "reset": container.resetObjectScope(.graph)
                default: container.register(Item.self) { _ in Item(100) }
                }
            }
            return Item(id)
        }
        .inObjectScope(.container)
        .onDispose { disposed.add($0.id) }
        #expect(container.resolve(Item.self)?.id == 1)
        // A second drop, from a scope that keeps nothing, does not undo the first, from .container.
        #expect(disposed.all == [1], "\(second): the instance dispose() dropped from .container ends")
        try container.dispose()
        #expect(occurrences(disposed.all)[1] == 1, "\(second): \(disposed.all)")
    }
}

private final class Pending: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

@Suite("Miss memo attack: async creations dropped in flight", .hangLimit, .tags(.engine, .concurrency))
struct MissMemoAttackFlightTests {
    private static func register(
        in container: Container,
        scope: ObjectScope,
        entered: Gate,
        release: Gate,
        disposed: SerialLog,
        disposedAsync: SerialLog
    ) -> ServiceEntry<Pending> {
        let serial = Counter()
        return container.registerAsync(Pending.self) { (_, _: Int) in
            let id = serial.next()
            if id == 1 {
                entered.open()
                await release.wait()
            }
            return Pending(id: id)
        }
        .inObjectScope(scope)
        .onDispose { disposed.add($0.id) }
        .onDisposeAsync { disposedAsync.add($0.id) }
    }

    @Test(
        "dispose() and disposeAsync() during a flight, a scope change, a cancelled waiter: each handler once",
        arguments: ["graph", "transient", "weak", "custom"]
    )
    func disposeBothWaysThenScope(_ target: String) async throws {
        let scope = try #require(scopesByName[target])
        for start in [ObjectScope.container, .multiton] {
            let container = Container()
            let entered = Gate()
            let release = Gate()
            let disposed = SerialLog()
            let disposedAsync = SerialLog()
            let entry = Self.register(
                in: container,
                scope: start,
                entered: entered,
                release: release,
                disposed: disposed,
                disposedAsync: disposedAsync
            )
            let view = container.synchronize()
            let first = Task { try await view.resolveAsync(Pending.self, argument: 1) }
            await entered.wait()
            let joined = Task { try await view.resolveAsync(Pending.self, argument: 1) }
            try await Task.sleep(for: .milliseconds(20))
            try container.dispose()
            nonisolated(unsafe) let disposable = container
            let disposing = Task { try await disposable.disposeAsync() }
            entry.inObjectScope(scope)
            first.cancel()
            let cancelled = await first.result
            #expect(throws: (any Error).self) { try cancelled.get() }
            release.open()
            try await disposing.value
            let other = try await joined.value
            #expect(disposed.all.first == 1, "\(start) to \(target): \(disposed.all)")
            #expect(occurrences(disposed.all)[1] == 1, "\(start) to \(target): \(disposed.all)")
            try await container.disposeAsync()
            try container.dispose()
            #expect(occurrences(disposed.all).values.allSatisfy { $0 == 1 }, "\(start) to \(target): \(disposed.all)")
            #expect(
                occurrences(disposedAsync.all).values.allSatisfy { $0 == 1 },
                "\(start) to \(target): \(disposedAsync.all)"
            )
            #expect(other.id >= 1)
        }
    }

    @Test(
        "A scope change alone during a flight drops it: the instance is handed over, neither kept nor ended",
        arguments: ["graph", "transient", "container"]
    )
    func scopeChangeWithoutDispose(_ target: String) async throws {
        let scope = try #require(scopesByName[target])
        let container = Container()
        let entered = Gate()
        let release = Gate()
        let disposed = SerialLog()
        let disposedAsync = SerialLog()
        let entry = Self.register(
            in: container,
            scope: .container,
            entered: entered,
            release: release,
            disposed: disposed,
            disposedAsync: disposedAsync
        )
        let view = container.synchronize()
        let pending = Task { try await view.resolveAsync(Pending.self, argument: 1) }
        await entered.wait()
        entry.inObjectScope(scope)
        release.open()
        #expect(try await pending.value.id == 1)
        // The creation was dropped by the scope change alone, which drops instances without disposing of
        // them, as it does a held one: its instance is handed over, neither kept nor ended.
        #expect(disposed.all.isEmpty, "\(target): \(disposed.all)")
        #expect(try await view.resolveAsync(Pending.self, argument: 1).id == 2, "\(target): not kept")
        try await container.disposeAsync()
        #expect(occurrences(disposed.all)[1] == nil, "\(target): \(disposed.all)")
        #expect(disposedAsync.all.allSatisfy { $0 != 1 }, "\(target): \(disposedAsync.all)")
    }
}
