import Dispatch
import Foundation
import Testing

@testable import Keystone

// Async factories: `registerAsync`, `resolveAsync`, single-flight `.container` creation, cancellation,
// cycles across suspension points, `warmUp()`, and what synchronous resolves do with async registrations.

private final class Connection: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

private final class Repository: Sendable {
    let connection: Connection
    init(connection: Connection) { self.connection = connection }
}

private final class Part: Sendable {}

private final class Assembly2: Sendable {
    let first: Part
    let second: Part
    let fromSync: Part
    init(first: Part, second: Part, fromSync: Part) {
        self.first = first
        self.second = second
        self.fromSync = fromSync
    }
}

private final class Holder: Sendable {
    let part: Part
    init(part: Part) { self.part = part }
}

private struct Boom: Error, CustomStringConvertible {
    var description: String { "boom" }
}

@Suite("Async factories", .tags(.concurrency, .engine), .hangLimit)
struct AsyncResolutionTests {
    // MARK: - Registering and resolving

    @Test func resolvesAnAsyncFactoryAndItsAsyncAndSyncDependencies() async throws {
        let container = Container()
        let serials = Counter()
        container.registerAsync(Connection.self) { _ in
            try await Task.sleep(nanoseconds: 1_000_000)
            serials.increment()
            return Connection(serial: serials.count)
        }
        container.register(Part.self) { _ in Part() }
        container.registerAsync(Repository.self) { r in
            _ = try r.resolveThrows(Part.self)
            return Repository(connection: try await r.resolveAsync(Connection.self))
        }
        let repository = try await container.resolveAsync(Repository.self)
        #expect(repository.connection.serial == 1)
        // A synchronous registration resolves through resolveAsync too.
        let part = try await container.resolveAsync(Part.self)
        #expect(part !== (try await container.resolveAsync(Part.self)))
    }

