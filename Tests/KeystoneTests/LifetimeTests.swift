import Dispatch
import Foundation
import Keystone
import Testing

// Lifetimes: disposal in reverse completion order, per-argument instances (.multiton), and collections
// of services (resolveAll).

/// A service of the disposal tests: its number and the services it was made from.
private final class Node {
    let number: Int
    let dependencies: [Node]
    init(number: Int, dependencies: [Node]) {
        self.number = number
        self.dependencies = dependencies
    }
}

private struct Failure: Error, CustomStringConvertible {
    let text: String
    var description: String { text }
}

private final class Session: Sendable {
    let user: Int
    init(user: Int) { self.user = user }
}

private struct Unhashable {
    let value: Int
}

private protocol Plugin: AnyObject {
    var name: String { get }
}

private final class NamedPlugin: Plugin {
    let name: String
    let shared: SharedState?
    init(name: String, shared: SharedState? = nil) {
        self.name = name
        self.shared = shared
    }
}

private final class SharedState {}

/// A code whose `==` ignores case.
private struct CaseInsensitiveCode: Hashable {
    let text: String

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.text.lowercased() == rhs.text.lowercased()
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(text.lowercased())
    }
}

/// A class hierarchy whose base declares `Hashable`, by identifier.
private class KeyedAnimal: Hashable {
    let id: Int

    init(id: Int) {
        self.id = id
    }

    static func == (lhs: KeyedAnimal, rhs: KeyedAnimal) -> Bool {
        lhs.id == rhs.id
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(id)
    }
}

private final class KeyedCat: KeyedAnimal {}

private final class KeyedDog: KeyedAnimal {}

/// The key of `Node` under the name of `number`.
private func nodeName(_ number: Int) -> String { "node\(number)" }

@Suite("Disposal", .tags(.concurrency, .engine), .hangLimit)
struct DisposalTests {
    @Test func twentyServicesAreDisposedDependentsFirst() throws {
        let container = Container()
        let log = EventLog()
        // Node i depends on the nodes i/2 and i/3 (those below it): a DAG of 20.
        var dependenciesOf: [Int: [Int]] = [:]
        for number in 0..<20 {
            let dependencies = Array(Set([number / 2, number / 3].filter { $0 < number })).sorted()
            dependenciesOf[number] = dependencies
            container.register(Node.self, name: nodeName(number)) { r in
                Node(
                    number: number,
                    dependencies: try dependencies.map { try r.resolveThrows(Node.self, name: nodeName($0)) }
                )
            }
            .inObjectScope(.container)
            .onDispose { node in log.record(nodeName(node.number)) }
        }
        // Resolve in a scrambled order, so that registration order and completion order differ.
        for number in [7, 19, 3, 12, 0, 15, 1, 18, 5, 9, 2, 14, 4, 11, 6, 17, 8, 13, 10, 16] {
            _ = try container.resolveThrows(Node.self, name: nodeName(number))
        }
        try container.dispose()
        let order = log.all
        #expect(order.count == 20)
        #expect(Set(order).count == 20, "each instance is disposed once")
        for (number, dependencies) in dependenciesOf {
            let position = try #require(order.firstIndex(of: nodeName(number)))
            for dependency in dependencies {
                let dependencyPosition = try #require(order.firstIndex(of: nodeName(dependency)))
                #expect(position < dependencyPosition, "node\(number) before its dependency node\(dependency)")
            }
        }
        // Disposing again finds nothing: the instances were dropped.
        try container.dispose()
        #expect(log.all.count == 20)
    }

