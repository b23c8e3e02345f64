import Dispatch
import Foundation
import Testing

@testable import Keystone

// `DIActor.shared` follows `Container.withCurrent` as the facades do.

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
