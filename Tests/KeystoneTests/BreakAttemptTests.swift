import Foundation
import Keystone
import Testing

// Adversarial cases for publication (API §7) and for the disposal of what a container drops (API §10):
// drops made from inside factories, initCompleted actions, disposal handlers and deinitializers;
// withContainer nested, on a child's view, throwing and under contention; .multiton trees, cycles and
// races; disposal order across a hierarchy and through forwarded keys.

private final class Resource {
    let name: String
    var configured = false
    init(_ name: String) { self.name = name }
}

private final class Dependent {
    let resource: Resource
    init(_ resource: Resource) { self.resource = resource }
}

private final class Top {
    let dependent: Dependent
    init(_ dependent: Dependent) { self.dependent = dependent }
}

private final class Extra {}

/// Runs `action` when deinitialized.
private final class Noisy {
    let action: () -> Void
    init(_ action: @escaping () -> Void) { self.action = action }
    deinit { action() }
}

private final class Node {
    let depth: Int
    let child: Node?
    init(depth: Int, child: Node?) {
        self.depth = depth
        self.child = child
    }
}

private struct Refused: Error {}

// MARK: - Drops made from inside the container's own calls

@Suite("Drops from inside factories, actions, handlers and deinitializers")
struct DropsFromInsideTests {
    @Test(
        "A reset in a .container instance's initCompleted disposes that instance once; the next resolve makes a new one"
    )
    func resetInInitCompleted() throws {
        let container = Container()
        let journal = EventLog()
        var made = 0
        var resets = 0
        container.register(Resource.self) { _ in
            made += 1
            return Resource("r\(made)")
        }
        .inObjectScope(.container)
        .initCompleted { _, _ in
            if resets == 0 {
                resets += 1
                container.resetObjectScope(.container)
            }
        }
        .onDispose { journal.record("dispose \($0.name)") }
        let first = try container.resolveThrows(Resource.self)
        #expect(first.name == "r1")
        #expect(journal.all == ["dispose r1"])
        let second = try container.resolveThrows(Resource.self)
        #expect(second.name == "r2")
        #expect(try container.resolveThrows(Resource.self) === second)
        try container.dispose()
        #expect(journal.all == ["dispose r1", "dispose r2"])
    }

    @Test(
        "A reset in a factory drops the instances completed before it and the creation in flight, disposing each once"
    )
    func resetInAnotherFactory() throws {
        let container = Container()
        let journal = EventLog()
        container.register(Resource.self) { _ in Resource("db") }
            .inObjectScope(.container)
            .onDispose { journal.record("dispose \($0.name)") }
        var resetting = true
        container.register(Dependent.self) { r in
            if resetting {
                resetting = false
                container.resetObjectScope(.container)
            }
            return Dependent(r.resolve(Resource.self)!)
        }
        .inObjectScope(.container)
        .onDispose { _ in journal.record("dispose dependent") }
        let resource = try container.resolveThrows(Resource.self)
        let dependent = try container.resolveThrows(Dependent.self)
        // The dependent's own creation was in flight when its scope was reset: not kept, disposed once made.
        #expect(journal.all == ["dispose db", "dispose dependent"])
        #expect(dependent.resource !== resource, "the reset came before the dependent's resolve")
        let next = try container.resolveThrows(Dependent.self)
        #expect(next !== dependent)
        #expect(next.resource === dependent.resource, "the database made after the reset was kept")
        #expect(try container.resolveThrows(Dependent.self) === next)
        try container.dispose()
        #expect(journal.all == ["dispose db", "dispose dependent", "dispose dependent", "dispose db"])
    }

    @Test("Handlers of one drop that reset, resolve and register again dispose every instance exactly once")
    func handlersThatReenter() throws {
        let container = Container()
        let journal = EventLog()
        var count = 0
        container.register(Resource.self) { _ in
            count += 1
            return Resource("resource\(count)")
        }
        .inObjectScope(.container)
        .onDispose { journal.record("dispose \($0.name)") }
        container.register(Dependent.self) { r in Dependent(r.resolve(Resource.self)!) }
            .inObjectScope(.container)
            .onDispose { _ in
                journal.record("dispose dependent")
                // The resource's handler is still to run: a resolve now makes a new resource.
                _ = container.resolve(Resource.self)
                container.register(Extra.self) { _ in Extra() }
            }
        container.register(Top.self) { r in Top(r.resolve(Dependent.self)!) }
            .inObjectScope(.container)
            .onDispose { _ in
                journal.record("dispose top")
                // A nested reset while the others' handlers are pending: they were taken already.
                container.resetObjectScope(.container)
            }
        _ = try container.resolveThrows(Top.self)
        container.resetObjectScope(.container)
        #expect(journal.all == ["dispose top", "dispose dependent", "dispose resource1"])
        #expect(container.hasAnyRegistration(of: Extra.self))
        // The resource made by the dependent's handler lives on, and is disposed by the next drop.
        #expect(try container.resolveThrows(Resource.self).name == "resource2")
        try container.dispose()
        #expect(journal.all == ["dispose top", "dispose dependent", "dispose resource1", "dispose resource2"])
    }

