import Dispatch
import Foundation
import Keystone
import Testing

// Attacks, through the public API, on three changes: `.graph` members ended by code specialized for their
// service type (048b3af), `InstanceCache` holding the registration's `Service?` (f125138), and DIActor's
// release handlers and Registry's `ServiceOptions` finding their registration by key and identity
// (83a20ab).

// MARK: - Fixtures

/// Counts the objects of one test that were made and that are still alive. Thread-safe.
private final class GCFALife: @unchecked Sendable {
    // @unchecked: both counts are read and written under `lock` only.
    private let lock = NSLock()
    private var madeCount = 0
    private var aliveCount = 0
    private var journal: [String] = []

    func born() {
        lock.lock()
        madeCount += 1
        aliveCount += 1
        lock.unlock()
    }

    func died() {
        lock.lock()
        aliveCount -= 1
        lock.unlock()
    }

    func note(_ event: String) {
        lock.lock()
        journal.append(event)
        lock.unlock()
    }

    var made: Int {
        lock.lock()
        defer { lock.unlock() }
        return madeCount
    }

    var alive: Int {
        lock.lock()
        defer { lock.unlock() }
        return aliveCount
    }

    var events: [String] {
        lock.lock()
        defer { lock.unlock() }
        return journal
    }
}

/// A `.graph` member that the test counts.
private final class GCFAShared: @unchecked Sendable {
    // @unchecked: `life` is a `let` to a thread-safe counter.
    let life: GCFALife
    init(_ life: GCFALife) {
        self.life = life
        life.born()
    }
    deinit { life.died() }
}

private final class GCFALeft: @unchecked Sendable {
    let shared: GCFAShared
    init(shared: GCFAShared) { self.shared = shared }
}

private final class GCFARight: @unchecked Sendable {
    let shared: GCFAShared
    init(shared: GCFAShared) { self.shared = shared }
}

private final class GCFARoot: @unchecked Sendable {
    let left: GCFALeft
    let right: GCFARight
    init(left: GCFALeft, right: GCFARight) {
        self.left = left
        self.right = right
    }
}

/// Registers Root -> (Left, Right) -> Shared, with Shared in `scope` and the others transient.
private func gcfaRegisterDiamond(
    in container: Container,
    life: GCFALife,
    sharedScope scope: ObjectScope = .graph
) {
    container.register(GCFAShared.self) { _ in GCFAShared(life) }.inObjectScope(scope)
    container.register(GCFALeft.self) { r in GCFALeft(shared: r.resolve(GCFAShared.self)!) }.inObjectScope(.transient)
    container.register(GCFARight.self) { r in GCFARight(shared: r.resolve(GCFAShared.self)!) }.inObjectScope(
        .transient
    )
    container.register(GCFARoot.self) { r in
        GCFARoot(left: r.resolve(GCFALeft.self)!, right: r.resolve(GCFARight.self)!)
    }
    .inObjectScope(.transient)
}

/// The guide's pattern: the parent is made alone, and gets its child in `initCompleted`; the child
/// resolves the parent in its factory, and keeps it weakly.
private final class GCFAParent {
    var child: GCFAChild?
    let life: GCFALife
    init(life: GCFALife) {
        self.life = life
        life.born()
        life.note("parent")
    }
    deinit { life.died() }
}

private final class GCFAChild {
    weak var parent: GCFAParent?
    let life: GCFALife
    init(parent: GCFAParent?, life: GCFALife) {
        self.parent = parent
        self.life = life
        life.born()
        life.note("child")
    }
    deinit { life.died() }
}

private struct GCFAFailure: Error {}

/// A `.graph` member whose deinitializer resolves a new graph from its container and notes what it got.
private final class GCFAResolvingOnDeinit {
    weak var container: Container?
    let life: GCFALife
    init(container: Container, life: GCFALife) {
        self.container = container
        self.life = life
        life.born()
    }
    deinit {
        let root = container?.resolve(GCFARoot.self)
        life.note(root.map { $0.left.shared === $0.right.shared ? "shared" : "split" } ?? "nil")
        life.died()
    }
}

private final class GCFAHolder {
    let first: GCFAResolvingOnDeinit
    let root: GCFARoot
    init(first: GCFAResolvingOnDeinit, root: GCFARoot) {
        self.first = first
        self.root = root
    }
}

private struct GCFAPoint: Hashable {
    let x: Int
    let y: Int
}

/// A `.multiton` instance that remembers its arguments and counts itself.
private final class GCFAKept {
    let label: String
    let life: GCFALife
    init(_ label: String, life: GCFALife) {
        self.label = label
        self.life = life
        life.born()
    }
    deinit { life.died() }
}

