import Foundation
import Keystone
import Testing

// MARK: - Counting live objects

/// Counts the live instances of the classes that report to it, and the most alive at once.
private final class Census: @unchecked Sendable {
    // @unchecked: `live` and `peak` are read and written only under `lock`.
    private let lock = NSLock()
    private var live = 0
    private var peak = 0

    func born() {
        lock.lock()
        live += 1
        peak = max(peak, live)
        lock.unlock()
    }

    func died() {
        lock.lock()
        live -= 1
        lock.unlock()
    }

    var alive: Int {
        lock.lock()
        defer { lock.unlock() }
        return live
    }

    var mostAlive: Int {
        lock.lock()
        defer { lock.unlock() }
        return peak
    }
}

/// A class whose instances report their birth and death to a census.
private class Counted: @unchecked Sendable {
    // @unchecked: `census` is a `let` of a Sendable type; subclasses add only `let`s of Sendable types.
    let census: Census

    init(_ census: Census) {
        self.census = census
        census.born()
    }

    deinit {
        census.died()
    }
}

private final class Settings: Counted, @unchecked Sendable {}
private final class Pool: Counted, @unchecked Sendable {}
private final class Job: Counted, @unchecked Sendable {}
private final class Leaf: Counted, @unchecked Sendable {}
private final class Branch: Counted, @unchecked Sendable {
    let left: Leaf
    let right: Leaf
    init(_ census: Census, left: Leaf, right: Leaf) {
        self.left = left
        self.right = right
        super.init(census)
    }
}
private final class Tree: Counted, @unchecked Sendable {
    let branches: [Branch]
    let settings: Settings
    let pool: Pool
    init(_ census: Census, branches: [Branch], settings: Settings, pool: Pool) {
        self.branches = branches
        self.settings = settings
        self.pool = pool
        super.init(census)
    }
}
/// Holds a `Lazy` and a `Provider` of its own container.
private final class Deferring: Counted, @unchecked Sendable {
    let lazy: Lazy<Job>
    let provider: Provider<Job>
    init(_ census: Census, lazy: Lazy<Job>, provider: Provider<Job>) {
        self.lazy = lazy
        self.provider = provider
        super.init(census)
    }
}
/// Two objects wired to each other through `initCompleted`.
private final class Husband {
    var wife: Wife?
}
private final class Wife {
    let husband: Husband
    init(husband: Husband) { self.husband = husband }
}

// MARK: - Services for the property-wrapper tests

private final class Clock {}
private final class Screen {
    @Inject var clock: Clock
    @OptionalInject var missing: Wife?
    @LazyInject var lazyClock: Clock
}
/// A shared service that injects a dependency lazily: the shape a long-lived service often has.
private final class Dashboard {
    @LazyInject var clock: Clock
}
/// A shared service that injects a dependency when it is created.
private final class Ticker {
    @Inject var clock: Clock
}

/// Weak references to what a container made, to check after the container is gone.
private struct Witnesses {
    weak var container: Container?
    var objects: [() -> AnyObject?] = []

    mutating func watch(_ object: AnyObject) {
        objects.append { [weak object] in object }
    }

    var survivors: Int {
        objects.filter { $0() != nil }.count
    }
}

extension Reliability {
    /// What a container keeps alive, and for how long: nothing after it is released, no cycles through
    /// `Lazy`, `Provider` or the property wrappers, and a number of live objects that stays flat over
    /// a million resolves.
    @Suite("Memory")
    struct MemoryTests {
        @Test("Releasing a container releases it and every instance it made and holds")
        func releasingAContainerReleasesItsInstances() throws {
            let census = Census()
            let witnesses = try Self.populatedContainer(census)
            #expect(witnesses.container == nil)
            #expect(witnesses.survivors == 0)
            #expect(census.alive == 0)
        }