    @Test("A handler that re-registers its own service while the drop is pending disposes nothing twice")
    func handlerReRegistersItsOwnService() throws {
        let container = Container()
        let journal = EventLog()
        container.register(Resource.self) { _ in Resource("first") }
            .inObjectScope(.container)
            .onDispose { resource in
                journal.record("dispose \(resource.name)")
                container.register(Resource.self) { _ in Resource("second") }
                    .inObjectScope(.container)
                    .onDispose { journal.record("dispose \($0.name)") }
            }
        _ = try container.resolveThrows(Resource.self)
        container.register(Resource.self) { _ in Resource("replacement") }.inObjectScope(.container)
        #expect(journal.all == ["dispose first"])
        #expect(try container.resolveThrows(Resource.self).name == "second")
        try container.dispose()
        #expect(journal.all == ["dispose first", "dispose second"])
    }

    @Test("Deinitializers of dropped instances may resolve, register and reset again")
    func deinitializersThatReenter() throws {
        let container = Container()
        let resolvedInDeinit = EventLog()
        container.register(Resource.self) { _ in Resource("db") }.inObjectScope(.container)
        container.register(Noisy.self) { _ in
            Noisy {
                if let resource = container.resolve(Resource.self) {
                    resolvedInDeinit.record(resource.name)
                }
                container.register(Extra.self) { _ in Extra() }
                container.resetObjectScope(.container)
            }
        }
        .inObjectScope(.container)
        _ = try container.resolveThrows(Noisy.self)
        container.resetObjectScope(.container)
        #expect(resolvedInDeinit.all == ["db"])
        #expect(container.hasAnyRegistration(of: Extra.self))

        // removeAll: the deinitializer runs once the table is empty; what it registers stays.
        _ = try container.resolveThrows(Noisy.self)
        container.removeAll()
        #expect(container.hasAnyRegistration(of: Extra.self))
        #expect(!container.hasAnyRegistration(of: Noisy.self))
    }

    @Test("A factory that re-registers a key being resolved in the same call keeps both registrations usable")
    func reRegistrationOfAnotherKeyInsideAFactory() throws {
        let container = Container()
        let journal = EventLog()
        container.register(Resource.self) { _ in Resource("old") }
            .inObjectScope(.container)
            .onDispose { journal.record("dispose \($0.name)") }
        container.register(Dependent.self) { r in
            let resource = r.resolve(Resource.self)!
            container.register(Resource.self) { _ in Resource("new") }.inObjectScope(.container)
            return Dependent(resource)
        }
        let dependent = try container.resolveThrows(Dependent.self)
        #expect(dependent.resource.name == "old")
        #expect(journal.all == ["dispose old"])
        #expect(try container.resolveThrows(Resource.self).name == "new")
    }

    @Test("implements on a new registration that takes over a key disposes the instance the key led to")
    func implementsReplacingAKeyDisposes() throws {
        let container = Container()
        let journal = EventLog()
        container.register(AnyObject.self) { _ in Resource("plain") }
            .inObjectScope(.container)
            .onDispose { journal.record("dispose \(($0 as! Resource).name)") }
        _ = try container.resolveThrows(AnyObject.self)
        container.register(Resource.self) { _ in Resource("forwarded") }.implements(AnyObject.self)
        #expect(journal.all == ["dispose plain"])
        #expect((try container.resolveThrows(AnyObject.self) as? Resource)?.name == "forwarded")
    }
}

// MARK: - A creation in flight when its scope is dropped (API §10)

@Suite("A .container creation in flight when its scope is dropped")
struct InFlightDropTests {
    // API §10: "A .container or .multiton creation still in flight when its scope is dropped
    // (resetObjectScope, dispose, disposeAsync, re-registration) is never stored afterwards, and its
    // instance is disposed once the creation completes." The synchronous engine stores the instance
    // in the dropped scope all the same (Swinject does too, but the contract speaks here).

