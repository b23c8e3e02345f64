import Dispatch
import Foundation
import Keystone
import Testing

// Services for the contention tests. Every instance takes a serial number, so that instances are
// told apart even when one's memory is reused by another.
private let serials = Counter()

private final class Serial: @unchecked Sendable {
    let id: Int
    init() {
        serials.increment()
        id = serials.count
    }
}

private final class Config: Sendable {}
private final class Cache: Sendable {}
private final class Request: Sendable {}
private final class Leaf: Sendable {
    let serial = Serial()
}
private final class Branch: Sendable {
    let leaf: Leaf
    init(leaf: Leaf) { self.leaf = leaf }
}
private final class Root: Sendable {
    let left: Branch
    let right: Branch
    let config: Config
    init(left: Branch, right: Branch, config: Config) {
        self.left = left
        self.right = right
        self.config = config
    }
}
private final class FeatureService: Sendable {
    let root: Root
    let cache: Cache
    init(root: Root, cache: Cache) {
        self.root = root
        self.cache = cache
    }
}

/// Factory run counts, one per registration.
private final class Runs: Sendable {
    let config = Counter()
    let cache = Counter()
    let feature = Counter()
}

/// A parent with `.container`, `.weak`, `.transient` and `.graph` registrations, and a child whose
/// factories resolve re-entrantly from both.
private func makeHierarchy(_ runs: Runs) -> (parent: Container, child: Container) {
    let parent = Container()
    parent.register(Config.self) { _ in
        runs.config.increment()
        return Config()
    }.inObjectScope(.container)
    parent.register(Cache.self) { _ in
        runs.cache.increment()
        return Cache()
    }.inObjectScope(.weak)
    parent.register(Request.self) { _ in Request() }.inObjectScope(.transient)
    parent.register(Leaf.self) { _ in Leaf() }
    parent.register(Branch.self) { r in Branch(leaf: try r.resolveThrows(Leaf.self)) }
    parent.register(Root.self) { r in
        Root(
            left: try r.resolveThrows(Branch.self),
            right: try r.resolveThrows(Branch.self),
            config: try r.resolveThrows(Config.self)
        )
    }
    let child = Container(parent: parent)
    child.register(FeatureService.self) { r in
        runs.feature.increment()
        return FeatureService(root: try r.resolveThrows(Root.self), cache: try r.resolveThrows(Cache.self))
    }.inObjectScope(.container)
    return (parent, child)
}

/// What one worker checks on each of its resolves; returns the leaf serial of the graph it resolved.
private func work(_ resolver: SynchronizedResolver, isChild: Bool, iteration: Int, keptCache: Cache) throws -> Int {
    switch iteration % 5 {
    case 0:
        let root = try resolver.resolveThrows(Root.self)
        #expect(root.left.leaf === root.right.leaf, "one graph shares its .graph instances")
        return root.left.leaf.serial.id
    case 1:
        _ = try resolver.resolveThrows(Config.self)
    case 2:
        #expect(try resolver.resolveThrows(Cache.self) === keptCache)
    case 3:
        let first = try resolver.resolveThrows(Request.self)
        #expect(try resolver.resolveThrows(Request.self) !== first)
    default:
        if isChild {
            _ = try resolver.resolveThrows(FeatureService.self)
        } else {
            #expect(throws: DIError.self, "a parent never sees its child's registrations") {
                try resolver.resolveThrows(FeatureService.self)
            }
        }
    }
    return 0
}

/// Records graph serials from many workers and checks that no two graphs ever shared one.
private final class SerialLedger: @unchecked Sendable {
    // @unchecked: `seen` is only touched under `lock`.
    private let lock = NSLock()
    private var seen = Set<Int>()
    private(set) var duplicates = 0

    func record(_ ids: [Int]) {
        lock.lock()
        defer { lock.unlock() }
        for id in ids where id != 0 {
            if !seen.insert(id).inserted { duplicates += 1 }
        }
    }
}

@Suite("Thread safety through synchronize()", .tags(.concurrency, .engine), .hangLimit)
struct ConcurrencyTests {
    static let workers = 8
    static let resolvesPerWorker = 10_000