        /// Registers one service per scope, with a graph, an `initCompleted` cycle and a `Lazy`, resolves
        /// them all, and returns weak references to the container and everything it made.
        private static func populatedContainer(_ census: Census) throws -> Witnesses {
            let container = Container()
            container.register(Settings.self) { _ in Settings(census) }.inObjectScope(.container)
            container.register(Pool.self) { _ in Pool(census) }.inObjectScope(.weak)
            container.register(Job.self) { _ in Job(census) }.inObjectScope(.transient)
            container.register(Leaf.self) { _ in Leaf(census) }
            container.register(Branch.self) { r in
                Branch(census, left: try r.resolveThrows(Leaf.self), right: try r.resolveThrows(Leaf.self))
            }
            container.register(Tree.self) { r in
                Tree(
                    census,
                    branches: [try r.resolveThrows(Branch.self), try r.resolveThrows(Branch.self)],
                    settings: try r.resolveThrows(Settings.self),
                    pool: try r.resolveThrows(Pool.self)
                )
            }.inObjectScope(.container)
            container.register(Deferring.self) { r in
                Deferring(
                    census,
                    lazy: try r.resolveThrows(Lazy<Job>.self),
                    provider: try r.resolveThrows(Provider<Job>.self)
                )
            }.inObjectScope(.container)
            container.register(Husband.self) { _ in Husband() }
                .inObjectScope(.container)
                .initCompleted { r, husband in husband.wife = try r.resolveThrows(Wife.self) }
            container.register(Wife.self) { r in Wife(husband: try r.resolveThrows(Husband.self)) }

            var witnesses = Witnesses(container: container)
            let tree = try container.resolveThrows(Tree.self)
            witnesses.watch(tree)
            witnesses.watch(tree.pool)
            witnesses.watch(tree.branches[0].left)
            let deferring = try container.synchronize().resolveThrows(Deferring.self)
            witnesses.watch(deferring)
            witnesses.watch(try deferring.lazy.get())
            witnesses.watch(try deferring.provider.get())
            let husband = try container.resolveThrows(Husband.self)
            witnesses.watch(husband)
            // The couple refer to each other: a cycle of the app's own making, which the container
            // must not be part of. Break it as the app would, before letting go.
            let wife = try #require(husband.wife)
            witnesses.watch(wife)
            husband.wife = nil
            #expect(census.alive > 0)
            return witnesses
        }

        @Test("Releasing a child releases what the child holds and leaves the parent's instances alone")
        func releasingAChildKeepsTheParentsInstances() throws {
            let census = Census()
            let parent = Container()
            parent.register(Settings.self) { _ in Settings(census) }.inObjectScope(.container)
            weak var childSettings: Settings?
            weak var childPool: Pool?
            weak var child: Container?
            try {
                let made = Container(parent: parent)
                made.register(Pool.self) { r in
                    _ = try r.resolveThrows(Settings.self)
                    return Pool(census)
                }.inObjectScope(.container)
                childPool = try made.resolveThrows(Pool.self)
                childSettings = try made.resolveThrows(Settings.self)
                child = made
            }()
            #expect(child == nil)
            #expect(childPool == nil, "the child's own .container instance went with it")
            #expect(childSettings != nil, "the parent's .container instance stays with the parent")
            #expect(try parent.resolveThrows(Settings.self) === childSettings)
            #expect(census.alive == 1)
        }

        @Test(".weak instances live exactly as long as someone else holds them")
        func weakScopeReleases() throws {
            let census = Census()
            let container = Container()
            container.register(Pool.self) { _ in Pool(census) }.inObjectScope(.weak)
            var held: Pool? = try container.resolveThrows(Pool.self)
            weak let first = held
            #expect(try container.resolveThrows(Pool.self) === held, "shared while held")
            held = nil
            #expect(first == nil, "the container does not keep it")
            #expect(census.alive == 0)
            let next = try container.resolveThrows(Pool.self)
            #expect(census.alive == 1)
            #expect(next !== first)
        }