    @Test("A factory that re-registers its own key: the instance it makes is disposed once it completes")
    func factoryReRegistersItsOwnKey() throws {
        let container = Container()
        let journal = EventLog()
        var replaced = false
        container.register(Resource.self) { _ in
            if !replaced {
                replaced = true
                container.register(Resource.self) { _ in Resource("new") }
                    .inObjectScope(.container)
                    .onDispose { journal.record("dispose \($0.name)") }
            }
            return Resource("old")
        }
        .inObjectScope(.container)
        .onDispose { journal.record("dispose \($0.name)") }
        #expect(try container.resolveThrows(Resource.self).name == "old")
        #expect(try container.resolveThrows(Resource.self).name == "new")
        try container.dispose()
        #expect(journal.all.sorted() == ["dispose new", "dispose old"])

    }

    @Test("A factory that resets its own scope: the instance is not kept, and is disposed once it completes")
    func factoryResetsItsOwnScope() throws {
        let container = Container()
        let journal = EventLog()
        var count = 0
        container.register(Resource.self) { _ in
            count += 1
            if count == 1 {
                container.resetObjectScope(.container)
            }
            return Resource("r\(count)")
        }
        .inObjectScope(.container)
        .onDispose { journal.record("dispose \($0.name)") }
        let first = try container.resolveThrows(Resource.self)
        let second = try container.resolveThrows(Resource.self)
        #expect(journal.all == ["dispose r1"])
        #expect(second !== first)

    }

    @Test("A factory that removes every registration: the instance it makes is disposed once it completes")
    func factoryRemovesAll() throws {
        let container = Container()
        let journal = EventLog()
        container.register(Resource.self) { _ in
            container.removeAll()
            return Resource("orphan")
        }
        .inObjectScope(.container)
        .onDispose { journal.record("dispose \($0.name)") }
        #expect(try container.resolveThrows(Resource.self).name == "orphan")
        #expect(!container.hasAnyRegistration(of: Resource.self))
        try container.dispose()
        #expect(journal.all == ["dispose orphan"])

    }
}

@Suite("A creation in flight when its scope is dropped: dispose and async", .tags(.concurrency), .hangLimit)
struct InFlightDropMoreTests {
    @Test("A factory that disposes its container: the instance it makes is not kept afterwards")
    func factoryDisposesItsContainer() throws {
        let container = Container()
        let journal = EventLog()
        var count = 0
        container.register(Resource.self) { _ in
            count += 1
            if count == 1 {
                try? container.dispose()
            }
            return Resource("r\(count)")
        }
        .inObjectScope(.container)
        .onDispose { journal.record("dispose \($0.name)") }
        let first = try container.resolveThrows(Resource.self)
        let second = try container.resolveThrows(Resource.self)
        #expect(second !== first)
        #expect(journal.all == ["dispose r1"])

    }

    @Test(
        "An async .container creation in flight when its scope is reset is not kept, and is disposed when it completes"
    )
    func asyncCreationInFlightWhenReset() async throws {
        let container = Container()
        let view = container.synchronize()
        let journal = EventLog()
        let started = PublishedCount()
        let release = PublishedCount()
        let made = Counter()
        container.registerAsync(Tracked.self) { _ in
            made.increment()
            let id = made.count
            started.set(1)
            while release.value == 0 {
                try await Task.sleep(nanoseconds: 1_000_000)
            }
            return Tracked(id: id)
        }
        .inObjectScope(.container)
        .onDispose { journal.record("dispose \($0.id)") }
        let first = Task { try await view.resolveAsync(Tracked.self) }
        while started.value == 0 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        container.resetObjectScope(.container)
        release.set(1)
        let one = try await first.value
        let two = try await view.resolveAsync(Tracked.self)
        #expect(one !== two)
        #expect(journal.all == ["dispose 1"])

    }

    @Test("disposeAsync waits for a creation in flight and disposes its instance")
    func disposeAsyncWaitsForCreationInFlight() async throws {
        let container = Container()
        let view = container.synchronize()
        let journal = EventLog()
        let started = PublishedCount()
        let release = PublishedCount()
        container.registerAsync(Tracked.self) { _ in
            started.set(1)
            while release.value == 0 {
                try await Task.sleep(nanoseconds: 1_000_000)
            }
            return Tracked(id: 1)
        }
        .inObjectScope(.container)
        .onDispose { journal.record("dispose \($0.id)") }
        let first = Task { try await view.resolveAsync(Tracked.self) }
        while started.value == 0 {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
        let releaser = Task {
            try await Task.sleep(nanoseconds: 50_000_000)
            release.set(1)
        }
        try await container.disposeAsync()
        _ = try await first.value
        try await releaser.value
        #expect(journal.all == ["dispose 1"])

    }
}

// MARK: - withContainer

@Suite("withContainer nested, on a child's view, throwing, under contention", .tags(.concurrency), .hangLimit)
struct WithContainerBreakTests {
    @Test("withContainer inside a factory, and inside another withContainer, registers without deadlock")
    func nested() throws {
        let container = Container()
        let view = container.synchronize()
        container.register(Dependent.self) { r in
            view.withContainer { c in
                c.register(Resource.self) { _ in Resource("late") }.inObjectScope(.container)
            }
            return Dependent(r.resolve(Resource.self)!)
        }
        #expect(try view.resolveThrows(Dependent.self).resource.name == "late")
        let inner = view.withContainer { outer in
            outer.register(Extra.self) { _ in Extra() }
            return view.withContainer { inner in
                inner.register(Top.self) { r in Top(r.resolve(Dependent.self)!) }
                return inner === outer
            }
        }
        #expect(inner)
        #expect(try view.resolveThrows(Top.self).dependent.resource.name == "late")
    }

