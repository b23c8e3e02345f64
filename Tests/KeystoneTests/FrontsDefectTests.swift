import Dispatch
import Foundation
import Testing

@testable import Keystone

// Three properties of the fronts: `DIActor.shared` follows `Container.withCurrent` as the facades do,
// `verify()` on the main actor runs main-actor factories, and every front registers whole under the
// hierarchy's lock.

// MARK: - Fixtures

private final class Dial: Sendable {}
private final class Valve: Sendable {}

/// Made by a `DIActor` factory: its `@Inject` resolves through the facades.
private struct ActorBuilt: Sendable {
    @Inject var dial: Dial
}

/// Made by a facade instantiator that resolves through `DIActorBridge`.
private final class FacadeBuilt: Sendable {
    let valve: Valve
    init(valve: Valve) { self.valve = valve }
}

/// Two threads each reach a point once, and there wait a bounded time for the other to reach its own.
private final class Meeting: Sendable {
    private let arrived = [DispatchSemaphore(value: 0), DispatchSemaphore(value: 0)]
    private let visits = [Counter(), Counter()]

    /// On `side`'s first call, announces it and waits up to a second for the other side's first call.
    func meet(side: Int) {
        visits[side].increment()
        guard visits[side].count == 1 else { return }
        arrived[side].signal()
        _ = arrived[1 - side].wait(timeout: .now() + 1)
    }
}

// MARK: - DIActor.shared follows Container.withCurrent

@Suite("DIActor.shared fronts the current container", .tags(.concurrency), .hangLimit)
struct SharedActorFollowsCurrentContainerTests {
    @Test("Inside withCurrent, DIActor.shared, the bridge and the global API use the bound container")
    func sharedActorUsesTheBoundContainer() async {
        let container = Container()
        await Container.withCurrent(container) {
            await DIActor.shared.registerSharedActor(Dial.self) { Dial() }
            DIActorBridge.registerSync(Valve.self) { Valve() }

            let dial: Dial? = DependencyRegistry.optional()
            #expect(dial != nil, "the facades see what DIActor.shared registered")
            #expect(await DIActor.shared.resolve(Dial.self) === dial)
            #expect(DIActorBridge.resolveSync(Dial.self) === dial)
            #expect(await DIActorGlobalAPI.resolve(Dial.self) === dial)
            #expect(await DIActorBridge.resolve(Valve.self) != nil)
            #expect(await DIActor.shared.allRegisteredTypes().count == 2)
        }
        #expect(container.hasAnyRegistration(of: Dial.self))
        #expect(container.hasAnyRegistration(of: Valve.self))
        #expect(!FrontContext.standard.container.hasAnyRegistration(of: Dial.self))
        #expect(!FrontContext.standard.container.hasAnyRegistration(of: Valve.self))
    }

    @Test("Nested withCurrent: the innermost container, and release handlers remove from their own")
    func nestedBindingsAndReleaseHandlers() async {
        let outer = Container()
        let inner = Container()
        await Container.withCurrent(outer) {
            await DIActor.shared.register(Dial.self) { Dial() }
            let release = await Container.withCurrent(inner) {
                await DIActor.shared.registerSharedActor(Dial.self) { Dial() }
            }
            #expect(inner.hasAnyRegistration(of: Dial.self))
            // Called in the outer binding, it removes the registration it was returned for, in `inner`.
            await release()
            #expect(!inner.hasAnyRegistration(of: Dial.self))
            #expect(outer.hasAnyRegistration(of: Dial.self), "the outer registration stays")
            await release()
            #expect(outer.hasAnyRegistration(of: Dial.self))
        }
    }

