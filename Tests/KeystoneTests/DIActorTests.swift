import Foundation
import Keystone
import Testing

/// How `DIActor` registers, shares, releases, fails and reports.
///
/// Every test here uses a `DIActor()` of its own, never `DIActor.shared`, so the tests run in parallel
/// without seeing each other's registrations. The tests that need `DIActor.shared` (the guide's
/// examples, `DIActorGlobalAPI`, `DIActorBridge`) are in `DIActorSeedExamplesTests`.
@Suite("DIActor", .tags(.concurrency), .hangLimit)
struct DIActorTests {
    // MARK: - Lifetimes

    @Test("A factory registered with register(_:factory:) runs on every resolve")
    func factoryRunsOnEveryResolve() async {
        let actor = DIActor()
        let calls = Tally()
        await actor.register(Widget.self) { Widget(serial: calls.next()) }

        let first = await actor.resolve(Widget.self)
        let second = await actor.resolve(Widget.self)
        let third = await actor.resolve(Widget.self)

        #expect([first?.serial, second?.serial, third?.serial] == [1, 2, 3])
        #expect(calls.count == 3)
    }

    @Test("An instance registered with register(_:instance:) is what every resolve returns")
    func instanceIsReturnedByEveryResolve() async {
        let actor = DIActor()
        let widget = Widget(serial: 7)
        await actor.register(Widget.self, instance: widget)
        await actor.register(Settings.self, instance: Settings(name: "staging"))

        let first = await actor.resolve(Widget.self)
        let second = await actor.resolve(Widget.self)

        #expect(first === widget)
        #expect(second === widget)
        #expect(await actor.resolve(Settings.self) == Settings(name: "staging"))
    }

    @Test("A shared actor is created on the first resolve and returned by every later one")
    func sharedActorIsCreatedOnce() async {
        let actor = DIActor()
        let calls = Tally()
        await actor.registerSharedActor(Store.self) { Store(serial: calls.next()) }
        #expect(calls.count == 0)

        let first = await actor.resolve(Store.self)
        let second = await actor.resolve(Store.self)

        #expect(first != nil)
        #expect(first === second)
        #expect(calls.count == 1)
    }

    @Test("A thousand tasks resolving one shared actor at once see one instance, made by one factory call")
    func sharedActorUnderContention() async {
        let actor = DIActor()
        let calls = Tally()
        await actor.registerSharedActor(Store.self) {
            // Slow enough that the first resolve is still in its factory while others arrive.
            usleep(2_000)
            return Store(serial: calls.next())
        }

        let identities = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<1_000 {
                group.addTask {
                    await actor.resolve(Store.self).map(ObjectIdentifier.init)
                }
            }
            var seen: Set<ObjectIdentifier?> = []
            for await identity in group {
                seen.insert(identity)
            }
            return seen
        }