    @Test("8 threads x 10,000 resolves through parent and child views: singletons made once, graphs never shared")
    func threadsContention() throws {
        let runs = Runs()
        let (parent, child) = makeHierarchy(runs)
        let parentView = parent.synchronize()
        let childView = child.synchronize()
        let keptCache = try #require(parentView.resolve(Cache.self))
        let ledger = SerialLedger()
        let failures = Counter()
        let group = DispatchGroup()
        for worker in 0..<Self.workers {
            group.enter()
            let thread = Thread {
                defer { group.leave() }
                let isChild = !worker.isMultiple(of: 2)
                let view = isChild ? childView : parentView
                var graphs: [Int] = []
                graphs.reserveCapacity(Self.resolvesPerWorker / 5)
                for iteration in 0..<Self.resolvesPerWorker {
                    do {
                        graphs.append(
                            try work(view, isChild: isChild, iteration: iteration + worker, keptCache: keptCache)
                        )
                    } catch {
                        failures.increment()
                    }
                }
                ledger.record(graphs)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        #expect(group.wait(timeout: .now() + 120) == .success, "no worker hangs")
        #expect(failures.count == 0)
        #expect(ledger.duplicates == 0)
        #expect(runs.config.count == 1)
        #expect(runs.cache.count == 1)
        #expect(runs.feature.count == 1)
        withExtendedLifetime(keptCache) {}
    }

    @Test("8 tasks x 10,000 resolves in a task group, with parent and child views at once")
    func taskGroupContention() async throws {
        let runs = Runs()
        let (parent, child) = makeHierarchy(runs)
        let parentView = parent.synchronize()
        let childView = child.synchronize()
        let keptCache = try #require(parentView.resolve(Cache.self))
        let ledger = SerialLedger()
        let failures = await withTaskGroup(of: Int.self) { group in
            for worker in 0..<Self.workers {
                group.addTask {
                    let isChild = !worker.isMultiple(of: 2)
                    let view = isChild ? childView : parentView
                    var failures = 0
                    var graphs: [Int] = []
                    for iteration in 0..<Self.resolvesPerWorker {
                        do {
                            graphs.append(
                                try work(view, isChild: isChild, iteration: iteration + worker, keptCache: keptCache)
                            )
                        } catch {
                            failures += 1
                        }
                    }
                    ledger.record(graphs)
                    return failures
                }
            }
            return await group.reduce(0, +)
        }
        #expect(failures == 0)
        #expect(ledger.duplicates == 0)
        #expect(runs.config.count == 1)
        #expect(runs.cache.count == 1)
        #expect(runs.feature.count == 1)
    }

    @Test("Threads racing for a .container and a .weak instance all get the one instance, made once")
    func racingForFirstCreation() {
        for _ in 0..<20 {
            let made = Counter()
            let container = Container()
            container.register(Config.self) { _ in
                made.increment()
                return Config()
            }.inObjectScope(.container)
            container.register(Cache.self) { _ in
                made.increment()
                return Cache()
            }.inObjectScope(.weak)
            let view = container.synchronize()
            let results = Box<[ObjectIdentifier]>([])
            let start = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for _ in 0..<8 {
                group.enter()
                Thread {
                    start.wait()
                    let config = view.resolve(Config.self)!
                    let cache = view.resolve(Cache.self)!
                    results.mutate { $0 += [ObjectIdentifier(config), ObjectIdentifier(cache)] }
                    // Hold the weak instance until every thread has resolved it.
                    group.leave()
                    withExtendedLifetime(cache) { release.wait() }
                }.start()
            }
            for _ in 0..<8 { start.signal() }
            group.wait()
            for _ in 0..<8 { release.signal() }
            #expect(made.count == 2)
            #expect(Set(results.value).count == 2)
        }
    }

    @Test("A factory may resolve re-entrantly through the synchronized resolver it captured, without deadlock")
    func reentrantThroughCapturedView() async {
        let container = Container()
        let view = container.synchronize()
        container.register(Config.self) { _ in Config() }
        container.register(Root.self) { _ in
            Root(
                left: Branch(leaf: Leaf()),
                right: Branch(leaf: Leaf()),
                config: view.resolve(Config.self)!
            )
        }
        let root = await Task.detached { view.resolve(Root.self) }.value
        #expect(root != nil)
    }

    @Test("Lazy and Provider obtained through a view resolve later, under the lock, from other threads")
    func lazyAndProviderAcrossThreads() async throws {
        let made = Counter()
        let container = Container()
        container.register(Config.self) { _ in
            made.increment()
            return Config()
        }
        let view = container.synchronize()
        let lazy = try #require(view.resolve(Lazy<Config>.self))
        let provider = try #require(view.resolve(Provider<Config>.self))
        let ids = await withTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    _ = provider.instance
                    return ObjectIdentifier(lazy.instance)
                }
            }
            return await group.reduce(into: Set<ObjectIdentifier>()) { $0.insert($1) }
        }
        #expect(ids.count == 1, "a Lazy resolves once however many threads ask")
        #expect(made.count == 9, "1 for the Lazy, 8 for the Provider")
    }

    @Test("A SynchronizedResolver is passed to Task.detached and task groups without warnings")
    func sendableAcrossTasks() async throws {
        let container = Container()
        container.register(Config.self) { _ in Config() }.inObjectScope(.container)
        let resolver = container.synchronize()
        let detached = try #require(await Task.detached { resolver.resolve(Config.self) }.value)
        let viaExistential: any Resolver & Sendable = resolver
        let fromGroup = await withTaskGroup(of: Config?.self) { group in
            group.addTask { viaExistential.resolve(Config.self) }
            return await group.next()!
        }
        #expect(fromGroup === detached)
        #expect(container.resolve(Config.self) === detached)
    }

    #if DEBUG
        @Test(
            "In debug builds, a second thread entering an unsynchronized container while another runs its resolve stops with advice"
        )
        func unsynchronizedMisuseIsCaught() async {
            await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                // A custom scope's storage is read by the engine itself (not by a factory), so while it waits the
                // first thread is inside the resolve path: a second thread entering then is concurrent use.
                let inStorage = DispatchSemaphore(value: 0)
                let finish = DispatchSemaphore(value: 0)
                final class StallingStorage: InstanceStorage, @unchecked Sendable {
                    let inStorage: DispatchSemaphore
                    let finish: DispatchSemaphore
                    init(_ inStorage: DispatchSemaphore, _ finish: DispatchSemaphore) {
                        self.inStorage = inStorage
                        self.finish = finish
                    }
                    var instance: Any? {
                        get { nil }
                        set {}
                    }
                    func instance(inGraph graph: GraphIdentifier) -> Any? {
                        inStorage.signal()
                        finish.wait()
                        return nil
                    }
                }
                let stalling = ObjectScope(
                    storageFactory: { StallingStorage(inStorage, finish) },
                    description: "stalling"
                )
                let container = Container()
                container.register(Config.self) { _ in Config() }.inObjectScope(stalling)
                container.register(Cache.self) { _ in Cache() }
                nonisolated(unsafe) let shared = container  // the misuse under test
                Thread { _ = shared.resolve(Config.self) }.start()
                inStorage.wait()
                _ = container.resolve(Cache.self)
            }.map { result in
                let message = String(decoding: result.standardErrorContent, as: UTF8.self)
                #expect(message.contains("entered by a second thread while another thread was resolving from it"))
                #expect(message.contains("synchronize() once"))
                #expect(message.contains("another container of its hierarchy"))
            }
        }

        @Test(
            "A factory may hand work to another thread that resolves from the same unsynchronized container, and wait for it"
        )
        func sequentialHandOffIsAllowed() async {
            await #expect(processExitsWith: .success) {
                let container = Container()
                container.register(Cache.self) { _ in Cache() }
                container.register(Config.self) { [unowned container] _ in
                    // The factory waits while the other thread resolves: one thread at a time, so no misuse.
                    let done = DispatchSemaphore(value: 0)
                    nonisolated(unsafe) let handedOff = container
                    nonisolated(unsafe) var cache: Cache?
                    Thread {
                        cache = handedOff.resolve(Cache.self)
                        done.signal()
                    }.start()
                    done.wait()
                    precondition(cache != nil)
                    return Config()
                }
                precondition(container.resolve(Config.self) != nil)
            }
        }
    #endif
}

/// A value behind a lock, for collecting results from several threads.
final class Box<Value>: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock`.
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
    func mutate(_ body: (inout Value) -> Void) {
        lock.lock()
        defer { lock.unlock() }
        body(&stored)
    }
}