    @Test("Many tasks, each in a container of its own, use DIActor.shared at once without seeing each other")
    func parallelBindingsStayApart() async {
        await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<16 {
                group.addTask {
                    await Container.withCurrent(Container()) {
                        await DIActor.shared.registerSharedActor(Dial.self) { Dial() }
                        let first = await DIActor.shared.resolve(Dial.self)
                        var same = first != nil
                        for _ in 0..<50 {
                            same = same && DIActorBridge.resolveSync(Dial.self) === first
                            same = same && (DependencyRegistry.optional() as Dial?) === first
                        }
                        let count = await DIActor.shared.registeredCount()
                        await DIActor.shared.releaseAll()
                        return same && count == 1 && DIActorBridge.resolveSync(Dial.self) == nil
                    }
                }
            }
            for await isolated in group {
                #expect(isolated)
            }
        }
    }

    @Test("A @DIActor function inside withCurrent uses the bound container")
    func globalActorIsolatedCode() async {
        let container = Container()
        await Container.withCurrent(container) {
            await registerOnTheSharedActor()
        }
        #expect(container.hasAnyRegistration(of: Valve.self))
    }

    @Test("A release handler whose container is gone does nothing")
    func releaseHandlerOutlivesItsContainer() async {
        weak var weakContainer: Container?
        let release = await Container.withCurrent(Container()) {
            weakContainer = Container.current
            return await DIActor.shared.registerSharedActor(Dial.self) { Dial() }
        }
        #expect(weakContainer == nil, "the handler does not keep the container alive")
        let container = Container()
        await Container.withCurrent(container) {
            await DIActor.shared.registerSharedActor(Dial.self) { Dial() }
            await release()
            #expect(container.hasAnyRegistration(of: Dial.self), "another container's registration stays")
        }
    }

    @Test("A task started inside a DIActor factory resolves through DIActor.shared from the same container")
    func tasksStartedInFactoriesInheritTheContainer() async {
        let container = Container()
        await Container.withCurrent(container) {
            DependencyRegistry.register { Valve() }
            let found = Counter()
            let done = DispatchSemaphore(value: 0)
            await DIActor.shared.register(Dial.self) {
                Task {
                    if await DIActor.shared.resolve(Valve.self) != nil {
                        found.increment()
                    }
                    done.signal()
                }
                return Dial()
            }
            #expect(await DIActor.shared.resolve(Dial.self) != nil)
            await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    done.wait()
                    continuation.resume()
                }
            }
            #expect(found.count == 1)
        }
    }

    @Test("Inside withCurrent, a DIActor factory using @Inject and an instantiator using resolveSync never deadlock")
    func noLockOrderDeadlockInsideWithCurrent() {
        // With DIActor.shared on the default container and the facades on the bound one, one thread
        // takes the default container's lock then the bound one's, the other the reverse: each factory
        // waits on its first call (up to a second) until the other thread is inside its own, and then
        // both wait for each other forever (the hang limit ends the run). With one container both
        // finish.
        let container = Container()
        let meeting = Meeting()
        Container.withCurrent(container) {
            DependencyRegistry.register { Dial() }
            DIActorBridge.registerSync(Valve.self) { Valve() }
            DIActorBridge.registerSync(ActorBuilt.self) {
                meeting.meet(side: 0)
                return ActorBuilt()
            }
            DependencyRegistry.register { () -> FacadeBuilt in
                meeting.meet(side: 1)
                return FacadeBuilt(valve: DIActorBridge.resolveSync(Valve.self)!)
            }
        }

        // Each thread binds the container again: a thread does not inherit the binding.
        let shared = container.synchronize()
        let rounds = 500
        let made = Counter()
        let group = DispatchGroup()
        group.enter()
        Thread.detachNewThread {
            Container.withCurrent(shared.container) {
                for _ in 0..<rounds where DIActorBridge.resolveSync(ActorBuilt.self) != nil {
                    made.increment()
                }
            }
            group.leave()
        }
        group.enter()
        Thread.detachNewThread {
            Container.withCurrent(shared.container) {
                for _ in 0..<rounds {
                    let built: FacadeBuilt = DependencyRegistry.resolve(scope: .unique)
                    _ = built.valve
                    made.increment()
                }
            }
            group.leave()
        }
        group.wait()
        #expect(made.count == 2 * rounds)
    }
}

/// Registers through `DIActor.shared` from code isolated to it.
@DIActor
private func registerOnTheSharedActor() async {
    await DIActor.shared.register(Valve.self) { Valve() }
}

// MARK: - verify() on the main actor

@MainActor
private final class Screen {
    init() {}
}

@MainActor
private final class Toolbar {
    init() {}
}

/// A dependency nothing registers.
private final class Palette {}

/// A synchronous service between two main-actor ones.
private final class Layout {}