    @Test func everyHandlerRunsWhenSomeThrowAndTheErrorsComeBackTogether() throws {
        let container = Container()
        let log = EventLog()
        container.register(String.self, name: "a") { _ in "a" }
            .inObjectScope(.container)
            .onDispose { _ in
                log.record("a1")
                throw Failure(text: "a1 failed")
            }
            .onDispose { _ in log.record("a2") }
        container.register(String.self, name: "b") { _ in "b" }
            .inObjectScope(.container)
            .onDispose { _ in
                log.record("b")
                throw Failure(text: "b failed")
            }
        container.register(String.self, name: "c") { _ in "c" }
            .inObjectScope(.container)
            .onDispose { _ in log.record("c") }
        _ = container.resolve(String.self, name: "a")
        _ = container.resolve(String.self, name: "b")
        _ = container.resolve(String.self, name: "c")
        do {
            try container.dispose()
            Issue.record("expected disposalFailed")
        } catch {
            guard case .disposalFailed(let failures) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(failures.count == 2)
            #expect(
                failures.map(\.key) == [
                    ServiceKey(serviceType: String.self, name: "b"), ServiceKey(serviceType: String.self, name: "a"),
                ]
            )
            #expect(
                failures.allSatisfy {
                    if case .factoryFailed(_, _, let underlying) = $0 { underlying is Failure } else { false }
                }
            )
        }
        // Newest first; a registration's handlers in the order added, the second despite the first's throw.
        #expect(log.all == ["c", "b", "a1", "a2"])
        // The registrations stay: resolving again makes new instances.
        var made = 0
        container.register(Session.self) { _ in
            made += 1
            return Session(user: made)
        }
        .inObjectScope(.container)
        let first = try container.resolveThrows(Session.self)
        try container.dispose()
        let second = try container.resolveThrows(Session.self)
        #expect(first !== second)
        #expect(made == 2)
    }

    @Test func aChildsDisposeLeavesItsParentsSingletonsAlive() throws {
        let app = Container()
        let log = EventLog()
        app.register(SharedState.self) { _ in SharedState() }
            .inObjectScope(.container)
            .onDispose { _ in log.record("app state") }
        let session = Container(parent: app)
        session.register(Session.self) { r in
            _ = try r.resolveThrows(SharedState.self)
            return Session(user: 1)
        }
        .inObjectScope(.container)
        .onDispose { _ in log.record("session") }
        let state = try session.resolveThrows(SharedState.self)
        let user = try session.resolveThrows(Session.self)
        try session.dispose()
        #expect(log.all == ["session"])
        #expect(try app.resolveThrows(SharedState.self) === state)
        #expect(try session.resolveThrows(Session.self) !== user)
    }

    @Test func syncDisposeSkipsAsyncHandlersAndDisposeAsyncRunsThemInPlace() async throws {
        let log = EventLog()
        func make() -> Container {
            let container = Container()
            container.register(Session.self) { _ in Session(user: 1) }
                .inObjectScope(.container)
                .onDispose { _ in log.record("sync 1") }
                .onDisposeAsync { _ in
                    await Task.yield()
                    log.record("async")
                }
                .onDispose { _ in log.record("sync 2") }
            _ = container.resolve(Session.self)
            return container
        }
        try make().dispose()
        #expect(log.all == ["sync 1", "sync 2"])
        try await make().disposeAsync()
        #expect(log.all == ["sync 1", "sync 2", "sync 1", "async", "sync 2"])
    }

    @Test func transientGraphAndWeakInstancesAreNotTheContainers() throws {
        let container = Container()
        let log = EventLog()
        container.register(SharedState.self) { _ in SharedState() }
            .onDispose { _ in log.record("graph") }
        container.register(Session.self) { _ in Session(user: 1) }
            .inObjectScope(.transient)
            .onDispose { _ in log.record("transient") }
        container.register(Session.self, name: "weak") { _ in Session(user: 2) }
            .inObjectScope(.weak)
            .onDispose { _ in log.record("weak") }
        _ = container.resolve(SharedState.self)
        _ = container.resolve(Session.self)
        let held = container.resolve(Session.self, name: "weak")
        #expect(held != nil)
        #expect(container.resolve(Session.self, name: "weak") === held, "the weak instance is shared while held")
        try container.dispose()
        #expect(log.all.isEmpty)
        #expect(held?.user == 2)
    }

    @Test func anInstanceReachedUnderTwoKeysIsDisposedOnce() throws {
        let container = Container()
        let log = EventLog()
        let plugin = container.register(NamedPlugin.self) { _ in NamedPlugin(name: "one") }
            .inObjectScope(.container)
            .onDispose { plugin in log.record(plugin.name) }
        container.forward((any Plugin).self, to: plugin)
        container.forward((any Plugin).self, name: "alias", to: plugin)
        let first = container.resolve((any Plugin).self)
        #expect(first === container.resolve(NamedPlugin.self))
        #expect(first === container.resolve((any Plugin).self, name: "alias"))
        try container.dispose()
        #expect(log.all == ["one"])
        // The registration stays, and makes a new instance, disposed of once again.
        let second = container.resolve((any Plugin).self, name: "alias")
        #expect(second != nil && second !== first)
        try container.dispose()
        #expect(log.all == ["one", "one"])
        try container.dispose()
        #expect(log.all == ["one", "one"])
    }

    @Test func aCreationInFlightReachedUnderTwoKeysIsDisposedOnce() async throws {
        let container = Container()
        let log = EventLog()
        let gate = Gate()
        let started = Counter()
        let session = container.registerAsync(Session.self) { _ in
            started.increment()
            await gate.wait()
            return Session(user: 7)
        }
        .inObjectScope(.container)
        .onDispose { session in log.record("sync \(session.user)") }
        .onDisposeAsync { session in log.record("async \(session.user)") }
        container.forward(Session.self, name: "alias", to: session)
        let view = container.synchronize()
        let resolving = Task { try await view.resolveAsync(Session.self) }
        while started.count == 0 {
            await Task.yield()
        }
        // disposeAsync() waits for the creation, which the gate holds until a moment later.
        let opening = Task {
            try await Task.sleep(for: .milliseconds(20))
            gate.open()
        }
        try await container.disposeAsync()
        try await opening.value
        let made = try await resolving.value
        #expect(made.user == 7)
        #expect(log.all == ["sync 7", "async 7"], "each handler once, though two keys reach the registration")
        try await container.disposeAsync()
        #expect(log.all == ["sync 7", "async 7"])
    }
}

