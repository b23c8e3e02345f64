import Dispatch
import Foundation
import Testing

@testable import Keystone

// The fronts' soundness: one lock for `DIActor.shared` and the facades, `@LazyInject`'s container, the
// `.lazy` lifecycle seen from a child container, `.unique` for Optional-typed requests, no user code
// inside the fronts' bookkeeping, eager services registered during startup, replaced registrations
// released at once, and `DIActor`'s inspection calls.

// MARK: - Fixtures

/// A service that notes its creation in the current test's journal.
private final class Kettle {
    init() { FrontJournal.note("Kettle.init") }
}

private final class Toaster {
    init() { FrontJournal.note("Toaster.init") }
}

/// Injects a `Kettle` with `@Inject`: deferred to the first read when the registration is `.lazy`.
private final class Kitchen {
    @Inject var kettle: Kettle
    @OptionalInject var optionalKettle: Kettle?
}

/// Reads its service lazily.
private final class LazyReader {
    @LazyInject var kettle: Kettle
}

/// A shared service that sets up a `@LazyInject` property when its factory creates it.
private final class LazyDashboard {
    @LazyInject var kettle: Kettle
}

/// Asks for new instances through Optional-typed requests.
private final class UniqueOptionals {
    @Inject(scope: .unique) var kettle: Kettle?
    @OptionalInject(scope: .unique) var optionalKettle: Kettle??
    @Inject(scope: .unique) var toaster: Toaster?
}

/// Something a factory captures, to watch when the factory is released.
private final class Captured {}

/// Something a factory captures whose deinit uses a front: it registers a service.
private final class Tripwire {
    deinit {
        DependencyRegistry.register { Toaster() }
    }
}

/// An eager service whose factory registers another eager service, and whose `postConstruct` a third.
private final class Igniter: PostConstruct {
    init() {
        FrontJournal.note("Igniter.init")
        Registry.eager { Spark() }
    }

    func postConstruct() {
        Registry.eager { Flame() }
    }
}

private final class Spark {
    init() { FrontJournal.note("Spark.init") }
}

private final class Flame {
    init() { FrontJournal.note("Flame.init") }
}

private protocol Clock: Sendable {}
private struct SystemClock: Clock {}

/// The tests that use the process-wide default container (through `DIActor.shared`, `DIActorBridge`,
/// `DIActorGlobalAPI` or the facades outside `withCurrent`). `DIActor.shared` fronts that container, and
/// some of these tests empty it, so every suite that touches it is nested here and runs one test at a
/// time.
@Suite("The process-wide default container", .serialized, .hangLimit)
enum ProcessWideContainerTests {}

// MARK: - Tests in containers of their own

@Suite("Fronts soundness", .tags(.concurrency, .engine), .hangLimit)
struct FrontsSoundnessTests {
    // MARK: @LazyInject's container

    @Test("A @LazyInject made outside a factory keeps its container alive until it resolves, then lets it go")
    func lazyInjectKeepsItsContainerUntilItResolves() throws {
        weak var weakContainer: Container?
        let reader = Container.withCurrent(Container()) {
            weakContainer = Container.current
            DependencyRegistry.register { Kettle() }
            return LazyReader()
        }
        try #require(weakContainer != nil, "read after withCurrent, it must still resolve from its container")
        let kettle = reader.kettle
        #expect(reader.kettle === kettle)
        #expect(weakContainer == nil, "once resolved, the wrapper no longer holds the container")
    }

    @Test("A @LazyInject made inside a factory holds its container weakly, read or not")
    func lazyInjectMadeInAFactoryMakesNoCycle() {
        weak var weakContainer: Container?
        weak var weakDashboard: LazyDashboard?
        do {
            let container = Container()
            weakContainer = container
            Container.withCurrent(container) {
                DependencyRegistry.register { Kettle() }
                DependencyRegistry.register { LazyDashboard() }
                weakDashboard = DependencyRegistry.resolve() as LazyDashboard
            }
        }
        #expect(weakContainer == nil)
        #expect(weakDashboard == nil)
    }

    // MARK: .lazy from a child container

    @Test("@Inject from a child container defers a .lazy service registered in its parent to the first read")
    func lazyLifecycleIsSeenFromAChildContainer() {
        withRegistryTestbed(onStartup: { Registry.lazy { Kettle() } }) { journal in
            Registry.performStartup()
            let child = Container(parent: Container.current)
            let kitchen = Container.withCurrent(child) { Kitchen() }
            #expect(journal.count("Kettle.init") == 0)

            let kettle = kitchen.kettle
            #expect(journal.count("Kettle.init") == 1)
            #expect(kitchen.optionalKettle === kettle)
            #expect(Registry.resolve(Kettle.self) === kettle)
        }
    }

