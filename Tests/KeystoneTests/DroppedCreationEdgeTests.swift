import Foundation
import Keystone
import Testing

// The ends of a creation whose registration lost its instances while the creation was on its way: what
// it takes back from its scope, and what it leaves there. A dropped creation may have stored its instance
// for its `initCompleted` actions; it takes back that instance and nothing else, whatever a newer
// creation put in the scope meanwhile.

private final class Made: Sendable {
    let id: Int
    init(id: Int) { self.id = id }
}

private struct MadeValue: Sendable {
    let id: Int
}

/// Resolves `Made` (or `MadeValue`) from its `initCompleted` action, so that a creation of that service
/// running its own actions may resolve it again without a cycle.
private final class Bridge {}

private struct Refused: Error {}

/// One container whose first creation of `Service` drops itself (a reset from its `initCompleted` action)
/// and then brings about a newer instance, through `Bridge`, before its action ends.
private final class NewerDuringActions<Service> {
    let container = Container()
    let serial = Counter()
    var firstAction = true
    var newer: Service?

    /// `droppedInFactory`: the first creation also drops itself from its factory, so that it is stored
    /// only for its actions.
    init(make: @escaping (Int) -> Service, throwing: Bool, droppedInFactory: Bool = false) {
        container.register(Service.self) { [unowned self, serial] _ in
            if droppedInFactory, firstAction {
                container.resetObjectScope(.container)
            }
            return make(serial.next())
        }
        .inObjectScope(.container)
        .initCompleted { [unowned self] resolver, _ in
            guard firstAction else { return }
            firstAction = false
            // Takes this creation's instance from the scope and ends it.
            container.resetObjectScope(.container)
            // The bridge's action resolves the service again: a newer instance fills the scope.
            _ = resolver.resolve(Bridge.self)
            if throwing {
                throw Refused()
            }
        }
        container.register(Bridge.self) { _ in Bridge() }
            .inObjectScope(.container)
            .initCompleted { [unowned self] resolver, _ in
                newer = resolver.resolve(Service.self)
            }
    }
}

@Suite("A dropped creation takes back only its own instance", .tags(.engine))
struct DroppedCreationEdgeTests {
    @Test("A dropped creation whose initCompleted action throws leaves alone the newer instance in its scope")
    func failedActionKeepsTheNewerInstance() throws {
        let scenario = NewerDuringActions(make: { Made(id: $0) }, throwing: true)
        #expect(throws: DIError.self) { try scenario.container.resolveThrows(Made.self) }
        let newer = try #require(scenario.newer)
        #expect(newer.id == 2)
        #expect(try scenario.container.resolveThrows(Made.self) === newer)
        #expect(scenario.serial.count == 2)
    }

    @Test("A dropped creation of a value leaves alone the newer value in its scope")
    func droppedValueKeepsTheNewerValue() throws {
        let scenario = NewerDuringActions(make: { MadeValue(id: $0) }, throwing: false)
        let first = try scenario.container.resolveThrows(MadeValue.self)
        #expect(first.id == 1)
        #expect(scenario.newer?.id == 2)
        #expect(try scenario.container.resolveThrows(MadeValue.self).id == 2)
        #expect(scenario.serial.count == 2)
    }

    @Test(
        "A creation dropped in its factory, then taken from its scope in its action, leaves the newer instance",
        arguments: [false, true]
    )
    func droppedTwiceKeepsTheNewerInstance(throwing: Bool) throws {
        let values = NewerDuringActions(make: { MadeValue(id: $0) }, throwing: throwing, droppedInFactory: true)
        let objects = NewerDuringActions(make: { Made(id: $0) }, throwing: throwing, droppedInFactory: true)
        if throwing {
            #expect(throws: DIError.self) { try values.container.resolveThrows(MadeValue.self) }
            #expect(throws: DIError.self) { try objects.container.resolveThrows(Made.self) }
        } else {
            #expect(try values.container.resolveThrows(MadeValue.self).id == 1)
            #expect(try objects.container.resolveThrows(Made.self).id == 1)
        }
        #expect(try values.container.resolveThrows(MadeValue.self).id == 2)
        #expect(try objects.container.resolveThrows(Made.self) === objects.newer)
        #expect(objects.newer?.id == 2)
    }

    @Test("A dropped creation of a value whose action throws leaves alone the newer value in its scope")
    func failedActionKeepsTheNewerValue() throws {
        let scenario = NewerDuringActions(make: { MadeValue(id: $0) }, throwing: true)
        #expect(throws: DIError.self) { try scenario.container.resolveThrows(MadeValue.self) }
        #expect(scenario.newer?.id == 2)
        #expect(try scenario.container.resolveThrows(MadeValue.self).id == 2)
    }