    @Test("withContainer on a child's view hands the child, and registers there only")
    func childView() throws {
        let parent = Container()
        let child = Container(parent: parent)
        let isChild = child.synchronize().withContainer { c in
            c.register(Resource.self) { _ in Resource("child") }
            return c === child
        }
        #expect(isChild)
        #expect(!parent.hasAnyRegistration(of: Resource.self))
        #expect(try child.resolveThrows(Resource.self).name == "child")
    }

    @Test("A throwing body: what it registered before the throw stays, whole, and the lock is released")
    func throwingBody() throws {
        let container = Container()
        let view = container.synchronize()
        #expect(throws: Refused.self) {
            try view.withContainer { c in
                c.register(Resource.self) { _ in Resource("kept") }.inObjectScope(.container)
                throw Refused()
            }
        }
        let first = try view.resolveThrows(Resource.self)
        #expect(first.name == "kept")
        #expect(try view.resolveThrows(Resource.self) === first, "with its scope")
        // Another thread gets the lock.
        let done = DispatchSemaphore(value: 0)
        let resolved = Counter()
        Thread {
            if view.resolve(Resource.self) != nil { resolved.increment() }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(resolved.count == 1)
    }

    @Test(
        "A handler of an instance a batch drops runs under the batch's lock, as withContainer documents"
    )
    func handlerOfABatchDropRunsOutsideTheLock() throws {
        let container = Container()
        let view = container.synchronize()
        let otherThreadGotTheLock = Counter()
        container.register(Extra.self) { _ in Extra() }
        container.register(Tracked.self) { _ in Tracked(id: 1) }
            .inObjectScope(.container)
            .onDispose { _ in
                let done = DispatchSemaphore(value: 0)
                Thread {
                    _ = view.resolve(Extra.self)
                    done.signal()
                }.start()
                // Bounded, so that the batch ends either way; the other thread then gets the lock.
                if done.wait(timeout: .now() + 2) == .success {
                    otherThreadGotTheLock.increment()
                }
            }
        _ = try view.resolveThrows(Tracked.self)
        view.withContainer { c in
            c.register(Tracked.self) { _ in Tracked(id: 2) }
        }
        // withContainer holds the lock for the whole batch, so the handlers of what it drops run inside
        // it, as its documentation says: the other thread could not get the lock while they ran.
        #expect(otherThreadGotTheLock.count == 0)
    }

    @Test("Threads resolving while batches register see each .container service whole and made once")
    func batchesUnderContention() {
        let container = Container()
        let view = container.synchronize()
        let made = EventLog()
        let published = PublishedCount()
        let stop = PublishedCount()
        let problems = EventLog()
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread {
                var seen: [Int: ObjectIdentifier] = [:]
                while stop.value == 0 {
                    let count = published.value
                    guard count > 0 else { continue }
                    let index = Int.random(in: 0..<count)
                    guard let resource = view.resolve(Resource.self, name: "s\(index)") else {
                        problems.record("s\(index) missing")
                        continue
                    }
                    if !resource.configured {
                        problems.record("s\(index) without its initCompleted action")
                    }
                    let identity = ObjectIdentifier(resource)
                    if let earlier = seen[index], earlier != identity {
                        problems.record("s\(index) made again")
                    }
                    seen[index] = identity
                }
                group.leave()
            }.start()
        }
        for batch in 0..<100 {
            view.withContainer { c in
                for offset in 0..<3 {
                    let index = batch * 3 + offset
                    c.register(Resource.self, name: "s\(index)") { _ in
                        made.record("s\(index)")
                        return Resource("s\(index)")
                    }
                    .inObjectScope(.container)
                    .initCompleted { _, resource in resource.configured = true }
                }
                published.set(batch * 3 + 3)
            }
        }
        stop.set(1)
        group.wait()
        #expect(problems.all.isEmpty)
        let counts = Dictionary(made.all.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(counts.values.allSatisfy { $0 == 1 })
    }