        @Test("A Lazy or a Provider, held inside or outside the container, does not keep the container alive")
        func lazyAndProviderMakeNoCycle() throws {
            let census = Census()
            weak var weakContainer: Container?
            var lazy: Lazy<Job>?
            var provider: Provider<Job>?
            weak var deferring: Deferring?
            try {
                let container = Container()
                container.register(Job.self) { _ in Job(census) }
                container.register(Deferring.self) { r in
                    Deferring(
                        census,
                        lazy: try r.resolveThrows(Lazy<Job>.self),
                        provider: try r.resolveThrows(Provider<Job>.self)
                    )
                }.inObjectScope(.container)
                let view = container.synchronize()
                let made = try view.resolveThrows(Deferring.self)
                _ = try made.lazy.get()
                _ = try made.provider.get()
                deferring = made
                lazy = try view.resolveThrows(Lazy<Job>.self)
                provider = try view.resolveThrows(Provider<Job>.self)
                weakContainer = container
            }()
            #expect(weakContainer == nil)
            #expect(deferring == nil)
            #expect(census.alive == 0, "the lazy's job went with the Deferring that held it")
            // Held outside, neither reaches its container any longer.
            #expect(throws: DIError.containerDeallocated(key: ServiceKey(serviceType: Job.self))) { try lazy?.get() }
            #expect(throws: DIError.containerDeallocated(key: ServiceKey(serviceType: Job.self))) {
                try provider?.get()
            }
        }