    @Test func passesNamesAndOneToThreeArguments() async throws {
        let container = Container()
        container.registerAsync(String.self, name: "greeting") { _ in "hello" }
        container.registerAsync(String.self) { (_, name: String) in "hi \(name)" }
        container.registerAsync(String.self) { (_, name: String, times: Int) in String(repeating: name, count: times) }
        container.registerAsync(String.self, name: "three") { (_, a: String, b: Int, c: Bool) in "\(a)\(b)\(c)" }
        #expect(try await container.resolveAsync(String.self, name: "greeting") == "hello")
        #expect(try await container.resolveAsync(String.self, argument: "Ada") == "hi Ada")
        #expect(try await container.resolveAsync(String.self, arguments: "ab", 3) == "ababab")
        #expect(try await container.resolveAsync(String.self, name: "three", arguments: "x", 1, true) == "x1true")
        // An Int argument is another key than the String one registered.
        let error = await #expect(throws: DIError.self) {
            try await container.resolveAsync(String.self, argument: 42)
        }
        guard case .notRegistered(let key, let path, _)? = error else {
            Issue.record("expected notRegistered, got \(String(describing: error))")
            return
        }
        #expect(key == ServiceKey(serviceType: String.self, argumentsType: Int.self))
        #expect(path.isEmpty)
    }

    @Test func aGraphIsSharedWithinOneTopLevelResolveAsyncOnly() async throws {
        let container = Container()
        container.register(Part.self) { _ in Part() }  // .graph, the default
        container.register(Holder.self) { r in Holder(part: r.resolve(Part.self)!) }
        container.registerAsync(Assembly2.self) { r in
            let first = try await r.resolveAsync(Part.self)
            await Task.yield()
            let second = try await r.resolveAsync(Part.self)
            let fromSync = try r.resolveThrows(Holder.self).part
            return Assembly2(first: first, second: second, fromSync: fromSync)
        }
        let one = try await container.resolveAsync(Assembly2.self)
        #expect(one.first === one.second)
        #expect(one.first === one.fromSync)
        let two = try await container.resolveAsync(Assembly2.self)
        #expect(two.first !== one.first)
    }

    @Test func scopesApplyToAsyncRegistrations() async throws {
        let container = Container()
        container.registerAsync(Part.self, name: "transient") { _ in Part() }.inObjectScope(.transient)
        container.registerAsync(Part.self, name: "container") { _ in Part() }.inObjectScope(.container)
        let transient1 = try await container.resolveAsync(Part.self, name: "transient")
        let transient2 = try await container.resolveAsync(Part.self, name: "transient")
        #expect(transient1 !== transient2)
        let shared1 = try await container.resolveAsync(Part.self, name: "container")
        let shared2 = try await container.resolveAsync(Part.self, name: "container")
        #expect(shared1 === shared2)
        // A child sees its parent's async registration and shares its instance.
        let child = Container(parent: container)
        #expect(try await child.resolveAsync(Part.self, name: "container") === shared1)
    }

    @Test func asyncRegistrationsInTheMultitonAndWeakScopes() async throws {
        let container = Container()
        container.registerAsync(Connection.self) { (_, serial: Int) in Connection(serial: serial) }
            .inObjectScope(.multiton)
        let one = try await container.resolveAsync(Connection.self, argument: 1)
        #expect(try await container.resolveAsync(Connection.self, argument: 1) === one)
        #expect(try await container.resolveAsync(Connection.self, argument: 2) !== one)
        container.registerAsync(Part.self) { _ in Part() }.inObjectScope(.weak)
        let held = try await container.resolveAsync(Part.self)
        #expect(try await container.resolveAsync(Part.self) === held)
    }

    @Test func asyncSingletonsAreDisposedDependentsFirst() async throws {
        let container = Container()
        let order = Counter()
        var disposed: [String] = []
        let lock = NSLock()
        func note(_ name: String) {
            lock.lock()
            disposed.append(name)
            lock.unlock()
            order.increment()
        }
        container.registerAsync(Connection.self) { _ in Connection(serial: 1) }
            .inObjectScope(.container)
            .onDispose { _ in note("connection") }
        container.registerAsync(Repository.self) { r in
            Repository(connection: try await r.resolveAsync(Connection.self))
        }
        .inObjectScope(.container)
        .onDispose { _ in note("repository") }
        _ = try await container.resolveAsync(Repository.self)
        try await container.disposeAsync()
        #expect(disposed == ["repository", "connection"])
    }

    @Test func initCompletedRunsAfterAnAsyncFactory() async throws {
        let container = Container()
        let completed = Counter()
        container.registerAsync(Part.self) { _ in Part() }
            .initCompleted { _, _ in completed.increment() }
        _ = try await container.resolveAsync(Part.self)
        #expect(completed.count == 1)
    }

    @Test func anErrorAFactoryThrowsIsWrappedAndADIErrorIsPassedOn() async {
        let container = Container()
        container.registerAsync(Part.self) { _ in throw Boom() }
        container.registerAsync(Repository.self) { r in
            Repository(connection: try await r.resolveAsync(Connection.self))
        }
        do {
            _ = try await container.resolveAsync(Part.self)
            Issue.record("expected a failure")
        } catch {
            guard case .factoryFailed(let key, let path, let underlying) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(key == ServiceKey(serviceType: Part.self))
            #expect(path.isEmpty)
            #expect(underlying is Boom)
        }
        do {
            _ = try await container.resolveAsync(Repository.self)
            Issue.record("expected a failure")
        } catch {
            guard case .notRegistered(let key, let path, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(key == ServiceKey(serviceType: Connection.self))
            #expect(path == [ServiceKey(serviceType: Repository.self)])
        }
    }

    // MARK: - Single flight

    @Test func oneHundredConcurrentFirstResolvesRunTheFactoryOnce() async throws {
        let container = Container()
        let runs = Counter()
        let gate = Gate()
        container.registerAsync(Connection.self) { _ in
            runs.increment()
            await gate.wait()
            return Connection(serial: runs.count)
        }
        .inObjectScope(.container)
        let resolver = container.synchronize()
        let identities = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<100 {
                group.addTask { ObjectIdentifier(try await resolver.resolveAsync(Connection.self)) }
            }
            // The creation stays blocked until all hundred wait for it, so every one of them is a first
            // resolve; a second run of the factory ends the wait early, and fails below.
            while container.waitersOnCreationsInFlight() < 100 && runs.count < 2 {
                await Task.yield()
            }
            gate.open()
            var identities: Set<ObjectIdentifier> = []
            for try await identity in group {
                identities.insert(identity)
            }
            return identities
        }
        #expect(runs.count == 1)
        #expect(identities.count == 1)
        // The synchronous world now sees the instance.
        #expect(resolver.resolve(Connection.self).map(ObjectIdentifier.init) == identities.first)
    }

    @Test func aFailedCreationFailsEveryWaiterAndCachesNothing() async throws {
        let container = Container()
        let runs = Counter()
        let gate = Gate()
        container.registerAsync(Connection.self) { _ in
            runs.increment()
            if runs.count == 1 {
                await gate.wait()
                throw Boom()
            }
            return Connection(serial: runs.count)
        }
        .inObjectScope(.container)
        let resolver = container.synchronize()
        let waiters = (0..<5).map { _ in
            Task { () -> DIError? in
                do throws(DIError) {
                    _ = try await resolver.resolveAsync(Connection.self)
                    return nil
                } catch {
                    return error
                }
            }
        }
        // Every waiter has joined the creation before it fails: none can start a second one.
        while container.waitersOnCreationsInFlight() < waiters.count {
            await Task.yield()
        }
        gate.open()
        for waiter in waiters {
            let error = await waiter.value
            guard case .factoryFailed(_, _, let underlying) = error else {
                Issue.record("expected the factory's error, got \(String(describing: error))")
                continue
            }
            #expect(underlying is Boom)
        }
        #expect(runs.count == 1)
        // Nothing was cached: the next call runs the factory again, and succeeds.
        let connection = try await resolver.resolveAsync(Connection.self)
        #expect(connection.serial == 2)
        #expect(runs.count == 2)
    }

    @Test func aCancelledWaiterStopsAtOnceAndTheOthersGetTheInstance() async throws {
        let container = Container()
        let runs = Counter()
        let gate = Gate()
        container.registerAsync(Connection.self) { _ in
            runs.increment()
            await gate.wait()
            return Connection(serial: runs.count)
        }
        .inObjectScope(.container)
        let resolver = container.synchronize()
        let waiters = (0..<10).map { _ in
            Task { () -> Result<Connection, DIError> in
                do throws(DIError) {
                    return .success(try await resolver.resolveAsync(Connection.self))
                } catch {
                    return .failure(error)
                }
            }
        }
        // Every waiter has joined the creation, whose factory has started and is blocked on the gate: the
        // cancelled one is waiting. (All can join before the factory has started, under a slow scheduler.)
        while container.waitersOnCreationsInFlight() < waiters.count || runs.count == 0 {
            await Task.yield()
        }
        #expect(runs.count == 1)
        waiters[3].cancel()
        // The cancelled waiter ends while the creation is still blocked on the gate.
        guard case .failure(.factoryFailed(_, _, let underlying)) = await waiters[3].value else {
            Issue.record("the cancelled waiter should fail")
            gate.open()
            return
        }
        #expect(underlying is CancellationError)
        gate.open()
        var instances: Set<ObjectIdentifier> = []
        for (index, waiter) in waiters.enumerated() where index != 3 {
            let connection = try await waiter.value.get()
            instances.insert(ObjectIdentifier(connection))
        }
        #expect(instances.count == 1)
        #expect(runs.count == 1)
    }

    // MARK: - Cycles

    // The cycle is found when the looping request is made, with no timeout involved; the time limit only
    // turns a regression into a hang into a failure.
    @Test(.timeLimit(.minutes(1)))
    func anAsyncCycleFailsWithItsPath() async {
        let container = Container()
        container.registerAsync(Part.self) { r in
            _ = try await r.resolveAsync(Holder.self)
            return Part()
        }
        container.registerAsync(Holder.self) { r in Holder(part: try await r.resolveAsync(Part.self)) }
        do {
            _ = try await container.resolveAsync(Part.self)
            Issue.record("expected a cycle")
        } catch {
            #expect(
                error
                    == .circularDependency(path: [
                        ServiceKey(serviceType: Part.self), ServiceKey(serviceType: Holder.self),
                        ServiceKey(serviceType: Part.self),
                    ])
            )
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aCycleThroughSingleFlightCreationsFailsInsteadOfWaitingForItself() async {
        let container = Container()
        container.registerAsync(Part.self) { r in
            _ = try await r.resolveAsync(Holder.self)
            return Part()
        }
        .inObjectScope(.container)
        container.registerAsync(Holder.self) { r in Holder(part: try await r.resolveAsync(Part.self)) }
            .inObjectScope(.container)
        do {
            _ = try await container.resolveAsync(Part.self)
            Issue.record("expected a cycle")
        } catch {
            guard case .circularDependency(let path) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            let keys = [ServiceKey(serviceType: Part.self), ServiceKey(serviceType: Holder.self)]
            #expect(path == keys + [keys[0]])
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func creationsInDifferentTasksWaitingOnEachOtherFailBoth() async {
        let container = Container()
        let bothStarted = Gate()
        let started = Counter()
        container.registerAsync(Part.self) { r in
            started.increment()
            if started.count == 2 { bothStarted.open() }
            await bothStarted.wait()
            _ = try await r.resolveAsync(Holder.self)
            return Part()
        }
        .inObjectScope(.container)
        container.registerAsync(Holder.self) { r in
            started.increment()
            if started.count == 2 { bothStarted.open() }
            await bothStarted.wait()
            return Holder(part: try await r.resolveAsync(Part.self))
        }
        .inObjectScope(.container)
        let resolver = container.synchronize()
        let part = Task { () -> DIError? in
            do throws(DIError) {
                _ = try await resolver.resolveAsync(Part.self)
                return nil
            } catch {
                return error
            }
        }
        let holder = Task { () -> DIError? in
            do throws(DIError) {
                _ = try await resolver.resolveAsync(Holder.self)
                return nil
            } catch {
                return error
            }
        }
        for error in [await part.value, await holder.value] {
            guard case .circularDependency(let path) = error else {
                Issue.record("expected a cycle, got \(String(describing: error))")
                continue
            }
            #expect(
                Set(path.map { ObjectIdentifier($0.serviceType) }) == [
                    ObjectIdentifier(Part.self), ObjectIdentifier(Holder.self),
                ]
            )
        }
    }

    // MARK: - The synchronous world

    @Test func aSyncResolveOfAnAsyncRegistrationFailsUntilTheInstanceExists() async throws {
        let container = Container()
        container.registerAsync(Connection.self) { _ in Connection(serial: 1) }.inObjectScope(.container)
        container.register(Repository.self) { r in Repository(connection: try r.resolveThrows(Connection.self)) }
        #expect(container.resolve(Connection.self) == nil)
        #expect(throws: DIError.asyncResolutionRequired(key: ServiceKey(serviceType: Connection.self), path: [])) {
            try container.resolveThrows(Connection.self)
        }
        #expect(
            throws: DIError.asyncResolutionRequired(
                key: ServiceKey(serviceType: Connection.self),
                path: [ServiceKey(serviceType: Repository.self)]
            )
        ) {
            try container.resolveThrows(Repository.self)
        }
        let description = DIError.asyncResolutionRequired(key: ServiceKey(serviceType: Connection.self), path: [])
            .description
        #expect(description.contains("resolveAsync") && description.contains("warmUp()"))
        let made = try await container.resolveAsync(Connection.self)
        #expect(container.resolve(Connection.self) === made)
        #expect(try container.resolveThrows(Repository.self).connection === made)
    }

    @Test func warmUpCreatesEveryContainerInstanceOnceAsyncOnesFirst() async throws {
        let container = Container()
        let runs = Counter()
        let transientRuns = Counter()
        // Registered first, but depends on the async one: warm-up must create the async one before it.
        container.register(Repository.self) { r in Repository(connection: try r.resolveThrows(Connection.self)) }
            .inObjectScope(.container)
        container.registerAsync(Connection.self) { _ in
            runs.increment()
            return Connection(serial: runs.count)
        }
        .inObjectScope(.container)
        container.registerAsync(Part.self) { _ in
            transientRuns.increment()
            return Part()
        }
        container.registerAsync(Holder.self) { (_, part: Part) in Holder(part: part) }.inObjectScope(.container)
        try await container.warmUp()
        #expect(runs.count == 1)
        #expect(transientRuns.count == 0, "warm-up creates .container registrations only")
        let repository = try container.resolveThrows(Repository.self)
        #expect(repository.connection === container.resolve(Connection.self))
        try await container.warmUp()
        #expect(runs.count == 1, "each is created once")
    }

    @Test func noLockIsHeldWhileAnAsyncFactoryIsSuspended() async throws {
        let container = Container()
        let gate = Gate()
        let entered = Gate()
        container.registerAsync(Connection.self) { _ in
            entered.open()
            await gate.wait()
            return Connection(serial: 1)
        }
        container.register(Part.self) { _ in Part() }
        let resolver = container.synchronize()
        nonisolated(unsafe) let registering = container  // registering takes the hierarchy's lock
        let pending = Task { try await resolver.resolveAsync(Connection.self) }
        await entered.wait()
        // Another thread registers and resolves while the factory is suspended: with the lock held, it
        // would block until the gate opens, which happens only after it is done.
        let done = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                registering.register(Holder.self) { r in Holder(part: try r.resolveThrows(Part.self)) }
                continuation.resume(returning: resolver.resolve(Holder.self) != nil)
            }
        }
        #expect(done)
        gate.open()
        _ = try await pending.value
    }

    // MARK: - verify()

    @Test func verifyReportsSyncFactoriesThatNeedAnAsyncRegistrationNoWarmUpCreates() {
        let container = Container()
        container.registerAsync(Connection.self) { _ in Connection(serial: 1) }  // .graph: warm-up skips it
        container.registerAsync(Part.self) { _ in Part() }.inObjectScope(.container)  // warm-up creates it
        container.register(Repository.self) { r in Repository(connection: try r.resolveThrows(Connection.self)) }
        container.register(Holder.self) { r in Holder(part: try r.resolveThrows(Part.self)) }
        let problems = container.verify()
        #expect(
            problems == [
                .asyncResolutionRequired(
                    key: ServiceKey(serviceType: Connection.self),
                    path: [ServiceKey(serviceType: Repository.self)]
                )
            ]
        )
    }

    @Test func asyncRegistrationsAloneAreNotProblems() {
        let container = Container()
        container.registerAsync(Connection.self) { _ in Connection(serial: 1) }
        container.registerAsync(Repository.self) { r in
            Repository(connection: try await r.resolveAsync(Connection.self))
        }
        #expect(container.verify() == [])
    }
}