    @Test(
        "Re-registering a disposable .container service in batches while threads resolve it disposes each replaced instance once"
    )
    func reRegistrationUnderContention() {
        let container = Container()
        let view = container.synchronize()
        let made = Counter()
        let disposed = EventLog()
        let stop = PublishedCount()
        let group = DispatchGroup()
        func register(_ c: Container, generation: Int) {
            c.register(Resource.self) { _ in
                made.increment()
                return Resource("g\(generation)")
            }
            .inObjectScope(.container)
            .onDispose { disposed.record($0.name) }
        }
        view.withContainer { register($0, generation: 0) }
        for _ in 0..<4 {
            group.enter()
            Thread {
                while stop.value == 0 {
                    _ = view.resolve(Resource.self)
                }
                group.leave()
            }.start()
        }
        for generation in 1...200 {
            view.withContainer { register($0, generation: generation) }
        }
        stop.set(1)
        group.wait()
        view.withContainer { c in try? c.dispose() }
        let names = disposed.all
        #expect(names.count == made.count, "every instance made is disposed")
        #expect(Set(names).count == names.count, "none twice")
    }

    @Test("Threads resolving a forwarded type registered in batches always find it with its scope")
    func forwardsInBatchesUnderContention() {
        let container = Container()
        let view = container.synchronize()
        let published = PublishedCount()
        let stop = PublishedCount()
        let problems = EventLog()
        let group = DispatchGroup()
        for _ in 0..<4 {
            group.enter()
            Thread {
                while stop.value == 0 {
                    let count = published.value
                    guard count > 0 else { continue }
                    let index = Int.random(in: 0..<count)
                    let forwarded = view.resolve(AnyObject.self, name: "f\(index)")
                    let direct = view.resolve(Resource.self, name: "f\(index)")
                    if forwarded == nil || direct == nil || forwarded !== direct {
                        problems.record("f\(index)")
                    }
                }
                group.leave()
            }.start()
        }
        for index in 0..<300 {
            view.withContainer { c in
                c.register(Resource.self, name: "f\(index)") { _ in Resource("f\(index)") }
                    .inObjectScope(.container)
                    .implements(AnyObject.self, name: "f\(index)")
                published.set(index + 1)
            }
        }
        stop.set(1)
        group.wait()
        #expect(problems.all.isEmpty)
    }

    @Test("Resets racing with resolves through a view dispose every .container and .multiton instance once")
    func resetsUnderContention() {
        let container = Container()
        let view = container.synchronize()
        let made = Counter()
        let disposed = EventLog()
        container.register(Tracked.self) { _ in
            made.increment()
            return Tracked(id: made.count)
        }
        .inObjectScope(.container)
        .onDispose { disposed.record("c\($0.id)") }
        container.register(Tracked.self, name: "m") { (_, index: Int) in
            made.increment()
            return Tracked(id: made.count)
        }
        .inObjectScope(.multiton)
        .onDispose { disposed.record("m\($0.id)") }
        let stop = PublishedCount()
        let group = DispatchGroup()
        for thread in 0..<4 {
            group.enter()
            Thread {
                var index = thread
                while stop.value == 0 {
                    _ = view.resolve(Tracked.self)
                    _ = view.resolve(Tracked.self, name: "m", argument: index % 3)
                    index += 1
                }
                group.leave()
            }.start()
        }
        for round in 0..<300 {
            if round % 2 == 0 {
                container.resetObjectScope(.container)
            } else {
                container.resetObjectScope(.multiton)
            }
        }
        stop.set(1)
        group.wait()
        view.withContainer { c in try? c.dispose() }
        let names = disposed.all
        #expect(names.count == made.count, "every instance made is disposed")
        #expect(Set(names).count == names.count, "none twice")
    }
}

/// An integer read and written from several threads.
private final class PublishedCount: @unchecked Sendable {
    // @unchecked: `stored` is used only under `lock`.
    private let lock = NSLock()
    private var stored = 0

    func set(_ value: Int) {
        lock.lock()
        stored = value
        lock.unlock()
    }

    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
}

// MARK: - .multiton

@Suite(".multiton trees, cycles and races", .tags(.concurrency), .hangLimit)
struct MultitonBreakTests {
    @Test("A .multiton factory that resolves itself with smaller arguments builds a tree, each node kept once")
    func tree() throws {
        let container = Container()
        let made = Counter()
        container.register(Node.self) { (r, depth: Int) in
            made.increment()
            return Node(depth: depth, child: depth == 0 ? nil : r.resolve(Node.self, argument: depth - 1))
        }
        .inObjectScope(.multiton)
        let five = try container.resolveThrows(Node.self, argument: 5)
        #expect(made.count == 6)
        #expect(try container.resolveThrows(Node.self, argument: 3) === five.child?.child)
        #expect(try container.resolveThrows(Node.self, argument: 5) === five)
        #expect(made.count == 6)
    }