@Suite("Multiton scope", .tags(.concurrency, .engine), .hangLimit)
struct MultitonTests {
    @Test func oneInstancePerDistinctArguments() throws {
        let container = Container()
        var made = 0
        container.register(Session.self) { (_, user: Int) in
            made += 1
            return Session(user: user)
        }
        .inObjectScope(.multiton)
        let a1 = try container.resolveThrows(Session.self, argument: 1)
        let a2 = try container.resolveThrows(Session.self, argument: 1)
        let b = try container.resolveThrows(Session.self, argument: 2)
        #expect(a1 === a2)
        #expect(a1 !== b)
        #expect(made == 2)
        // A child shares its parent's instances, as with .container.
        #expect(try Container(parent: container).resolveThrows(Session.self, argument: 1) === a1)
        container.resetObjectScope(.multiton)
        #expect(try container.resolveThrows(Session.self, argument: 1) !== a1)
    }

    @Test func severalArgumentsAreComparedTogether() throws {
        let container = Container()
        container.register(Session.self) { (_, user: Int, region: String) in Session(user: user) }
            .inObjectScope(.multiton)
        let a = try container.resolveThrows(Session.self, arguments: 1, "eu")
        #expect(try container.resolveThrows(Session.self, arguments: 1, "eu") === a)
        #expect(try container.resolveThrows(Session.self, arguments: 1, "us") !== a)
    }

    @Test func argumentsAreComparedAsAnyHashableComparesThem() throws {
        let container = Container()
        container.register(Session.self) { (_, name: String) in Session(user: name.count) }
            .inObjectScope(.multiton)
        container.register(Session.self) { (_, key: AnyHashable) in Session(user: 0) }
            .inObjectScope(.multiton)
        container.register(Session.self) { (_, key: Int?) in Session(user: key ?? -1) }
            .inObjectScope(.multiton)
        let general = try container.resolveThrows(Session.self, argument: "general")
        #expect(try container.resolveThrows(Session.self, argument: "gene" + "ral") === general)
        #expect(try container.resolveThrows(Session.self, argument: "random") !== general)
        // An `AnyHashable` argument: equal integers of different types are one key, as in `AnyHashable`.
        let seven = try container.resolveThrows(Session.self, argument: AnyHashable(7 as Int))
        #expect(try container.resolveThrows(Session.self, argument: AnyHashable(7 as UInt8)) === seven)
        #expect(try container.resolveThrows(Session.self, argument: AnyHashable("7")) !== seven)
        let none = try container.resolveThrows(Session.self, argument: nil as Int?)
        #expect(try container.resolveThrows(Session.self, argument: nil as Int?) === none)
        #expect(try container.resolveThrows(Session.self, argument: 3 as Int?) !== none)
    }