    // MARK: .unique for Optional-typed requests

    @Test(".unique makes a new instance for Optional-typed requests, and nil when the wrapped type is missing")
    func uniqueHoldsForOptionalRequests() {
        Container.withCurrent(Container()) {
            DependencyRegistry.register { Kettle() }
            let shared: Kettle = DependencyRegistry.resolve()
            let first: Kettle? = DependencyRegistry.resolve(scope: .unique)
            let second: Kettle? = DependencyRegistry.resolve(scope: .unique)
            #expect(first != nil && second != nil)
            #expect(first !== shared && second !== shared && first !== second)
            let optional: Kettle?? = DependencyRegistry.optional(scope: .unique)
            #expect(optional != nil && optional! != nil && optional!! !== shared)

            let one = UniqueOptionals()
            let two = UniqueOptionals()
            #expect(one.kettle != nil && one.kettle !== shared && one.kettle !== two.kettle)
            #expect(one.optionalKettle != nil && one.optionalKettle!! !== shared)
            #expect(one.optionalKettle!! !== two.optionalKettle!!)
            #expect(one.toaster == nil, "Toaster is not registered")
            #expect((DependencyRegistry.resolve(scope: .unique) as Toaster?) == nil)
        }
    }

    @Test(".unique of a registered Optional type still resolves to nil")
    func uniqueOfARegisteredOptionalIsNil() {
        Container.withCurrent(Container()) {
            DependencyRegistry.register { () -> Kettle? in Kettle() }
            #expect((DependencyRegistry.resolve(scope: .unique) as Kettle?) == nil)
            #expect((DependencyRegistry.resolve() as Kettle?) == nil)
        }
    }

    // MARK: No user code inside the fronts' bookkeeping