    @Test("A .multiton factory that resolves itself with equal arguments is a cycle; nothing half-made is kept")
    func cycle() throws {
        let container = Container()
        let made = Counter()
        container.register(Node.self) { (r, depth: Int) in
            made.increment()
            // 2 -> 1 -> 0 -> 2
            let next = depth == 0 ? 2 : depth - 1
            return Node(depth: depth, child: r.resolve(Node.self, argument: next))
        }
        .inObjectScope(.multiton)
        let result = container.resolveResult(Node.self, argument: 2)
        guard case .failure(.circularDependency) = result else {
            Issue.record("expected circularDependency, got \(result)")
            return
        }
        let selfCycle = Container()
        selfCycle.register(Node.self) { (r, depth: Int) in
            Node(depth: depth, child: r.resolve(Node.self, argument: depth))
        }
        .inObjectScope(.multiton)
        guard case .failure(.circularDependency) = selfCycle.resolveResult(Node.self, argument: 1) else {
            Issue.record("expected circularDependency for a factory resolving its own arguments")
            return
        }
        // Nothing tainted was kept: a second try fails the same way, running the factories again.
        let before = made.count
        guard case .failure(.circularDependency) = container.resolveResult(Node.self, argument: 0) else {
            Issue.record("expected circularDependency again")
            return
        }
        #expect(made.count > before)
    }

    @Test("A .multiton initCompleted action that resets .multiton disposes that instance once; others follow")
    func resetInMultitonAction() throws {
        let container = Container()
        let journal = EventLog()
        var made = 0
        container.register(Resource.self) { (_, name: String) in
            made += 1
            return Resource("\(name)\(made)")
        }
        .inObjectScope(.multiton)
        .initCompleted { r, resource in
            if resource.name == "b2" {
                container.resetObjectScope(.multiton)
                // The reset dropped a1 and this instance; a resolve of a new argument keeps going.
                _ = r.resolve(Resource.self, argument: "c")
            }
        }
        .onDispose { journal.record("dispose \($0.name)") }
        let a = try container.resolveThrows(Resource.self, argument: "a")
        let b = try container.resolveThrows(Resource.self, argument: "b")
        #expect(journal.all.sorted() == ["dispose a1", "dispose b2"])
        #expect(try container.resolveThrows(Resource.self, argument: "a") !== a)
        #expect(try container.resolveThrows(Resource.self, argument: "b") !== b)
        #expect(try container.resolveThrows(Resource.self, argument: "c").name == "c3")
        try container.dispose()
        #expect(journal.all.count == 5, "a1, b2, then c3, a4, b5: each once")
        #expect(Set(journal.all).count == 5)
    }

    @Test("A cycle met in a .multiton instance's initCompleted fails the call and keeps nothing it made")
    func cycleInAnInitCompletedAction() throws {
        let container = Container()
        let made = EventLog()
        container.register(Node.self) { (r, depth: Int) in
            made.record("\(depth)")
            // 2 resolves itself: a cycle.
            return Node(depth: depth, child: depth == 2 ? r.resolve(Node.self, argument: 2) : nil)
        }
        .inObjectScope(.multiton)
        .initCompleted { r, node in
            if node.depth == 1 {
                _ = r.resolve(Node.self, argument: 2)
            }
        }
        guard case .failure(.circularDependency) = container.resolveResult(Node.self, argument: 1) else {
            Issue.record("expected circularDependency")
            return
        }
        #expect(made.all == ["1", "2"])
        _ = container.resolveResult(Node.self, argument: 1)
        #expect(made.all == ["1", "2", "1", "2"], "the instance for 1 was not kept")
    }

    @Test("A .multiton tree whose leaf fails drops the nodes in flight and keeps those completed")
    func treeWithFailingLeaf() throws {
        let container = Container()
        let made = Counter()
        var failing = true
        container.register(Node.self) { (r, depth: Int) throws -> Node in
            made.increment()
            if depth == 0, failing {
                throw Refused()
            }
            return Node(depth: depth, child: depth == 0 ? nil : try r.resolveThrows(Node.self, argument: depth - 1))
        }
        .inObjectScope(.multiton)
        #expect(throws: DIError.self) { try container.resolveThrows(Node.self, argument: 2) }
        failing = false
        let two = try container.resolveThrows(Node.self, argument: 2)
        #expect(made.count == 6, "2, 1, 0 twice: nothing was kept from the failed call")
        #expect(try container.resolveThrows(Node.self, argument: 1) === two.child)
    }