/// Hands a container to another thread; every call made on it there takes the hierarchy's lock.
private final class GCFAContainerBox: @unchecked Sendable {
    let container: Container
    init(_ container: Container) { self.container = container }
}

private struct GCFAValue: Equatable {
    let label: String
}

// MARK: - .graph members, ended by code specialized for their type (048b3af)

@Suite("Graph completion, instance cache and fronts' identities, attacked", .tags(.engine))
struct GraphCacheFrontAttackTests {
    @Test("A .graph instance is shared within one top-level resolve and released when it returns")
    func graphSharedThenReleased() throws {
        let life = GCFALife()
        let container = Container()
        gcfaRegisterDiamond(in: container, life: life)
        weak var firstShared: GCFAShared?
        do {
            let root = try container.resolveThrows(GCFARoot.self)
            #expect(root.left.shared === root.right.shared)
            firstShared = root.left.shared
            #expect(life.alive == 1)
        }
        #expect(firstShared == nil, "the container kept the graph's instance after the resolve returned")
        #expect(life.alive == 0)
        let second = try container.resolveThrows(GCFARoot.self)
        let third = try container.resolveThrows(GCFARoot.self)
        #expect(second.left.shared !== third.left.shared, "two top-level resolves are two graphs")
        #expect(life.made == 3)
    }

    @Test("A resolve of the .graph member itself at top level, then inside a graph, keeps nothing")
    func topLevelGraphMemberKeepsNothing() throws {
        let life = GCFALife()
        let container = Container()
        gcfaRegisterDiamond(in: container, life: life)
        weak var lone: GCFAShared?
        do {
            let shared = try container.resolveThrows(GCFAShared.self)
            lone = shared
            #expect(try container.resolveThrows(GCFAShared.self) !== shared)
        }
        #expect(lone == nil)
        for _ in 0..<50 {
            let root = try container.resolveThrows(GCFARoot.self)
            #expect(root.left.shared === root.right.shared)
        }
        #expect(life.alive == 0)
        #expect(life.made == 52)
    }

    @Test("A parent/child cycle wired by initCompleted shares the graph's parent and is freed afterwards")
    func initCompletedCycleIsFreed() throws {
        let life = GCFALife()
        let container = Container()
        container.register(GCFAParent.self) { _ in GCFAParent(life: life) }
            .initCompleted { r, parent in parent.child = r.resolve(GCFAChild.self) }
        container.register(GCFAChild.self) { r in GCFAChild(parent: try r.resolveThrows(GCFAParent.self), life: life) }
        weak var weakParent: GCFAParent?
        weak var weakChild: GCFAChild?
        for _ in 0..<3 {
            let parent = try container.resolveThrows(GCFAParent.self)
            #expect(parent.child?.parent === parent)
            weakParent = parent
            weakChild = parent.child
        }
        #expect(weakParent == nil)
        #expect(weakChild == nil)
        #expect(life.alive == 0)
        #expect(life.events == Array(repeating: ["parent", "child"], count: 3).flatMap { $0 })
    }

    @Test("A Lazy made in a graph finds the graph's instance again while it lives, and keeps it no longer")
    func lazyFindsRememberedInstance() throws {
        let life = GCFALife()
        let container = Container()
        gcfaRegisterDiamond(in: container, life: life)
        final class Pair {
            let root: GCFARoot
            let lazy: Lazy<GCFAShared>
            let later: Lazy<GCFAShared>
            init(root: GCFARoot, lazy: Lazy<GCFAShared>, later: Lazy<GCFAShared>) {
                self.root = root
                self.lazy = lazy
                self.later = later
            }
        }
        container.register(Pair.self) { r in
            Pair(
                root: r.resolve(GCFARoot.self)!,
                lazy: r.resolve(Lazy<GCFAShared>.self)!,
                later: r.resolve(Lazy<GCFAShared>.self)!
            )
        }
        var pair: Pair? = try container.resolveThrows(Pair.self)
        #expect(pair?.lazy.instance === pair?.root.left.shared, "the graph's record remembers its member")
        #expect(pair?.root.left.shared === pair?.root.right.shared)
        #expect(life.made == 1)
        // `later` is not read yet: it holds only the graph, whose record remembers its member weakly.
        let later = try #require(pair?.later)
        pair = nil
        #expect(life.alive == 0, "the record remembers weakly: nothing keeps the graph's instance")
        let again = later.instance
        #expect(life.made == 2, "the member is gone: the lazy makes a new one")
        #expect(again.life === life)
    }