    /// A single argument of a `Hashable` type other than `Int` and `String` is kept in a key of its own
    /// type, compared with that type's `==`; one of an existential type, as an `AnyHashable`. Either way the
    /// result is what `AnyHashable` gives.
    @Test func aSingleArgumentIsComparedAsAnyHashableComparesItWhateverItsType() throws {
        let container = Container()
        container.register(Session.self) { (_, code: CaseInsensitiveCode) in Session(user: code.text.count) }
            .inObjectScope(.multiton)
        container.register(Session.self) { (_, animal: KeyedAnimal) in Session(user: animal.id) }
            .inObjectScope(.multiton)
        container.register(Session.self) { (_, value: any Sendable) in Session(user: 0) }
            .inObjectScope(.multiton)
        container.register(Session.self) { (_, values: [Int]) in Session(user: values.count) }
            .inObjectScope(.multiton)
        // A type whose `==` is not its fields' equality: equal values share the instance.
        let upper = try container.resolveThrows(Session.self, argument: CaseInsensitiveCode(text: "EU"))
        #expect(try container.resolveThrows(Session.self, argument: CaseInsensitiveCode(text: "eu")) === upper)
        #expect(try container.resolveThrows(Session.self, argument: CaseInsensitiveCode(text: "us")) !== upper)
        #expect(AnyHashable(CaseInsensitiveCode(text: "EU")) == AnyHashable(CaseInsensitiveCode(text: "eu")))
        // A class with subclasses: its `==` compares a cat and a dog, as `AnyHashable` does.
        let cat = try container.resolveThrows(Session.self, argument: KeyedCat(id: 4) as KeyedAnimal)
        #expect(try container.resolveThrows(Session.self, argument: KeyedDog(id: 4) as KeyedAnimal) === cat)
        #expect(try container.resolveThrows(Session.self, argument: KeyedCat(id: 5) as KeyedAnimal) !== cat)
        #expect(AnyHashable(KeyedCat(id: 4) as KeyedAnimal) == AnyHashable(KeyedDog(id: 4) as KeyedAnimal))
        // An existential argument: values of several types, compared as `AnyHashable` compares them (an
        // `Int` and a `UInt8` of one value are equal; a `String` of the same digits is not).
        let seven = try container.resolveThrows(Session.self, argument: 7 as any Sendable)
        #expect(try container.resolveThrows(Session.self, argument: UInt8(7) as any Sendable) === seven)
        #expect(try container.resolveThrows(Session.self, argument: "7" as any Sendable) !== seven)
        #expect(try container.resolveThrows(Session.self, argument: 8 as any Sendable) !== seven)
        // A generic type conforming conditionally.
        let list = try container.resolveThrows(Session.self, argument: [1, 2])
        #expect(try container.resolveThrows(Session.self, argument: [1] + [2]) === list)
        #expect(try container.resolveThrows(Session.self, argument: [2, 1]) !== list)
        // Keys of different registrations never meet: each argument type has its own instances.
        #expect(upper !== cat && cat !== seven && seven !== list)
    }

    @Test func aKeptInstanceIsFoundFromInsideAFactoryAndAnInitCompletedAction() throws {
        let container = Container()
        container.register(Session.self) { (_, user: Int) in Session(user: user) }.inObjectScope(.multiton)
        var seen: [Session?] = []
        container.register(SharedState.self) { r in
            seen.append(r.resolve(Session.self, argument: 1))
            return SharedState()
        }
        .initCompleted { r, _ in seen.append(r.resolve(Session.self, argument: 1)) }
        let kept = try container.resolveThrows(Session.self, argument: 1)
        _ = try container.resolveThrows(SharedState.self)
        #expect(seen.count == 2)
        #expect(seen.allSatisfy { $0 === kept })
    }