    @Test("8 threads resolving one .multiton with equal arguments through a synchronized view get one instance")
    func concurrentEqualArguments() {
        for _ in 0..<20 {
            let container = Container()
            let made = Counter()
            container.register(Resource.self) { (_, name: String, index: Int) in
                made.increment()
                return Resource("\(name)\(index)")
            }
            .inObjectScope(.multiton)
            let view = container.synchronize()
            let identities = EventLog()
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for thread in 0..<8 {
                group.enter()
                Thread {
                    start.wait()
                    let resource = view.resolve(Resource.self, arguments: "x", thread % 2)!
                    identities.record("\(resource.name) \(ObjectIdentifier(resource).hashValue)")
                    group.leave()
                }.start()
            }
            for _ in 0..<8 { start.signal() }
            group.wait()
            #expect(made.count == 2)
            #expect(Set(identities.all).count == 2)
        }
    }
}

@Suite(".multiton disposal order and failed completions")
struct MultitonDisposalBreakTests {
    @Test("A .multiton tree is disposed root first: each node completes after the nodes it made")
    func treeDisposalOrder() throws {
        let container = Container()
        let journal = EventLog()
        container.register(Node.self) { (r, depth: Int) in
            Node(depth: depth, child: depth == 0 ? nil : r.resolve(Node.self, argument: depth - 1))
        }
        .inObjectScope(.multiton)
        .onDispose { journal.record("\($0.depth)") }
        _ = try container.resolveThrows(Node.self, argument: 3)
        _ = try container.resolveThrows(Node.self, argument: 7)
        container.resetObjectScope(.multiton)
        #expect(journal.all == ["7", "6", "5", "4", "3", "2", "1", "0"])
    }

    @Test("An initCompleted action whose resolve of another argument fails drops only its own instance")
    func actionFailingThroughAnotherArgument() throws {
        let container = Container()
        let made = Counter()
        var failing = true
        container.register(Node.self) { (_, depth: Int) throws -> Node in
            made.increment()
            if depth == 2, failing {
                throw Refused()
            }
            return Node(depth: depth, child: nil)
        }
        .inObjectScope(.multiton)
        .initCompleted { r, node in
            if node.depth == 1 {
                _ = try r.resolveThrows(Node.self, argument: 2)
            }
        }
        let zero = try container.resolveThrows(Node.self, argument: 0)
        #expect(throws: DIError.self) { try container.resolveThrows(Node.self, argument: 1) }
        failing = false
        #expect(try container.resolveThrows(Node.self, argument: 0) === zero)
        let one = try container.resolveThrows(Node.self, argument: 1)
        #expect(try container.resolveThrows(Node.self, argument: 1) === one)
        #expect(made.count == 5, "0, then 1 and 2 failing, then 1 and 2")
    }
}

// MARK: - Order and ownership across a hierarchy

@Suite("Disposal order and ownership across a hierarchy")
struct HierarchyDropTests {
    @Test("A child's reset reaching its parent's instances disposes all of them newest completion first")
    func childResetReachesParent() throws {
        let parent = Container()
        let child = Container(parent: parent)
        let journal = EventLog()
        parent.register(Resource.self) { _ in Resource("parent") }
            .inObjectScope(.container)
            .onDispose { journal.record("dispose \($0.name)") }
        child.register(Dependent.self) { r in Dependent(r.resolve(Resource.self)!) }
            .inObjectScope(.container)
            .onDispose { _ in journal.record("dispose child dependent") }
        parent.register(Extra.self) { _ in Extra() }
            .inObjectScope(.container)
            .onDispose { _ in journal.record("dispose parent extra") }
        _ = try child.resolveThrows(Dependent.self)
        _ = try parent.resolveThrows(Extra.self)
        child.resetObjectScope(.container)
        #expect(journal.all == ["dispose parent extra", "dispose child dependent", "dispose parent"])
    }

    @Test(
        "Forward chains: only the owner's dispose, removeAll or re-registration ends the instance; resets follow the keys"
    )
    func forwardChains() throws {
        let parent = Container()
        let child = Container(parent: parent)
        let grandchild = Container(parent: child)
        let journal = EventLog()
        let entry = parent.register(Resource.self) { _ in Resource("shared") }
            .inObjectScope(.container)
            .onDispose { journal.record("dispose \($0.name)") }
        child.forward(AnyObject.self, to: entry)
        grandchild.forward(AnyObject.self, name: "again", to: entry)
        let shared = try grandchild.resolveThrows(AnyObject.self, name: "again")
        #expect(try grandchild.resolveThrows(AnyObject.self) === shared)
        try grandchild.dispose()
        try child.dispose()
        grandchild.removeAll()
        child.register(AnyObject.self) { _ in Extra() }
        #expect(journal.all.isEmpty)
        #expect(try parent.resolveThrows(Resource.self) === shared as? Resource)
        grandchild.resetObjectScope(.container)
        #expect(journal.all == ["dispose shared"])
        try parent.dispose()
        #expect(journal.all == ["dispose shared"])
    }