        @Test("Property wrappers of an object made inside withCurrent do not keep the container alive")
        func propertyWrappersOfATransientObjectMakeNoCycle() {
            weak var weakContainer: Container?
            weak var weakScreen: Screen?
            do {
                let container = Container()
                weakContainer = container
                var screen: Screen? = Container.withCurrent(container) {
                    DependencyRegistry.register { Clock() }
                    return Screen()
                }
                weakScreen = screen
                #expect(screen?.missing == nil)
                #expect(
                    screen?.lazyClock === screen?.clock,
                    "read after withCurrent, from the container it was made in"
                )
                screen = nil
            }
            #expect(weakScreen == nil)
            #expect(weakContainer == nil)
        }

        @Test("A shared service with an @Inject property does not keep its container alive")
        func sharedServiceWithInjectMakesNoCycle() {
            weak var weakContainer: Container?
            do {
                let container = Container()
                weakContainer = container
                Container.withCurrent(container) {
                    DependencyRegistry.register { Clock() }
                    DependencyRegistry.register { Ticker() }
                    let ticker: Ticker = DependencyRegistry.resolve()
                    #expect(ticker.clock === DependencyRegistry.resolve() as Clock)
                }
            }
            #expect(weakContainer == nil)
        }

        @Test("Instances registered through the fronts are released with their container")
        func frontRegistrationsDieWithTheirContainer() {
            weak var weakContainer: Container?
            weak var weakClock: Clock?
            do {
                let container = Container()
                weakContainer = container
                Container.withCurrent(container) {
                    DependencyRegistry.register { Clock() }
                    weakClock = DependencyRegistry.resolve() as Clock
                }
            }
            #expect(weakContainer == nil)
            // The fronts' bookkeeping for a container lives in the container: it goes with it, and so do
            // the entries it remembers and their instances.
            #expect(weakClock == nil)
        }

        @Test("A shared service with a @LazyInject property does not keep its container alive")
        func sharedServiceWithLazyInjectMakesNoCycle() {
            // The container holds the shared Dashboard, whose @LazyInject holds the context it was made
            // in, which holds the container: a cycle unless one of those references is weak.
            weak var weakContainer: Container?
            weak var weakDashboard: Dashboard?
            do {
                let container = Container()
                weakContainer = container
                Container.withCurrent(container) {
                    DependencyRegistry.register { Clock() }
                    DependencyRegistry.register { Dashboard() }
                    let dashboard: Dashboard = DependencyRegistry.resolve()
                    _ = dashboard.clock
                    weakDashboard = dashboard
                }
            }
            #expect(weakContainer == nil)
            #expect(weakDashboard == nil)
        }

        @Test("A million resolves through a synchronized view leave the number of live objects flat")
        func aMillionResolvesKeepMemoryFlat() throws {
            let census = Census()
            let container = Container()
            container.register(Settings.self) { _ in Settings(census) }.inObjectScope(.container)
            container.register(Pool.self) { _ in Pool(census) }.inObjectScope(.weak)
            container.register(Job.self) { _ in Job(census) }.inObjectScope(.transient)
            container.register(Leaf.self) { _ in Leaf(census) }
            container.register(Branch.self) { r in
                Branch(census, left: try r.resolveThrows(Leaf.self), right: try r.resolveThrows(Leaf.self))
            }
            container.register(Tree.self) { r in
                Tree(
                    census,
                    branches: [try r.resolveThrows(Branch.self)],
                    settings: try r.resolveThrows(Settings.self),
                    pool: try r.resolveThrows(Pool.self)
                )
            }
            let view = container.synchronize()
            let resolves = 1_000_000
            // The one `.container` instance, plus the largest graph alive at once: a Tree with its
            // Branch, two Leaves and a Pool (the Settings is the shared one).
            let containerScoped = 1
            let largestGraph = 5
            var failures = 0
            for iteration in 0..<resolves {
                // Mostly the cheap cached resolve, so that a million fit in a few seconds of a debug build;
                // one in fifty of each other kind.
                switch iteration % 50 {
                case 0: _ = try view.resolveThrows(Tree.self)
                case 1: _ = try view.resolveThrows(Branch.self)
                case 2: _ = try view.resolveThrows(Pool.self)
                case 3: _ = try view.resolveThrows(Job.self)
                case 4: _ = try view.resolveThrows(Provider<Job>.self).get()
                case 5: _ = try view.resolveThrows(Lazy<Leaf>.self).get()
                case 6: _ = view.resolve(Job.self, name: "missing")  // a failure, logged and swallowed
                case 7: failures += view.resolveResult(Husband.self).isSuccess ? 0 : 1
                default: _ = try view.resolveThrows(Settings.self)
                }
                if iteration % 100_000 == 0 {
                    #expect(
                        census.alive <= containerScoped,
                        "after \(iteration) resolves, \(census.alive) objects are alive"
                    )
                }
            }
            #expect(failures == resolves / 50)
            #expect(census.alive == containerScoped, "only the .container instance outlives its resolve")
            #expect(census.mostAlive <= containerScoped + largestGraph, "most alive at once: \(census.mostAlive)")
            container.resetObjectScope(.container)
            #expect(census.alive == 0)
        }

        @Test("Failed resolves never make the log handler deeper", .tags(.stackDepthSensitive), .swapsLogHandler)
        func failedResolvesDoNotGrowTheLogHandler() async {
            // In a process of its own, since it replaces the process-wide handler. The handler notes how
            // deep in the stack it runs; a handler that gained a reabstraction thunk on every failed
            // resolve (as one stored as a bare closure in a generic box and read through an inout accessor
            // does) would run deeper each time, until the stack overflows.
            await #expect(processExitsWith: .success) {
                let depths = StackDepths()
                Container.logHandler = { _ in depths.note() }
                let container = Container()
                for _ in 0..<5_000 {
                    _ = container.resolve(Clock.self)
                }
                exit(depths.count == 5_000 && depths.distinct == 1 ? EXIT_SUCCESS : EXIT_FAILURE)
            }
        }

        @Test(
            "Reading Container.logHandler and writing it back never makes the handler deeper",
            .tags(.stackDepthSensitive),
            .swapsLogHandler
        )
        func savingAndRestoringTheLogHandlerDoesNotGrowIt() async {
            // The save-and-restore pattern of a test that silences Keystone for a while. Each round trip
            // through the getter and setter must leave the same handler, not a thunk around it.
            await #expect(processExitsWith: .success) {
                let depths = StackDepths()
                Container.logHandler = { _ in depths.note() }
                let container = Container()
                for _ in 0..<3 {
                    for _ in 0..<1_000 {
                        let saved = Container.logHandler
                        Container.logHandler = saved
                    }
                    _ = container.resolve(Clock.self)
                }
                exit(depths.count == 3 && depths.distinct == 1 ? EXIT_SUCCESS : EXIT_FAILURE)
            }
        }
    }
}

/// Where in the stack a log handler ran, call after call (in an exit test's process, on one thread).
private final class StackDepths: @unchecked Sendable {
    // @unchecked: used by the one thread that resolves, in an exit test.
    private var addresses: [Int] = []

    /// Notes the address of a local of the caller's frame: deeper calls have lower addresses.
    func note() {
        var marker = 0
        addresses.append(withUnsafeMutablePointer(to: &marker) { Int(bitPattern: $0) })
    }

    var count: Int { addresses.count }
    var distinct: Int { Set(addresses).count }
}

extension Result {
    fileprivate var isSuccess: Bool {
        if case .success = self {
            return true
        }
        return false
    }
}