private protocol Greeter: Sendable {
    func greet() -> String
}

private struct EnglishGreeter: Greeter {
    func greet() -> String { "hello" }
}

private final class RemoteConfig: Sendable {
    let flags: [String]
    init(flags: [String]) { self.flags = flags }
}

@Suite("Async factories through the actor front", .tags(.concurrency), .hangLimit)
struct AsyncActorFrontTests {
    @Test func bootstrapConfiguresTheDefaultContainerThatDIActorSharedFronts() async {
        // The actor guide's closing example: the default container, configured once, seen by the actor.
        await Container.bootstrap { container in
            container.register(Greeter.self) { EnglishGreeter() }
        }
        let greeter = await DIActor.shared.resolve(Greeter.self)
        #expect(greeter?.greet() == "hello")
        let viaFacade: (any Greeter)? = DependencyRegistry.optional()
        #expect(viaFacade?.greet() == "hello")
    }

    @Test func anActorRegistersAsyncFactoriesAndResolvesThemAsynchronously() async throws {
        let actor = DIActor()
        let runs = Counter()
        let release = await actor.registerAsync(RemoteConfig.self, scope: .container) {
            runs.increment()
            try await Task.sleep(nanoseconds: 5_000_000)
            return RemoteConfig(flags: ["fast-launch"])
        }
        async let first = actor.resolveAsync(RemoteConfig.self)
        async let second = actor.resolveAsync(RemoteConfig.self)
        let (a, b) = try await (first, second)
        #expect(a === b)
        #expect(a.flags == ["fast-launch"])
        #expect(runs.count == 1)
        // The synchronous resolve finds the instance now; before, it explained the async registration.
        #expect(await actor.resolve(RemoteConfig.self) === a)
        #expect(await actor.statusReport().contains("RemoteConfig [container]"))
        await release()
        #expect(await actor.resolve(RemoteConfig.self) == nil)
    }

    @Test func aSyncActorResolveOfAnAsyncRegistrationSaysToResolveAsynchronously() async {
        let actor = DIActor()
        await actor.registerAsync(RemoteConfig.self) { RemoteConfig(flags: []) }
        let result = await actor.resolveResult(RemoteConfig.self)
        #expect(throws: DIError.asyncResolutionRequired(key: ServiceKey(serviceType: RemoteConfig.self), path: [])) {
            try result.get()
        }
    }
}