    @Test(
        "A parent's re-registration of a key a child forwards: the instance the child then makes is the child's to dispose"
    )
    func staleForwardAfterParentReRegisters() throws {
        let parent = Container()
        let child = Container(parent: parent)
        let journal = EventLog()
        let entry = parent.register(Resource.self) { _ in Resource("old") }
            .inObjectScope(.container)
            .onDispose { journal.record("dispose \($0.name)") }
        child.forward(AnyObject.self, to: entry)
        _ = try child.resolveThrows(AnyObject.self)
        parent.register(Resource.self) { _ in Resource("new") }.inObjectScope(.container)
        #expect(journal.all == ["dispose old"], "the parent dropped the old instance and disposed it")
        // The child's forward still leads to the replaced entry, which makes and keeps a new instance
        // (as Swinject's forward would).
        let throughChild = try child.resolveThrows(AnyObject.self) as? Resource
        #expect(throughChild?.name == "old")
        try child.dispose()
        #expect(journal.all == ["dispose old", "dispose old"], "the child disposes what the orphaned entry kept")
        try parent.dispose()
        #expect(journal.all == ["dispose old", "dispose old"], "and the parent does not again")
    }
}

@Suite("Drops of several instances at once", .swapsLogHandler)
struct SeveralInstancesDropTests {
    @Test("Re-registering a .multiton disposes every argument's instance, newest completion first")
    func reRegisteringAMultiton() throws {
        let container = Container()
        let journal = EventLog()
        container.register(Resource.self) { (_, name: String) in Resource(name) }
            .inObjectScope(.multiton)
            .onDispose { journal.record($0.name) }
        for name in ["a", "b", "c"] {
            _ = try container.resolveThrows(Resource.self, argument: name)
        }
        container.register(Resource.self) { (_, name: String) in Resource(name + "'") }.inObjectScope(.multiton)
        #expect(journal.all == ["c", "b", "a"])
        #expect(try container.resolveThrows(Resource.self, argument: "a").name == "a'")
    }

    @Test("removeAll runs every handler when one throws, and logs the one failure")
    func removeAllWithAThrowingHandler() throws {
        let logged = EventLog()
        let previous = Container.logHandler
        Container.logHandler = { error in
            if case .disposalFailed(let failures) = error {
                logged.record("\(failures.count)")
            }
        }
        defer { Container.logHandler = previous }
        let container = Container()
        let journal = EventLog()
        container.register(Resource.self) { _ in Resource("first") }
            .inObjectScope(.container)
            .onDispose { _ in
                journal.record("first")
                throw Refused()
            }
            .onDispose { _ in journal.record("first again") }
        container.register(Dependent.self) { r in Dependent(r.resolve(Resource.self)!) }
            .inObjectScope(.container)
            .onDispose { _ in
                journal.record("dependent")
                throw Refused()
            }
        _ = try container.resolveThrows(Dependent.self)
        container.removeAll()
        #expect(journal.all == ["dependent", "first", "first again"])
        #expect(logged.all == ["2"])
    }

    @Test("A child's reset of a forwarded type reaches the parent's instance and disposes it once")
    func childResetOfAForwardedType() throws {
        let parent = Container()
        let child = Container(parent: parent)
        let journal = EventLog()
        let entry = parent.register(Resource.self) { _ in Resource("shared") }
            .inObjectScope(.container)
            .onDispose { journal.record($0.name) }
        child.forward(AnyObject.self, to: entry)
        let first = try child.resolveThrows(AnyObject.self)
        child.resetObjectScope(.container, serviceType: AnyObject.self)
        #expect(journal.all == ["shared"])
        #expect(try parent.resolveThrows(Resource.self) !== first as? Resource)
        try child.dispose()
        try parent.dispose()
        #expect(journal.all == ["shared", "shared"])
    }
}

// MARK: - .weak storage

@Suite(".weak storage as in Swinject")
struct WeakStorageBreakTests {
    @Test(".weak's storage combines a weak storage with a graph storage")
    func weakStorageIsComposite() {
        let storage = ObjectScope.weak.makeStorage()
        #expect(storage is CompositeStorage)
        let object = Extra()
        storage.instance = object
        #expect(storage.instance as AnyObject? === object)
    }
}