@Suite("verify() and main-actor factories", .tags(.concurrency), .hangLimit)
struct VerifyRunsMainActorFactoriesTests {
    @Test("On the main actor, verify() runs a main-actor factory and reports its missing dependency")
    @MainActor
    func onTheMainActorMissingDependenciesAreReported() {
        let container = Container()
        container.register(
            Screen.self,
            mainActorFactory: { r in
                _ = r.resolve(Palette.self)
                return Screen()
            }
        )
        #expect(
            container.verify() == [
                .notRegistered(
                    key: ServiceKey(serviceType: Palette.self),
                    path: [ServiceKey(serviceType: Screen.self)],
                    candidates: []
                )
            ]
        )
        let graph = container.dependencyGraph()
        let edge = DependencyGraph.Edge(
            from: ServiceKey(serviceType: Screen.self),
            to: ServiceKey(serviceType: Palette.self)
        )
        #expect(graph.edges.contains(edge))
    }

    @Test("On the main actor, verify() reports a cycle through main-actor factories")
    @MainActor
    func onTheMainActorCyclesAreReported() {
        let container = Container()
        container.register(
            Screen.self,
            mainActorFactory: { r in
                _ = r.resolve(Toolbar.self)
                return Screen()
            }
        )
        container.register(
            Toolbar.self,
            mainActorFactory: { r in
                _ = r.resolve(Screen.self)
                return Toolbar()
            }
        )
        let problems = container.verify()
        #expect(problems.count == 1)
        let isCycle = problems.first.map { problem in
            if case .circularDependency(let path) = problem {
                return Set(path) == [ServiceKey(serviceType: Screen.self), ServiceKey(serviceType: Toolbar.self)]
            }
            return false
        }
        #expect(isCycle == true)
    }

    @Test("On the main actor, a synchronous factory that needs a main-actor service is still reported, once")
    @MainActor
    func onTheMainActorSynchronousFactoriesStillNeedTheMainActor() {
        let container = Container()
        // Screen (main actor) -> Layout (synchronous) -> Toolbar (main actor): from Screen the whole chain
        // runs on the main actor; Layout resolved anywhere else cannot make its Toolbar.
        container.register(
            Screen.self,
            mainActorFactory: { r in
                _ = r.resolve(Layout.self)
                return Screen()
            }
        )
        container.register(Layout.self) { r in
            _ = try r.resolveThrows(Toolbar.self)
            return Layout()
        }
        container.register(Toolbar.self, mainActorFactory: { _ in Toolbar() })
        #expect(
            container.verify() == [
                .mainActorRequired(
                    key: ServiceKey(serviceType: Toolbar.self),
                    path: [ServiceKey(serviceType: Layout.self)]
                )
            ]
        )
    }

    @Test("On the main actor, verify() runs sampled main-actor factories, and warmUp() still excuses a .container one")
    @MainActor
    func onTheMainActorSamplesAndWarmUp() {
        let container = Container()
        container.register(
            Screen.self,
            mainActorFactory: { (r: any Resolver, _: String) in
                _ = r.resolve(Palette.self)
                return Screen()
            }
        )
        container.register(Toolbar.self, mainActorFactory: { _ in Toolbar() }).inObjectScope(.container)
        container.register(Layout.self) { r in
            _ = try r.resolveThrows(Toolbar.self)
            return Layout()
        }
        var samples = SampleArguments()
        samples.add(Screen.self, arguments: "home")
        let problems = container.verify(samples: samples)
        #expect(problems.count == 1)
        let missing = problems.contains { problem in
            if case .notRegistered(let key, _, _) = problem {
                return key == ServiceKey(serviceType: Palette.self)
            }
            return false
        }
        #expect(missing)
    }

    @Test("On the main actor, warmUp() excuses a .multiton main-actor registration without arguments, as off it")
    @MainActor
    func onTheMainActorWarmUpExcusesAMultiton() {
        let container = Container()
        // warmUp() creates a `.multiton` registration without arguments as it does a `.container` one, so
        // a synchronous factory that needs it is not a problem, on the main actor or off it.
        container.register(Toolbar.self, mainActorFactory: { _ in Toolbar() }).inObjectScope(.multiton)
        container.register(Layout.self) { r in
            _ = try r.resolveThrows(Toolbar.self)
            return Layout()
        }
        #expect(container.verify().isEmpty)
    }

    @Test("Off the main actor, verify() does not run main-actor factories")
    func offTheMainActorMainActorFactoriesAreNotRun() async {
        let container = Container()
        let runs = Counter()
        container.register(
            Screen.self,
            mainActorFactory: { r in
                runs.increment()
                _ = r.resolve(Palette.self)
                return Screen()
            }
        )
        let resolver = container.synchronize()
        let problems = await Task.detached { resolver.withContainer { $0.verify() } }.value
        #expect(problems == [])
        #expect(runs.count == 0)
    }
}