        #expect(identities.count == 1)
        #expect(!identities.contains(nil))
        #expect(calls.count == 1)
    }

    @Test("Registering a type again replaces the earlier registration")
    func registeringAgainReplaces() async {
        let actor = DIActor()
        await actor.register(Widget.self) { Widget(serial: 1) }
        await actor.register(Widget.self) { Widget(serial: 2) }

        #expect(await actor.resolve(Widget.self)?.serial == 2)
        #expect(await actor.registeredCount() == 1)
    }

    @Test("Registering a shared type again drops the instance of the earlier registration")
    func registeringAgainDropsTheSharedInstance() async {
        let actor = DIActor()
        await actor.registerSharedActor(Store.self) { Store(serial: 1) }
        weak var old: Store?
        do {
            let store = await actor.resolve(Store.self)
            old = store
            #expect(store?.serial == 1)
        }
        #expect(old != nil, "the container holds the first instance")
        await actor.registerSharedActor(Store.self) { Store(serial: 2) }

        let new = await actor.resolve(Store.self)
        #expect(old == nil, "once the new registration is in effect, nothing holds the first instance")
        #expect(new?.serial == 2)
        #expect(await actor.resolve(Store.self) === new)
    }

    @Test("Functions and types marked @DIActor run on the shared actor")
    func globalActorAttribute() async {
        let tally = IsolatedTally()
        let isolation = await tally.isolation()
        #expect(isolation == ObjectIdentifier(DIActor.shared), "a @DIActor method runs on DIActor.shared")
    }

    // MARK: - Release handlers

    @Test("A release handler removes its registration")
    func releaseHandlerRemovesItsRegistration() async {
        let actor = DIActor()
        let release = await actor.register(Widget.self) { Widget(serial: 1) }
        #expect(await actor.resolve(Widget.self) != nil)

        await release()

        #expect(await actor.resolve(Widget.self) == nil)
        #expect(await actor.registeredCount() == 0)
    }

    @Test("A shared actor's release handler removes it and drops its instance, so resolve returns nil")
    func sharedReleaseHandlerDropsTheInstance() async {
        let actor = DIActor()
        let release = await actor.registerSharedActor(Store.self) { Store(serial: 1) }
        weak var dropped: Store?
        do {
            let store = await actor.resolve(Store.self)
            dropped = store
            #expect(store != nil)
        }
        #expect(dropped != nil, "the container holds the shared instance")

        await release()

        #expect(dropped == nil, "the container no longer holds the shared instance")
        #expect(await actor.resolve(Store.self) == nil)
    }

    @Test("A release handler called after re-registration leaves the new registration alone")
    func staleHandlerLeavesTheNewRegistration() async {
        let actor = DIActor()
        let releaseFirst = await actor.register(Widget.self) { Widget(serial: 1) }
        await actor.register(Widget.self) { Widget(serial: 2) }

        await releaseFirst()

        #expect(await actor.resolve(Widget.self)?.serial == 2)
        #expect(await actor.registeredCount() == 1)
    }

    @Test("A shared actor's handler called after re-registration leaves the new instance alone")
    func staleSharedHandlerLeavesTheNewInstance() async {
        let actor = DIActor()
        let releaseFirst = await actor.registerSharedActor(Store.self) { Store(serial: 1) }
        await actor.registerSharedActor(Store.self) { Store(serial: 2) }
        let before = await actor.resolve(Store.self)

        await releaseFirst()

        let after = await actor.resolve(Store.self)
        #expect(before?.serial == 2)
        #expect(after === before)
    }

    @Test("Calling a release handler twice is harmless")
    func handlerTwiceIsHarmless() async {
        let actor = DIActor()
        let releaseWidget = await actor.register(Widget.self) { Widget(serial: 1) }
        let releaseStore = await actor.registerSharedActor(Store.self) { Store(serial: 1) }
        await actor.register(Settings.self, instance: Settings(name: "kept"))

        await releaseWidget()
        await releaseWidget()
        await releaseStore()
        await releaseStore()

        #expect(await actor.registeredCount() == 1)
        #expect(await actor.resolve(Settings.self)?.name == "kept")

        // Nor does a second call touch a registration made after the first one.
        await actor.register(Widget.self) { Widget(serial: 2) }
        await releaseWidget()
        #expect(await actor.resolve(Widget.self)?.serial == 2)
    }

    @Test("A release handler does nothing after releaseAll, even once its type is registered again")
    func handlerAfterReleaseAll() async {
        let actor = DIActor()
        let release = await actor.registerSharedActor(Store.self) { Store(serial: 1) }
        await actor.releaseAll()
        await actor.registerSharedActor(Store.self) { Store(serial: 2) }

        await release()

        #expect(await actor.resolve(Store.self)?.serial == 2)
    }

    @Test("A release handler that outlives its actor does nothing")
    func handlerOutlivingItsActor() async {
        var release: (@Sendable () async -> Void)?
        weak var gone: DIActor?
        do {
            let actor = DIActor()
            gone = actor
            release = await actor.register(Widget.self) { Widget(serial: 1) }
        }
        #expect(release != nil)
        #expect(gone == nil, "the handler does not keep its actor alive")
        await release?()  // nothing left to release: returns without touching anything
        await release?()
    }

    @Test("release(_:) removes whatever is registered for a type, including types that are not Sendable")
    func releaseByType() async {
        let actor = DIActor()
        let releaseWidget = await actor.register(Widget.self) { Widget(serial: 1) }
        await actor.register(Settings.self, instance: Settings(name: "kept"))

        await actor.release(Widget.self)
        await actor.release(NotSendable.self)  // never registered: nothing to do

        #expect(await actor.resolve(Widget.self) == nil)
        #expect(await actor.allRegisteredTypes() == ["Settings"])
        await releaseWidget()  // already released: harmless
        #expect(await actor.registeredCount() == 1)
    }

    @Test("releaseAll removes every registration and every instance")
    func releaseAllRemovesEverything() async {
        let actor = DIActor()
        await actor.register(Widget.self) { Widget(serial: 1) }
        await actor.registerSharedActor(Store.self) { Store(serial: 1) }
        weak var dropped: Store?
        do {
            dropped = await actor.resolve(Store.self)
        }
        #expect(dropped != nil, "the container holds the shared instance")

        await actor.releaseAll()

        #expect(await actor.registeredCount() == 0)
        #expect(dropped == nil)
        #expect(await actor.resolve(Widget.self) == nil)
    }

    // MARK: - Errors

    @Test("resolve of an unregistered type returns nil")
    func resolveUnregistered() async {
        #expect(await DIActor().resolve(Unregistered.self) == nil)
    }

    @Test("resolveResult of an unregistered type fails with notRegistered, naming the type")
    func resolveResultUnregistered() async {
        let result = await DIActor().resolveResult(Unregistered.self)

        guard case .failure(let error) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(error == .notRegistered(key: ServiceKey(serviceType: Unregistered.self), path: [], candidates: []))
        #expect(error.key?.serviceType == Unregistered.self)
        #expect(error.description.contains("No registration for Unregistered."))
    }

    @Test("resolveThrows of an unregistered type throws notRegistered, naming the type")
    func resolveThrowsUnregistered() async {
        let actor = DIActor()
        let expected = DIError.notRegistered(key: ServiceKey(serviceType: Unregistered.self), path: [], candidates: [])

        await #expect(throws: expected) {
            try await actor.resolveThrows(Unregistered.self)
        }
        do {
            _ = try await actor.resolveThrows(Unregistered.self)
        } catch {
            #expect(error.description.contains("Unregistered"))
        }
    }

    @Test("A released type is reported as not registered")
    func releasedTypeIsNotRegistered() async {
        let actor = DIActor()
        let release = await actor.registerSharedActor(Store.self) { Store(serial: 1) }
        await release()

        let expected = DIError.notRegistered(key: ServiceKey(serviceType: Store.self), path: [], candidates: [])
        await #expect(throws: expected) {
            try await actor.resolveThrows(Store.self)
        }
    }

    // MARK: - Inspection

    @Test("statusReport shows each registration's scope and the resolutions this test made")
    func statusReportCountsResolutions() async {
        let actor = DIActor()
        await actor.register(Widget.self) { Widget(serial: 1) }
        await actor.registerSharedActor(Store.self) { Store(serial: 1) }
        await actor.register(Settings.self, instance: Settings(name: "unused"))
        for _ in 0..<3 {
            _ = await actor.resolve(Widget.self)
        }
        for _ in 0..<2 {
            _ = await actor.resolve(Store.self)
        }

        let lines = await actor.statusReport().split(separator: "\n").map(String.init)

        #expect(lines.first == "Container with 3 registrations:")
        let widget = lines.first { $0.hasPrefix("• Widget ") }
        let store = lines.first { $0.hasPrefix("• Store ") }
        let settings = lines.first { $0.hasPrefix("• Settings ") }
        #expect(widget?.contains("[transient]") == true)
        #expect(widget?.hasSuffix("resolved 3 times") == true)
        #expect(store?.contains("[container]") == true)
        #expect(store?.hasSuffix("resolved 2 times, shared, instance held") == true)
        #expect(settings?.hasSuffix("resolved 0 times, shared") == true)
    }

    @Test("registeredCount and allRegisteredTypes follow registrations and releases")
    func countAndTypesFollowChanges() async {
        let actor = DIActor()
        #expect(await actor.registeredCount() == 0)
        #expect(await actor.allRegisteredTypes() == [])

        let releaseWidget = await actor.register(Widget.self) { Widget(serial: 1) }
        await actor.registerSharedActor(Store.self) { Store(serial: 1) }
        await actor.register(Settings.self, instance: Settings(name: "a"))
        #expect(await actor.registeredCount() == 3)
        #expect(await actor.allRegisteredTypes() == ["Settings", "Store", "Widget"])

        await releaseWidget()
        await actor.release(Store.self)
        #expect(await actor.registeredCount() == 1)
        #expect(await actor.allRegisteredTypes() == ["Settings"])
    }

    @Test("Every call of the Core API exists with the shape the guide lists")
    func coreAPIShapes() async throws {
        let actor = DIActor()
        let releaseWidget: @Sendable () async -> Void = await actor.register(Widget.self) { Widget(serial: 1) }
        await actor.register(Settings.self, instance: Settings(name: "x"))
        let releaseStore: @Sendable () async -> Void = await actor.registerSharedActor(Store.self) {
            Store(serial: 1)
        }
        let optional: Widget? = await actor.resolve(Widget.self)
        let result: Result<Widget, DIError> = await actor.resolveResult(Widget.self)
        let thrown: Widget = try await actor.resolveThrows(Widget.self)
        let count: Int = await actor.registeredCount()
        let types: [String] = await actor.allRegisteredTypes()
        let report: String = await actor.statusReport()
        await actor.printStatus()
        await actor.release(Widget.self)
        await releaseWidget()
        await releaseStore()
        await actor.releaseAll()

        #expect(optional != nil)
        #expect((try? result.get()) != nil)
        #expect(thrown.serial == 1)
        #expect(count == 3)
        #expect(types.count == 3)
        #expect(!report.isEmpty)
        #expect(await actor.registeredCount() == 0)
    }
}

// MARK: - Services

extension DIActorTests {
    fileprivate final class Widget: Sendable {
        let serial: Int

        init(serial: Int) {
            self.serial = serial
        }
    }

    fileprivate actor Store {
        let serial: Int

        init(serial: Int) {
            self.serial = serial
        }
    }

    fileprivate struct Settings: Sendable, Equatable {
        var name: String
    }

    fileprivate struct Unregistered: Sendable {}

    /// Never `Sendable`: `release(_:)` accepts it all the same.
    fileprivate final class NotSendable {}

    @DIActor
    fileprivate final class IsolatedTally {
        /// The actor this method runs on, as `#isolation` sees it.
        func isolation() -> ObjectIdentifier? {
            (#isolation).map { ObjectIdentifier($0) }
        }
    }

    /// Counts factory calls from any thread.
    fileprivate final class Tally: @unchecked Sendable {
        // @unchecked: `value` is only touched under `lock`.
        private let lock = NSLock()
        private var value = 0

        /// Counts one more call and returns the count, from 1.
        func next() -> Int {
            lock.lock()
            defer { lock.unlock() }
            value += 1
            return value
        }

        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return value
        }
    }
}