    @Test("withObjectGraph finds the instances of its graph again while they live")
    func withObjectGraphRemembers() throws {
        let life = GCFALife()
        let container = Container()
        gcfaRegisterDiamond(in: container, life: life)
        let graph = GraphIdentifier()
        let first = try container.withObjectGraph(graph) { try $0.resolveThrows(GCFARoot.self) }
        let second = try container.withObjectGraph(graph) { try $0.resolveThrows(GCFAShared.self) }
        #expect(first.left.shared === second)
        #expect(first.right.shared === second)
        let elsewhere = try container.resolveThrows(GCFARoot.self)
        #expect(elsewhere.left.shared !== second, "another graph has its own member")
        #expect(life.made == 2)
    }

    @Test("withObjectGraph keeps nothing alive once its instances are let go")
    func withObjectGraphReleases() throws {
        let life = GCFALife()
        let container = Container()
        gcfaRegisterDiamond(in: container, life: life)
        let graph = GraphIdentifier()
        do {
            let root = try container.withObjectGraph(graph) { try $0.resolveThrows(GCFARoot.self) }
            #expect(root.left.shared === root.right.shared)
        }
        #expect(life.alive == 0)
        let later = try container.withObjectGraph(graph) { try $0.resolveThrows(GCFAShared.self) }
        #expect(life.made == 2)
        #expect(later.life === life)
    }

    @Test("A custom scope over GraphStorage shares within a graph, is told the graph ended, and keeps nothing")
    func customGraphStorage() throws {
        let life = GCFALife()
        let perGraph = ObjectScope(storageFactory: GraphStorage.init, description: "perGraph")
        let container = Container()
        gcfaRegisterDiamond(in: container, life: life, sharedScope: perGraph)
        do {
            let one = try container.resolveThrows(GCFARoot.self)
            let two = try container.resolveThrows(GCFARoot.self)
            #expect(one.left.shared === one.right.shared)
            #expect(two.left.shared === two.right.shared)
            #expect(one.left.shared !== two.left.shared)
        }
        #expect(life.alive == 0)
        #expect(life.made == 2)
    }

    @Test("A custom storage of the test's own hears of every graph's end, after the specialized path")
    func customStorageHearsCompletion() throws {
        final class Counting: InstanceStorage {
            var instance: Any?
            var completions = 0
            func graphResolutionCompleted() {
                completions += 1
                instance = nil
            }
        }
        final class CountingScope: ObjectScopeProtocol {
            var storages: [Counting] = []
            func makeStorage() -> any InstanceStorage {
                let made = Counting()
                storages.append(made)
                return made
            }
        }
        let life = GCFALife()
        let scope = CountingScope()
        let container = Container()
        container.register(GCFAShared.self) { _ in GCFAShared(life) }.inObjectScope(scope)
        container.register(GCFALeft.self) { r in GCFALeft(shared: r.resolve(GCFAShared.self)!) }
        container.register(GCFARight.self) { r in GCFARight(shared: r.resolve(GCFAShared.self)!) }
        container.register(GCFARoot.self) { r in
            GCFARoot(left: r.resolve(GCFALeft.self)!, right: r.resolve(GCFARight.self)!)
        }
        for _ in 0..<3 {
            let root = try container.resolveThrows(GCFARoot.self)
            #expect(root.left.shared === root.right.shared)
        }
        #expect(scope.storages.count == 1)
        #expect(scope.storages.first?.completions == 3)
        #expect(life.alive == 0)
        #expect(life.made == 3)
    }

    @Test(".weak shares within a graph and while someone holds the instance, and lets it go afterwards")
    func weakScope() throws {
        let life = GCFALife()
        let container = Container()
        gcfaRegisterDiamond(in: container, life: life, sharedScope: .weak)
        do {
            let held = try container.resolveThrows(GCFARoot.self)
            #expect(held.left.shared === held.right.shared)
            let other = try container.resolveThrows(GCFARoot.self)
            #expect(other.left.shared === held.left.shared, "held elsewhere: .weak shares it")
        }
        #expect(life.alive == 0, "neither the graph nor the weak reference kept it")
        let fresh = try container.resolveThrows(GCFARoot.self)
        #expect(fresh.left.shared === fresh.right.shared)
        #expect(life.made == 2)
    }