    @Test("Replacing a DependencyRegistry registration whose captures' deinit uses a front does not stop")
    func replacingReleasesOutsideTheBookkeeping() async {
        await #expect(processExitsWith: .success) {
            Container.withCurrent(Container()) {
                do {
                    let tripwire = Tripwire()
                    DependencyRegistry.register { withExtendedLifetime(tripwire) { Kettle() } }
                }
                DependencyRegistry.register { Kettle() }
                precondition(DependencyRegistry.optional() as Toaster? != nil, "the deinit registered a Toaster")
            }
        }
    }

    @Test("Overriding a Registry service whose captures' deinit uses a front does not stop")
    func overridingReleasesOutsideTheBookkeeping() async {
        await #expect(processExitsWith: .success) {
            let startup = {
                do {
                    let tripwire = Tripwire()
                    Registry.register { withExtendedLifetime(tripwire) { Kettle() } }
                }
                Registry.override { Kettle() }
            }
            withRegistryTestbed(onStartup: startup) { _ in
                Registry.performStartup()
                precondition(DependencyRegistry.optional() as Toaster? != nil, "the deinit registered a Toaster")
                Registry.performShutdown()
            }
        }
    }

    // MARK: Eager services registered during startup

    @Test("An eager service registered while eager services are being created is created by startup too")
    func eagerServicesRegisteredDuringStartupAreRealized() {
        withRegistryTestbed(onStartup: { Registry.eager { Igniter() } }) { journal in
            Registry.performStartup()
            #expect(journal.count("Igniter.init") == 1)
            #expect(journal.count("Spark.init") == 1, "registered by an eager service's factory")
            #expect(journal.count("Flame.init") == 1, "registered by an eager service's postConstruct")
            Registry.performShutdown()
        }
    }

    // MARK: Replaced registrations are released at once

    @Test("A DependencyRegistry registration replaced or removed by other means releases its captures at once")
    func replacedDependencyRegistryFactoryIsReleased() {
        Container.withCurrent(Container()) {
            weak var weakCaptured: Captured?
            do {
                let captured = Captured()
                weakCaptured = captured
                DependencyRegistry.register { withExtendedLifetime(captured) { Kettle() } }
            }
            #expect(weakCaptured != nil, "the registration holds its instantiator")
            DependencyRegistry.register { Kettle() }
            #expect(weakCaptured == nil, "replaced by the facade: nothing keeps the old instantiator")

            do {
                let captured = Captured()
                weakCaptured = captured
                DependencyRegistry.register { withExtendedLifetime(captured) { Toaster() } }
            }
            Container.current.register(Toaster.self) { _ in Toaster() }
            // The engine publishes a registration whole, at the registering thread's next call at the
            // latest; from then on the replaced one is gone.
            #expect(DependencyRegistry.optional() as Toaster? != nil)
            #expect(weakCaptured == nil, "replaced on the container directly")

            do {
                let captured = Captured()
                weakCaptured = captured
                DependencyRegistry.register { withExtendedLifetime(captured) { Toaster() } }
            }
            Container.current.removeAll()
            #expect(weakCaptured == nil, "removed from the container")
        }
    }

    @Test("A Registry service replaced by another front releases what its factory captured at once")
    func replacedRegistryFactoryIsReleased() {
        let witness = WeakBox()
        let startup = {
            let captured = Captured()
            witness.object = captured
            Registry.register { withExtendedLifetime(captured) { Kettle() } }
        }
        withRegistryTestbed(onStartup: startup) { _ in
            Registry.performStartup()
            #expect(witness.object != nil, "the registration holds its factory")
            DependencyRegistry.register { Kettle() }
            #expect(witness.object == nil, "replaced: nothing keeps the old factory")
            Registry.performShutdown()
            #expect(DependencyRegistry.optional() as Kettle? != nil, "shutdown leaves what another front registered")
        }
    }

    @Test("An overridden Registry service releases what its factory captured at once")
    func overriddenRegistryFactoryIsReleased() {
        let witness = WeakBox()
        let startup = {
            do {
                let captured = Captured()
                witness.object = captured
                Registry.register { withExtendedLifetime(captured) { Kettle() } }
            }
            Registry.override { Kettle() }
        }
        withRegistryTestbed(onStartup: startup) { _ in
            Registry.performStartup()
            #expect(witness.object == nil)
            Registry.performShutdown()
        }
    }

    @Test("reset() and shutdown remove only their own front's registrations, whatever the container did since")
    func resetAndShutdownFindTheirRegistrationsOnTheEntries() {
        withRegistryTestbed(onStartup: { Registry.register { Toaster() } }) { _ in
            Registry.performStartup()
            DependencyRegistry.register { Kettle() }
            Container.current.register(Captured.self) { _ in Captured() }

            DependencyRegistry.reset()
            #expect(DependencyRegistry.optional() as Kettle? == nil)
            #expect(DependencyRegistry.optional() as Toaster? != nil)

            Registry.performShutdown()
            #expect(DependencyRegistry.optional() as Toaster? == nil)
            #expect(Container.current.synchronize().resolve(Captured.self) != nil)
        }
    }

    @Test("ServiceOptions of a replaced registration change nothing, and do not keep it alive")
    func optionsOfAReplacedRegistrationDoNothing() {
        let witness = WeakBox()
        withRegistryTestbed { journal in
            Registry.performStartup()
            let options: ServiceOptions
            do {
                let captured = Captured()
                witness.object = captured
                options = Registry.register { withExtendedLifetime(captured) { Kettle() } }
            }
            #expect(witness.object != nil, "the registration holds its factory")
            Registry.override { Kettle() }
            #expect(witness.object == nil, "the options held here do not keep the replaced factory alive")
            // After startup, .eager would realize the service at once: on the override, had it reached it.
            options.lifecycle(.eager)
            #expect(journal.count("Kettle.init") == 0)
            Registry.performShutdown()
        }
    }

    // MARK: DIActor's inspection calls

    @Test("DIActor's verify() and dependencyGraph() inspect its container")
    func actorInspection() async {
        let dependencies = DIActor()
        await dependencies.register(Clock.self) { SystemClock() }
        #expect(await dependencies.verify() == [])
        let graph = await dependencies.dependencyGraph()
        #expect(graph.nodes.contains { $0.key == ServiceKey(serviceType: Clock.self) })
        #expect(graph.mermaid.hasPrefix("graph TD"))
    }
}

/// Two threads each reach a point once, and there wait a bounded time for the other to reach its own.
private final class Rendezvous: Sendable {
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

/// A weak reference that a `@Sendable`-free closure can fill in.
private final class WeakBox {
    weak var object: AnyObject?
}

// MARK: - Tests on the process-wide default container

/// Services only these tests register in the default container.
private final class Gauge: Sendable {}
private final class Meter: Sendable {}
private final class MissingPart: Sendable {}
private final class NeedsAPart: Sendable {
    let part: MissingPart?
    init(part: MissingPart?) { self.part = part }
}

/// Made by a `DIActor` factory: its `@Inject` resolves through the facades.
private struct ActorMade: Sendable {
    @Inject var gauge: Gauge
}

/// Made by a facade instantiator that resolves through `DIActorBridge`.
private final class FacadeMade: Sendable {
    let meter: Meter
    init(meter: Meter) { self.meter = meter }
}

extension ProcessWideContainerTests {
    @Suite("Fronts soundness: DIActor.shared and the facades share one container and one lock", .hangLimit)
    struct FrontsSoundnessDefaultContainerTests {
        init() async {
            await DIActor.shared.releaseAll()
        }