    @Test func withoutArgumentsItBehavesAsContainer() throws {
        let container = Container()
        container.register(SharedState.self) { _ in SharedState() }.inObjectScope(.multiton)
        #expect(try container.resolveThrows(SharedState.self) === container.resolveThrows(SharedState.self))
    }

    @Test func aNonHashableArgumentFailsNamingItsType() {
        let container = Container()
        container.register(Session.self) { (_, value: Unhashable) in Session(user: value.value) }
            .inObjectScope(.multiton)
        do {
            _ = try container.resolveThrows(Session.self, argument: Unhashable(value: 1))
            Issue.record("expected invalidUsage")
        } catch {
            guard case .invalidUsage(let message) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(message.contains("Unhashable"))
            #expect(message.contains("Hashable"))
        }
    }

    @Test func disposeEndsEveryMultitonInstance() throws {
        let container = Container()
        let log = EventLog()
        container.register(Session.self) { (_, user: Int) in Session(user: user) }
            .inObjectScope(.multiton)
            .onDispose { session in log.record("user \(session.user)") }
        for user in [3, 1, 2] {
            _ = try container.resolveThrows(Session.self, argument: user)
        }
        try container.dispose()
        #expect(log.all == ["user 2", "user 1", "user 3"])
    }

    @Test func eightThreadsResolvingOneValueGetOneInstance() {
        let container = Container()
        let made = Counter()
        container.register(Session.self) { (_, user: Int) in
            made.increment()
            Thread.sleep(forTimeInterval: 0.001)
            return Session(user: user)
        }
        .inObjectScope(.multiton)
        let resolver = container.synchronize()
        let identities = LockedIdentities()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for user in 0..<20 {
                if let session = resolver.resolve(Session.self, argument: user % 4) {
                    identities.insert(user % 4, ObjectIdentifier(session))
                }
            }
        }
        #expect(made.count == 4)
        #expect(identities.countsPerKey == [1, 1, 1, 1])
    }
}

/// Object identities seen per key, from many threads.
private final class LockedIdentities: @unchecked Sendable {
    // @unchecked: `seen` is used only under `lock`.
    private let lock = NSLock()
    private var seen: [Int: Set<ObjectIdentifier>] = [:]

    func insert(_ key: Int, _ identity: ObjectIdentifier) {
        lock.lock()
        seen[key, default: []].insert(identity)
        lock.unlock()
    }

    var countsPerKey: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return seen.keys.sorted().map { seen[$0]!.count }
    }
}