// MARK: - Fronts register whole

/// When the watched registration is added, has another thread resolve it while the front is still
/// registering, and waits a bounded time for that resolve: a front that registers under the hierarchy's
/// lock makes the other thread wait until the registration is whole.
private final class Interloper: Behavior, @unchecked Sendable {
    // @unchecked: `fired` and `seen` are only touched under `lock`; the semaphores are thread-safe.
    private let lock = NSLock()
    private var fired = false
    private var seen: Dial?
    private let started = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    func container<Type, Service>(
        _ container: Container,
        didRegisterType type: Type.Type,
        toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {
        guard type == Dial.self else { return }
        let isFirst = locked {
            defer { fired = true }
            return !fired
        }
        guard isFirst else { return }
        let resolver = container.synchronize()
        Thread.detachNewThread {
            self.started.signal()
            let dial = resolver.resolve(Dial.self)
            self.locked { self.seen = dial }
            self.finished.signal()
        }
        started.wait()
        if finished.wait(timeout: .now() + 1) == .success {
            finished.signal()  // for `expectOneSharedInstance`, which waits again
        }
    }

    /// Waits for the other thread, then checks that it got the instance every later resolve shares.
    func expectOneSharedInstance(in container: Container, sourceLocation: SourceLocation = #_sourceLocation) {
        guard locked({ fired }) else {
            Issue.record("the registration was not made in the container", sourceLocation: sourceLocation)
            return
        }
        finished.wait()
        let during = locked { seen }
        let after = container.synchronize().resolve(Dial.self)
        #expect(during != nil, sourceLocation: sourceLocation)
        #expect(
            during === after,
            "resolved while the front registered: made with the default scope",
            sourceLocation: sourceLocation
        )
    }

    private func locked<T>(_ body: () -> T) -> T {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

@Suite("Fronts register whole, under the hierarchy's lock", .tags(.concurrency), .hangLimit)
struct FrontsRegisterWholeTests {
    @Test("Container.bootstrap")
    func bootstrap() async {
        let interloper = Interloper()
        let container = Container(behaviors: [interloper])
        await Container.withCurrent(container) {
            await Container.bootstrap { container in
                container.register(Dial.self) { Dial() }.inObjectScope(.container)
            }
        }
        interloper.expectOneSharedInstance(in: container)
    }

    @Test("DIActor.registerSharedActor")
    func registerSharedActor() async {
        let interloper = Interloper()
        let container = Container(behaviors: [interloper])
        await Container.withCurrent(container) {
            _ = await DIActor.shared.registerSharedActor(Dial.self) { Dial() }
        }
        interloper.expectOneSharedInstance(in: container)
    }

    @Test("DependencyRegistry.register")
    func dependencyRegistry() {
        let interloper = Interloper()
        let container = Container(behaviors: [interloper])
        Container.withCurrent(container) {
            DependencyRegistry.register { Dial() }
        }
        interloper.expectOneSharedInstance(in: container)
    }

    @Test("A RegistryModule's register, outside and during startup")
    func registryModule() {
        let interloper = Interloper()
        let container = Container(behaviors: [interloper])
        Container.withCurrent(container) {
            _ = Registry.register { Dial() }
        }
        interloper.expectOneSharedInstance(in: container)

        let startingInterloper = Interloper()
        let starting = Container(behaviors: [startingInterloper])
        withRegistryTestbed(onStartup: { Registry.lazy { Dial() } }) { _ in
            Container.withCurrent(starting) {
                Registry.performStartup()
                startingInterloper.expectOneSharedInstance(in: starting)
                Registry.performShutdown()
            }
        }
    }
}