    @Test("A dropped creation of a class with no newer instance is taken back from its scope")
    func droppedClassIsTakenBack() throws {
        let container = Container()
        let serial = Counter()
        let ended = SerialLog()
        var first = true
        container.register(Made.self) { [serial] _ in
            let made = Made(id: serial.next())
            if first {
                first = false
                // Drops this creation while its factory runs: the instance is disposed once it completes.
                container.resetObjectScope(.container)
            }
            return made
        }
        .inObjectScope(.container)
        .initCompleted { resolver, made in
            // The dropped instance waits in its scope for its actions, which find it.
            #expect(resolver.resolve(Made.self) === made)
        }
        .onDispose { ended.add($0.id) }
        let dropped = try container.resolveThrows(Made.self)
        #expect(dropped.id == 1)
        #expect(ended.all == [1])
        let next = try container.resolveThrows(Made.self)
        #expect(next.id == 2)
        #expect(try container.resolveThrows(Made.self) === next)
    }
}

@Suite("An async creation whose registration's scope changes while its factory is suspended", .tags(.engine))
struct AsyncScopeChangeTests {
    /// Registers an async `Made` in `scope` whose first creation yields, then moves the registration to
    /// `.container`, as a chained `inObjectScope` after `registerAsync` does while another task already
    /// resolves it.
    private static func register(in container: Container, scope: ObjectScope, serial: Counter) {
        let holder = EntryHolder<Made>()
        holder.entry = container.registerAsync(Made.self) { _ in
            let made = Made(id: serial.next())
            if made.id == 1 {
                await Task.yield()
                holder.entry?.inObjectScope(.container)
            }
            return made
        }
        .inObjectScope(scope)
    }

    @Test(
        "Started under a scope that keeps nothing, it is the instance of the .container scope set meanwhile",
        arguments: [ObjectScope.transient, .graph]
    )
    func keptByTheScopeSetMeanwhile(from scope: ObjectScope) async throws {
        let container = Container()
        let serial = Counter()
        Self.register(in: container, scope: scope, serial: serial)
        let first = try await container.resolveAsync(Made.self)
        #expect(try await container.resolveAsync(Made.self) === first)
        #expect(serial.count == 1)
    }

    @Test(
        "Started under a scope that keeps instances, the change drops it: handed out, kept nowhere",
        arguments: [ObjectScope.container, .weak]
    )
    func droppedByTheChange(from scope: ObjectScope) async throws {
        let container = Container()
        let serial = Counter()
        Self.register(in: container, scope: scope, serial: serial)
        let first = try await container.resolveAsync(Made.self)
        #expect(first.id == 1)
        let second = try await container.resolveAsync(Made.self)
        #expect(second.id == 2)
        #expect(try await container.resolveAsync(Made.self) === second)
    }
}

@Suite("DIActor.release ends what it drops", .tags(.engine))
struct ReleaseDisposalTests {
    @Test("DIActor.release runs the disposal handlers of the instance it drops, once")
    func releaseDisposes() async throws {
        let container = Container()
        let ended = SerialLog()
        try await Container.withCurrent(container) {
            container.register(Made.self) { _ in Made(id: 1) }
                .inObjectScope(.container)
                .onDispose { ended.add($0.id) }
            #expect(container.resolve(Made.self)?.id == 1)
            await DIActor.shared.release(Made.self)
            #expect(ended.all == [1])
            #expect(container.resolve(Made.self) == nil)
            try container.dispose()
            #expect(ended.all == [1])
        }
    }

    @Test("DIActor.release of a forwarded type leaves the instance to the registration still in place")
    func releaseOfAForwardedKeyKeepsTheInstance() async throws {
        let container = Container()
        let ended = SerialLog()
        await Container.withCurrent(container) {
            let entry = container.register(Made.self) { _ in Made(id: 1) }
                .inObjectScope(.container)
                .onDispose { ended.add($0.id) }
            container.forward(AnyObject.self, to: entry)
            let made = container.resolve(Made.self)
            await DIActor.shared.release(AnyObject.self)
            #expect(ended.all.isEmpty)
            #expect(container.resolve(Made.self) === made)
        }
    }
}

/// The entry an async factory changes the scope of, filled in once registered.
private final class EntryHolder<Service>: @unchecked Sendable {
    var entry: ServiceEntry<Service>?
}