@Suite("resolveAll", .tags(.engine), .hangLimit)
struct ResolveAllTests {
    @Test func everyRegistrationInOrderAncestorsFirstAndAChildShadowsInPlace() {
        let parent = Container()
        parent.register(Plugin.self, name: "logging") { _ in NamedPlugin(name: "parent logging") }
        parent.register(Plugin.self) { _ in NamedPlugin(name: "parent default") }
        parent.register(Plugin.self, name: "metrics") { _ in NamedPlugin(name: "parent metrics") }
        parent.register(Plugin.self) { (_, name: String) in NamedPlugin(name: name) }  // takes an argument: left out
        let child = Container(parent: parent)
        child.register(Plugin.self, name: "auth") { _ in NamedPlugin(name: "child auth") }
        child.register(Plugin.self) { _ in NamedPlugin(name: "child default") }
        #expect(
            child.resolveAll(Plugin.self).map(\.name) == [
                "parent logging", "child default", "parent metrics", "child auth",
            ]
        )
        #expect(parent.resolveAll(Plugin.self).map(\.name) == ["parent logging", "parent default", "parent metrics"])
        #expect(Container().resolveAll(Plugin.self).isEmpty)
    }

    @Test func eachFollowsItsScopeAndAllShareOneGraph() {
        let container = Container()
        container.register(SharedState.self) { _ in SharedState() }  // .graph
        container.register(Plugin.self, name: "a") { r in NamedPlugin(name: "a", shared: r.resolve(SharedState.self)) }
            .inObjectScope(.container)
        container.register(Plugin.self, name: "b") { r in NamedPlugin(name: "b", shared: r.resolve(SharedState.self)) }
        let first = container.resolveAll(Plugin.self).compactMap { $0 as? NamedPlugin }
        #expect(first.count == 2)
        #expect(first[0].shared != nil)
        #expect(first[0].shared === first[1].shared, "one graph for the whole call")
        let second = container.resolveAll(Plugin.self)
        #expect(second[0] === first[0], ".container is kept")
        #expect(second[1] !== first[1], ".graph is new per call")
    }

    @Test func resolveAllSkipsAFailureAndResolveAllThrowsReportsIt() {
        let container = Container()
        container.register(Plugin.self, name: "a") { _ in NamedPlugin(name: "a") }
        container.register(Plugin.self, name: "broken") { r in
            NamedPlugin(name: "broken", shared: try r.resolveThrows(SharedState.self))
        }
        container.register(Plugin.self, name: "c") { _ in NamedPlugin(name: "c") }
        #expect(container.resolveAll(Plugin.self).map(\.name) == ["a", "c"])
        let missing = DIError.notRegistered(
            key: ServiceKey(serviceType: SharedState.self),
            path: [ServiceKey(serviceType: Plugin.self, name: "broken")],
            candidates: []
        )
        #expect(throws: missing) {
            try container.resolveAllThrows(Plugin.self)
        }
    }

    @Test func aRegistrationAFactoryReplacesOrAddsMeanwhileIsTheOneResolved() {
        let parent = Container()
        let child = Container(parent: parent)
        parent.register(Plugin.self, name: "a") { _ in
            // Replaces the child's "c" and shadows the parent's "b", both still to be resolved.
            child.register(Plugin.self, name: "c") { _ in NamedPlugin(name: "new c") }
            child.register(Plugin.self, name: "b") { _ in NamedPlugin(name: "child b") }
            return NamedPlugin(name: "a")
        }
        parent.register(Plugin.self, name: "b") { _ in NamedPlugin(name: "parent b") }
        child.register(Plugin.self, name: "c") { _ in NamedPlugin(name: "old c") }
        #expect(child.resolveAll(Plugin.self).map(\.name) == ["a", "child b", "new c"])
        #expect(child.resolveAll(Plugin.self).map(\.name) == ["a", "child b", "new c"])
    }

    @Test func throughASynchronizedViewAndInsideAFactory() {
        let container = Container()
        container.register(Plugin.self, name: "a") { _ in NamedPlugin(name: "a") }
        container.register(Plugin.self, name: "b") { _ in NamedPlugin(name: "b") }
        container.register([String].self) { r in r.resolveAll(Plugin.self).map(\.name) }
        let resolver = container.synchronize()
        #expect(resolver.resolveAll(Plugin.self).count == 2)
        #expect(resolver.resolve([String].self) == ["a", "b"])
        // What resolveAll reaches is part of the graph verify() and dependencyGraph() explore.
        #expect(container.verify() == [])
        let edges = container.dependencyGraph().edges.map { "\($0.from) -> \($0.to)" }
        #expect(edges.contains { $0.hasSuffix("Plugin named \"a\"") })
        #expect(edges.contains { $0.hasSuffix("Plugin named \"b\"") })
    }
}

@Suite("Request scopes", .tags(.concurrency), .hangLimit)
struct RequestScopeTests {
    @Test func childrenMadeFromTheSharedViewServeConcurrentRequests() async throws {
        let app = Container()
        app.register(SharedState.self) { _ in SharedState() }.inObjectScope(.container)
        let shared = app.synchronize()
        let log = EventLog()
        let states = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for request in 0..<8 {
                group.addTask {
                    let child = shared.makeChild(defaultObjectScope: .container) { child in
                        child.register(Session.self) { _ in Session(user: request) }
                            .onDispose { session in log.record("request \(session.user)") }
                        child.register(NamedPlugin.self) { r in
                            NamedPlugin(name: "work \(request)", shared: try r.resolveThrows(SharedState.self))
                        }
                    }
                    let scope = child.synchronize()
                    #expect(try scope.resolveThrows(Session.self).user == request)
                    let work = try scope.resolveThrows(NamedPlugin.self)
                    try child.dispose()
                    return ObjectIdentifier(work.shared!)
                }
            }
            return try await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(states.count == 1, "every request shares the app's instance")
        #expect(Set(log.all) == Set((0..<8).map { "request \($0)" }))
    }
}