    @Test("A factory that throws midway through a graph leaves nothing of the graph kept")
    func throwingMidwayKeepsNothing() throws {
        let life = GCFALife()
        let container = Container()
        gcfaRegisterDiamond(in: container, life: life)
        final class Doomed {
            let left: GCFALeft
            init(left: GCFALeft) { self.left = left }
        }
        let attempts = GCFALife()
        container.register(Doomed.self) { r in
            let left = try r.resolveThrows(GCFALeft.self)
            attempts.born()
            if attempts.made == 1 {
                _ = try r.resolveThrows(GCFARight.self)
                throw GCFAFailure()
            }
            return Doomed(left: left)
        }
        #expect(throws: (any Error).self) { try container.resolveThrows(Doomed.self) }
        #expect(life.alive == 0, "the failed graph's member was released")
        let survivor = try container.resolveThrows(Doomed.self)
        #expect(life.made == 2, "the second resolve did not find the failed graph's member")
        let root = try container.resolveThrows(GCFARoot.self)
        #expect(root.left.shared === root.right.shared)
        #expect(root.left.shared !== survivor.left.shared)
    }

    @Test("A graph member whose deinitializer resolves a new graph while the graph closes")
    func deinitResolvesWhileClosing() throws {
        let life = GCFALife()
        let container = Container()
        gcfaRegisterDiamond(in: container, life: life)
        container.register(GCFAResolvingOnDeinit.self) { _ in GCFAResolvingOnDeinit(container: container, life: life) }
        container.register(GCFAHolder.self) { r in
            GCFAHolder(first: r.resolve(GCFAResolvingOnDeinit.self)!, root: r.resolve(GCFARoot.self)!)
        }
        .inObjectScope(.transient)
        for _ in 0..<5 {
            let holder = try container.resolveThrows(GCFAHolder.self)
            #expect(holder.root.left.shared === holder.root.right.shared)
        }
        #expect(life.events == Array(repeating: "shared", count: 5))
        #expect(life.alive == 0, "nothing of the graphs resolved in deinitializers is left")
        // 5 holders' members, 5 shared members and 5 more made in the deinitializers.
        #expect(life.made == 15)
    }

    @Test("Re-registering, reset and removeAll from a factory in the middle of a graph")
    func registeringMidGraph() throws {
        for action in ["register", "reset", "removeAll"] {
            let life = GCFALife()
            let container = Container()
            gcfaRegisterDiamond(in: container, life: life)
            let disturbed = GCFALife()
            container.register(GCFARight.self) { r in
                let shared = r.resolve(GCFAShared.self)!
                if disturbed.made == 0 {
                    disturbed.born()
                    switch action {
                    case "register":
                        container.register(GCFAShared.self) { _ in GCFAShared(life) }
                    case "reset":
                        container.resetObjectScope(.graph)
                    default:
                        container.removeAll()
                    }
                }
                return GCFARight(shared: shared)
            }
            weak var first: GCFAShared?
            do {
                let root = try container.resolveThrows(GCFARoot.self)
                first = root.left.shared
                #expect(root.left.shared === root.right.shared, "\(action)")
            }
            #expect(first == nil, "\(action): the graph's member outlived the graph")
            #expect(life.alive == 0, "\(action)")
            if action == "removeAll" {
                #expect(container.resolve(GCFARoot.self) == nil)
            } else {
                let root = try container.resolveThrows(GCFARoot.self)
                #expect(root.left.shared === root.right.shared, "\(action)")
            }
        }
    }

    @Test("verify() and dependencyGraph() leave no graph member alive and do not disturb the next graph")
    func inspectionKeepsNothing() throws {
        let life = GCFALife()
        let container = Container()
        gcfaRegisterDiamond(in: container, life: life)
        #expect(container.verify().isEmpty)
        _ = container.dependencyGraph()
        #expect(life.alive == 0)
        let root = try container.resolveThrows(GCFARoot.self)
        #expect(root.left.shared === root.right.shared)
        #expect(life.alive == 1)
    }

    @Test("A child container's graph shares its parent's .graph member and releases it")
    func childContainerGraph() throws {
        let life = GCFALife()
        let parent = Container()
        parent.register(GCFAShared.self) { _ in GCFAShared(life) }
        let child = Container(parent: parent)
        child.register(GCFALeft.self) { r in GCFALeft(shared: r.resolve(GCFAShared.self)!) }
        child.register(GCFARight.self) { r in GCFARight(shared: r.resolve(GCFAShared.self)!) }
        child.register(GCFARoot.self) { r in
            GCFARoot(left: r.resolve(GCFALeft.self)!, right: r.resolve(GCFARight.self)!)
        }
        do {
            let root = try child.resolveThrows(GCFARoot.self)
            #expect(root.left.shared === root.right.shared)
        }
        #expect(life.alive == 0)
        #expect(life.made == 1)
    }