        @Test("A registration made through a facade is resolved by DIActor.shared, with the same instance")
        func oneContainerForEveryFront() async {
            DependencyRegistry.register { Gauge() }
            await DIActor.shared.registerSharedActor(Meter.self) { Meter() }
            defer { DependencyRegistry.reset() }

            let gauge: Gauge = DependencyRegistry.resolve()
            #expect(await DIActor.shared.resolve(Gauge.self) === gauge)
            #expect(DIActorBridge.resolveSync(Gauge.self) === gauge)
            #expect(await DIActorGlobalAPI.resolve(Gauge.self) === gauge)
            let meter = await DIActor.shared.resolve(Meter.self)
            #expect(meter != nil && DependencyRegistry.optional() as Meter? === meter)

            await DIActor.shared.release(Meter.self)
        }

        @Test("DIActor.shared.releaseAll() clears the default container")
        func releaseAllClearsTheDefaultContainer() async {
            DependencyRegistry.register { Gauge() }
            #expect(DependencyRegistry.optional() as Gauge? != nil)
            await DIActor.shared.releaseAll()
            #expect(DependencyRegistry.optional() as Gauge? == nil)
        }

        @Test(
            "A DIActor factory using @Inject and an instantiator using resolveSync run on two threads at once",
            .tags(.concurrency)
        )
        func noLockOrderDeadlock() {
            // One thread: DIActor's container first (its factory), then the facades' (`@Inject`). The
            // other: the facades' first (an instantiator), then DIActor's (`resolveSync`). On their first
            // call each factory waits (up to a second) for the other thread to be inside its own: with two
            // locks both get there, each holding its first lock, and then wait for each other forever (the
            // hang limit ends the run); with one lock the second thread cannot enter, the first stops
            // waiting, and both finish.
            let rendezvous = Rendezvous()
            DependencyRegistry.register { Gauge() }
            DIActorBridge.registerSync(Meter.self) { Meter() }
            DIActorBridge.registerSync(ActorMade.self) {
                rendezvous.meet(side: 0)
                return ActorMade()
            }
            DependencyRegistry.register { () -> FacadeMade in
                rendezvous.meet(side: 1)
                return FacadeMade(meter: DIActorBridge.resolveSync(Meter.self)!)
            }
            defer {
                DependencyRegistry.reset()
                DIActorBridge.releaseSyncForTests(Meter.self, ActorMade.self)
            }

            let rounds = 1_000
            // Threads of their own: the dispatch pool may be as narrow as the test runner's own threads.
            let group = DispatchGroup()
            let gauges = Counter()
            group.enter()
            Thread.detachNewThread {
                for _ in 0..<rounds {
                    if DIActorBridge.resolveSync(ActorMade.self)?.gauge != nil {
                        gauges.increment()
                    }
                }
                group.leave()
            }
            group.enter()
            Thread.detachNewThread {
                for _ in 0..<rounds {
                    let made: FacadeMade = DependencyRegistry.resolve(scope: .unique)
                    _ = made.meter
                    gauges.increment()
                }
                group.leave()
            }
            group.wait()
            #expect(gauges.count == 2 * rounds)
        }

        @Test("DIActor.shared.verify() checks the default container, the facades' registrations included")
        func sharedVerifySeesTheFacades() async {
            DependencyRegistry.register { NeedsAPart(part: DependencyRegistry.optional()) }
            defer { DependencyRegistry.reset() }

            let problems = await DIActor.shared.verify()
            let missing = problems.contains { problem in
                if case .notRegistered(let key, _, _) = problem {
                    return key == ServiceKey(serviceType: MissingPart.self)
                }
                return false
            }
            #expect(missing)
            let graph = await DIActor.shared.dependencyGraph()
            #expect(
                graph.edges.contains(
                    DependencyGraph.Edge(
                        from: ServiceKey(serviceType: NeedsAPart.self),
                        to: ServiceKey(serviceType: MissingPart.self)
                    )
                )
            )
        }
    }
}

extension DIActorBridge {
    /// Removes test registrations from ``DIActor/shared`` without `await`.
    fileprivate static func releaseSyncForTests(_ types: Any.Type...) {
        let container = DIActor.shared.container
        for type in types {
            container.unregister(ServiceKey(serviceType: type))
        }
    }
}