    @Test(
        "Graphs resolved concurrently through the synchronized view each share their own member",
        .tags(.concurrency)
    )
    func concurrentGraphs() {
        let life = GCFALife()
        let container = Container()
        gcfaRegisterDiamond(in: container, life: life)
        let resolver = container.synchronize()
        let splits = GCFALife()
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<200 {
                guard let root = resolver.resolve(GCFARoot.self) else {
                    splits.born()
                    continue
                }
                if root.left.shared !== root.right.shared {
                    splits.born()
                }
            }
        }
        #expect(splits.made == 0)
        #expect(life.made == 800)
        #expect(life.alive == 0)
    }

    @Test("An async graph shares its .graph member, synchronous ones included, and releases it", .tags(.concurrency))
    func asyncGraph() async throws {
        let life = GCFALife()
        let container = Container()
        container.register(GCFAShared.self) { _ in GCFAShared(life) }
        container.registerAsync(GCFALeft.self) { r in GCFALeft(shared: try await r.resolveAsync(GCFAShared.self)) }
        container.register(GCFARight.self) { r in GCFARight(shared: r.resolve(GCFAShared.self)!) }
        container.registerAsync(GCFARoot.self) { r in
            GCFARoot(left: try await r.resolveAsync(GCFALeft.self), right: try await r.resolveAsync(GCFARight.self))
        }
        for _ in 0..<3 {
            let root = try await container.resolveAsync(GCFARoot.self)
            #expect(root.left.shared === root.right.shared)
        }
        #expect(life.alive == 0)
        #expect(life.made == 3)
    }

    // MARK: - .multiton and .container instances in the cache (f125138)

    @Test(".multiton keeps one instance per Int, String, tuple and custom Hashable arguments")
    func multitonArguments() throws {
        let life = GCFALife()
        let container = Container()
        container.register(GCFAKept.self) { (_, number: Int) in GCFAKept("int \(number)", life: life) }
            .inObjectScope(.multiton)
        container.register(GCFAKept.self, name: "text") { (_, text: String) in GCFAKept("text \(text)", life: life) }
            .inObjectScope(.multiton)
        container.register(GCFAKept.self, name: "pair") { (_, text: String, number: Int) in
            GCFAKept("pair \(text) \(number)", life: life)
        }
        .inObjectScope(.multiton)
        container.register(GCFAKept.self, name: "point") { (_, point: GCFAPoint) in
            GCFAKept("point \(point.x) \(point.y)", life: life)
        }
        .inObjectScope(.multiton)

        let one = try #require(container.resolve(GCFAKept.self, argument: 1))
        #expect(container.resolve(GCFAKept.self, argument: 1) === one)
        #expect(container.resolve(GCFAKept.self, argument: 2) !== one)
        let text = try #require(container.resolve(GCFAKept.self, name: "text", argument: "a"))
        #expect(container.resolve(GCFAKept.self, name: "text", argument: "a") === text)
        #expect(container.resolve(GCFAKept.self, name: "text", argument: "b") !== text)
        let pair = try #require(container.resolve(GCFAKept.self, name: "pair", argument: "a", 1))
        #expect(container.resolve(GCFAKept.self, name: "pair", argument: "a", 1) === pair)
        #expect(container.resolve(GCFAKept.self, name: "pair", argument: "a", 2) !== pair)
        let point = try #require(container.resolve(GCFAKept.self, name: "point", argument: GCFAPoint(x: 1, y: 2)))
        #expect(container.resolve(GCFAKept.self, name: "point", argument: GCFAPoint(x: 1, y: 2)) === point)
        #expect(container.resolve(GCFAKept.self, name: "point", argument: GCFAPoint(x: 2, y: 1)) !== point)
        #expect(life.made == 8)
        #expect(life.alive == 8, "every distinct argument's instance is kept")
        #expect(one.label == "int 1")
        #expect(pair.label == "pair a 1")
    }

    @Test("dispose() runs each .multiton and .container instance's onDispose once, newest first")
    func disposeOrderAndCounts() throws {
        let life = GCFALife()
        let container = Container()
        container.register(GCFAKept.self) { (_, number: Int) in GCFAKept("m\(number)", life: life) }
            .inObjectScope(.multiton)
            .onDispose { life.note("dispose \($0.label)") }
        container.register(GCFAKept.self, name: "one") { _ in GCFAKept("c", life: life) }
            .inObjectScope(.container)
            .onDispose { life.note("dispose \($0.label)") }
        _ = container.resolve(GCFAKept.self, argument: 1)
        _ = container.resolve(GCFAKept.self, name: "one")
        _ = container.resolve(GCFAKept.self, argument: 2)
        _ = container.resolve(GCFAKept.self, argument: 1)
        try container.dispose()
        #expect(life.events == ["dispose m2", "dispose c", "dispose m1"])
        #expect(life.alive == 0, "dispose() let go of every instance")
        try container.dispose()
        #expect(life.events.count == 3, "a second dispose() has nothing left to dispose of")
        let again = try #require(container.resolve(GCFAKept.self, argument: 1))
        #expect(again.label == "m1")
        #expect(life.made == 4)
    }

    @Test("disposeAsync() disposes of .multiton instances once each, newest first", .tags(.concurrency))
    func disposeAsyncOrder() async throws {
        let life = GCFALife()
        let container = Container()
        container.register(GCFAKept.self) { (_, text: String) in GCFAKept(text, life: life) }
            .inObjectScope(.multiton)
            .onDispose { life.note("dispose \($0.label)") }
        for text in ["a", "b", "c", "b", "a"] {
            _ = container.resolve(GCFAKept.self, argument: text)
        }
        try await container.disposeAsync()
        #expect(life.events == ["dispose c", "dispose b", "dispose a"])
        #expect(life.alive == 0)
    }

    @Test("resetObjectScope(.multiton) drops and disposes of every argument's instance, exactly once")
    func resetMultiton() throws {
        let life = GCFALife()
        let container = Container()
        container.register(GCFAKept.self) { (_, number: Int) in GCFAKept("m\(number)", life: life) }
            .inObjectScope(.multiton)
            .onDispose { life.note("dispose \($0.label)") }
        let first = try #require(container.resolve(GCFAKept.self, argument: 1))
        _ = container.resolve(GCFAKept.self, argument: 2)
        container.resetObjectScope(.multiton)
        #expect(life.events == ["dispose m2", "dispose m1"])
        #expect(life.alive == 1, "only the instance the test holds is left")
        #expect(container.resolve(GCFAKept.self, argument: 1) !== first)
        try container.dispose()
        #expect(life.events == ["dispose m2", "dispose m1", "dispose m1"])
        #expect(life.made == 3)
    }

    @Test("A .multiton instance kept by a call that a captive dependency failed is disposed of once; others stay")
    func multitonDroppedByScopeValidation() throws {
        let life = GCFALife()
        let app = Container()
        app.register(String.self) { _ in "guest" }
        app.register(GCFAKept.self) { (_: any Resolver, number: Int) in GCFAKept("m\(number)", life: life) }
            .inObjectScope(.multiton)
            .onDispose { life.note("dispose \($0.label)") }
        app.register(GCFAKept.self, name: "cart") { r in GCFAKept("cart \(r.resolve(String.self)!)", life: life) }
            .inObjectScope(.container)
        let request = Container(parent: app)
        request.register(String.self) { _ in "ada" }
        // The multiton instance completes (and is kept) before the captive cart fails the call.
        request.register(Int.self) { r in
            _ = r.resolve(GCFAKept.self, argument: 1)
            _ = r.resolve(GCFAKept.self, name: "cart")
            return 0
        }
        .inObjectScope(.transient)
        app.validatesScopes = true
        let kept = try app.resolveThrows(GCFAKept.self, argument: 0)
        #expect(throws: DIError.self) { try request.resolveThrows(Int.self) }
        #expect(life.events == ["dispose m1"], "the call keeps nothing, and disposes of what it had kept")
        #expect(life.alive == 1, "only the instance kept before the call is left")
        #expect(try app.resolveThrows(GCFAKept.self, argument: 0) === kept)
        #expect(try app.resolveThrows(GCFAKept.self, argument: 1).label == "m1")
        #expect(try app.resolveThrows(GCFAKept.self, name: "cart").label == "cart guest")
        #expect(life.made == 5)
        try app.dispose()
        #expect(life.events == ["dispose m1", "dispose m1", "dispose m0"])
    }

    @Test("Value types in .multiton and .container are kept and disposed of like objects")
    func valueTypesKept() throws {
        let life = GCFALife()
        let container = Container()
        container.register(GCFAValue.self) { (_, number: Int) in
            life.born()
            return GCFAValue(label: "v\(number)")
        }
        .inObjectScope(.multiton)
        .onDispose { life.note("dispose \($0.label)") }
        container.register(GCFAValue.self, name: "one") { _ in
            life.born()
            return GCFAValue(label: "c")
        }
        .inObjectScope(.container)
        .onDispose { life.note("dispose \($0.label)") }
        #expect(container.resolve(GCFAValue.self, argument: 7) == GCFAValue(label: "v7"))
        #expect(container.resolve(GCFAValue.self, argument: 7) == GCFAValue(label: "v7"))
        #expect(container.resolve(GCFAValue.self, name: "one") == GCFAValue(label: "c"))
        #expect(container.resolve(GCFAValue.self, name: "one") == GCFAValue(label: "c"))
        #expect(life.made == 2, "each factory ran once: the values are kept")
        try container.dispose()
        #expect(life.events == ["dispose c", "dispose v7"])
    }

    @Test("An Optional service that is nil is kept by .multiton and .container, and disposed of")
    func optionalServicesKept() throws {
        let life = GCFALife()
        let container = Container()
        container.register(Int?.self) { (_, number: Int) -> Int? in
            life.born()
            return number > 0 ? number : nil
        }
        .inObjectScope(.multiton)
        .onDispose { life.note("dispose \($0.map(String.init) ?? "nil")") }
        container.register(String?.self) { _ -> String? in
            life.born()
            return nil
        }
        .inObjectScope(.container)
        .onDispose { life.note("dispose \($0 ?? "nil")") }
        let none = container.resolve(Int?.self, argument: 0)
        #expect(none != nil, "resolved")
        #expect(none! == nil)
        #expect(container.resolve(Int?.self, argument: 0)! == nil)
        #expect(container.resolve(Int?.self, argument: 3)! == 3)
        #expect(container.resolve(Int?.self, argument: 3)! == 3)
        #expect(container.resolve(String?.self)! == nil)
        #expect(container.resolve(String?.self)! == nil)
        #expect(life.made == 3, "a nil instance is kept, not made again")
        try container.dispose()
        #expect(life.events == ["dispose nil", "dispose 3", "dispose nil"])
    }

    @Test(".multiton instances made concurrently through the synchronized view", .tags(.concurrency))
    func concurrentMultiton() throws {
        let life = GCFALife()
        let container = Container()
        container.register(GCFAKept.self) { (_, number: Int) in GCFAKept("m\(number)", life: life) }
            .inObjectScope(.multiton)
            .onDispose { life.note("dispose \($0.label)") }
        let resolver = container.synchronize()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<100 {
                _ = resolver.resolve(GCFAKept.self, argument: (round + worker) % 10)
            }
        }
        #expect(life.made == 10)
        try container.dispose()
        #expect(life.events.count == 10)
        #expect(Set(life.events).count == 10)
        #expect(life.alive == 0)
    }

    // MARK: - DIActor's release handlers (83a20ab)

    @Test("A release handler leaves a re-registration alone, and does nothing when called again")
    func releaseAfterReRegistration() async throws {
        let actor = DIActor()
        let first = await actor.register(String.self) { "first" }
        let firstAgain = await actor.register(Int.self) { 1 }
        await actor.register(String.self) { "second" }
        await first()
        #expect(await actor.resolve(String.self) == "second")
        await first()
        #expect(await actor.resolve(String.self) == "second")
        await firstAgain()
        #expect(await actor.resolve(Int.self) == nil)
        await firstAgain()
        #expect(await actor.registeredCount() == 1)
    }

    @Test("A release handler removes its own registration once, even after other types changed")
    func releaseOwnRegistration() async throws {
        let actor = DIActor()
        let release = await actor.registerSharedActor(String.self) { "kept" }
        for number in 0..<20 {
            await actor.register(Int.self) { number }
        }
        #expect(await actor.resolve(String.self) == "kept")
        await release()
        #expect(await actor.resolve(String.self) == nil)
        #expect(await actor.resolve(Int.self) == 19)
    }

    @Test("Handlers made before releaseAll() do nothing afterwards, even once the type is registered again")
    func releaseAfterReleaseAll() async throws {
        let actor = DIActor()
        let stale = await actor.register(String.self) { "before" }
        let staleAsync = await actor.registerAsync(Int.self) { 1 }
        await actor.releaseAll()
        await actor.register(String.self) { "after" }
        await actor.registerAsync(Int.self) { 2 }
        await stale()
        await staleAsync()
        #expect(await actor.resolve(String.self) == "after")
        #expect(try await actor.resolveAsync(Int.self) == 2)
    }

    @Test("The same handler called from many tasks at once removes its registration once", .tags(.concurrency))
    func releaseFromManyTasks() async throws {
        let actor = DIActor()
        let release = await actor.register(String.self) { "old" }
        let others = await withTaskGroup(of: (@Sendable () async -> Void).self) { group in
            for number in 0..<8 {
                group.addTask { await actor.register(Int.self, factory: { number }) }
            }
            var handlers: [@Sendable () async -> Void] = []
            for await handler in group {
                handlers.append(handler)
            }
            return handlers
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask { await release() }
            }
            for handler in others {
                group.addTask { await handler() }
            }
        }
        #expect(await actor.resolve(String.self) == nil)
        // Only the handler of the registration that won is still current: it was removed, the others
        // (replaced) did nothing.
        #expect(await actor.resolve(Int.self) == nil)
        #expect(await actor.registeredCount() == 0)
    }

    @Test("A handler made for a child container removes the child's registration, not its parent's")
    func releaseInChild() async throws {
        let parent = Container()
        parent.register(String.self) { _ in "parent" }
        let child = Container(parent: parent)
        let release = await Container.withCurrent(child) {
            await DIActor.shared.register(String.self) { "child" }
        }
        #expect(child.synchronize().resolve(String.self) == "child")
        await release()
        #expect(child.synchronize().resolve(String.self) == "parent")
        #expect(parent.synchronize().resolve(String.self) == "parent")
        await release()
        #expect(parent.synchronize().resolve(String.self) == "parent")
    }

    /// Known defect (83a20ab), seen under Thread Sanitizer only: `DIActor.registerAsync` makes its
    /// `DIActorRegistration` after leaving the container's lock, and that initializer reads the entry's
    /// `graphRecordKey`, which makes the entry's extras on first use. The write races with any thread
    /// that reads the entry under the lock (here `verify()`, copying the entry's front record): Thread
    /// Sanitizer reports a data race at ServiceEntry.swift `madeExtras`/`front`. Functionally the test
    /// passes; a lost update of the extras would leave the handler with an identity the entry no
    /// longer has, and the handler would then remove nothing.
    @Test(
        "registerAsync's handler is made while other threads inspect the container",
        .tags(.concurrency)
    )
    func registerAsyncWhileInspected() async throws {
        let container = Container()
        let box = GCFAContainerBox(container)
        let stop = GCFALife()
        let started = GCFALife()
        let inspector = Thread {
            started.born()
            while stop.made == 0 {
                // verify() takes the hierarchy's lock, and copies each entry's front record.
                _ = box.container.verify()
                _ = box.container.synchronize().resolve(String.self)
            }
            stop.died()
        }
        inspector.start()
        while started.made == 0 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        var handlers: [@Sendable () async -> Void] = []
        await Container.withCurrent(container) {
            for round in 0..<1000 {
                // Nothing else between two registrations: a sleep or a handshake would order the inspector's
                // reads after the handler's write, and hide the race from Thread Sanitizer.
                handlers.append(await DIActor.shared.registerAsync(Int.self, scope: .container) { round })
            }
        }
        stop.born()
        while stop.alive != 0 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        #expect(try await container.resolveAsync(Int.self) == 999)
        for handler in handlers.dropLast() {
            await handler()
        }
        #expect(try await container.resolveAsync(Int.self) == 999, "replaced registrations' handlers did nothing")
        await handlers.last?()
        #expect(container.resolve(Int.self) == nil)
    }

    // MARK: - Registry's ServiceOptions (83a20ab)

    @Test("Options kept after override change nothing; the current options work, before startup")
    func staleOptionsBeforeStartup() {
        final class Service {
            init(_ label: String) { FrontJournal.note("init \(label)") }
        }
        withRegistryTestbed { journal in
            let stale = Registry.register(Service.self) { Service("old") }
            let current = Registry.override(Service.self) { Service("new") }
            stale.lifecycle(.eager)
            Registry.performStartup()
            #expect(journal.events(startingWith: "init") == [], "stale options made the new service eager")
            current.lifecycle(.eager)
            #expect(journal.events(startingWith: "init") == ["init new"], "eager after startup: realized at once")
        }
        withRegistryTestbed { journal in
            let stale = Registry.register(Service.self) { Service("old") }
            let current = Registry.override(Service.self) { Service("new") }
            current.lifecycle(.eager)
            stale.lifecycle(.injection)
            Registry.performStartup()
            #expect(journal.events(startingWith: "init") == ["init new"])
        }
    }

    @Test("Options kept after re-registering change nothing after startup; stale options of a removed one too")
    func staleOptionsAfterStartup() {
        final class Service {
            init(_ label: String) { FrontJournal.note("init \(label)") }
        }
        withRegistryTestbed { journal in
            Registry.performStartup()
            let stale = Registry.register(Service.self, serviceId: "s") { Service("old") }
            let current = Registry.override(Service.self, serviceId: "s") { Service("new") }
            stale.lifecycle(.eager)
            stale.lifecycle(.eager)
            #expect(journal.events(startingWith: "init") == [])
            current.lifecycle(.eager).lifecycle(.eager)
            #expect(journal.events(startingWith: "init") == ["init new"])
            Registry.performShutdown()
            Registry.performStartup()
            current.lifecycle(.eager)
            stale.lifecycle(.eager)
            #expect(journal.events(startingWith: "init") == ["init new"], "the registrations went with shutdown")
        }
    }
}
