// The hand-written baseline's containers (see `BaselineSuite`), in a file of their own with nothing of the
// benchmark harness: the instruction-count driver (`Benchmarks/InstructionCounts`) links it, so that its
// baseline scenarios run the same code as the wall-clock table's.

import Foundation

/// One registration as a baseline container holds it: the factory, typed, and the instance its scope
/// keeps (`.container`: for good; `.graph`: until the top-level resolve ends). `Input` is what the factory
/// takes: the container, or the container and the runtime arguments.
final class BaselineEntry<Input, Service>: BaselineGraphMember {
    let make: (Input) -> Service
    var instance: Service?

    init(_ make: @escaping (Input) -> Service) {
        self.make = make
    }

    func endGraph() {
        instance = nil
    }
}

/// An entry whose instance belongs to the current graph, dropped when the top-level resolve ends.
protocol BaselineGraphMember: AnyObject {
    func endGraph()
}

/// Factories by service type, with an optional parent, the `.container` instance kept in the entry, and a
/// lock for the synchronized scenarios.
final class BaselineContainer {
    typealias Entry<Service> = BaselineEntry<BaselineContainer, Service>

    private let parent: BaselineContainer?
    private var entries: [ObjectIdentifier: AnyObject] = [:]
    /// Recursive, as Keystone's and Swinject's are: a factory may resolve through the synchronized view
    /// it was called from, and that must not deadlock.
    private let lock = NSRecursiveLock()

    init(parent: BaselineContainer? = nil) {
        self.parent = parent
    }

    func register<Service>(_ type: Service.Type, factory: @escaping (BaselineContainer) -> Service) {
        entries[ObjectIdentifier(type)] = Entry(factory)
    }

    /// The entry registered for `type` here, else in the nearest ancestor: a miss in each container on
    /// the way up, then the hit.
    private func entry<Service>(_ type: Service.Type) -> Entry<Service>? {
        let key = ObjectIdentifier(type)
        var container = self
        while true {
            if let entry = container.entries[key] {
                return unsafeDowncast(entry, to: Entry<Service>.self)
            }
            guard let parent = container.parent else { return nil }
            container = parent
        }
    }

    /// A new instance from the factory found for `type`.
    func resolve<Service>(_ type: Service.Type) -> Service? {
        guard let entry = entry(type) else { return nil }
        return entry.make(self)
    }

    /// The `.container` scope: the instance made by the first resolve is kept in the entry, and every
    /// later resolve is the lookup and a load.
    func resolveCached<Service>(_ type: Service.Type) -> Service? {
        guard let entry = entry(type) else { return nil }
        if let instance = entry.instance {
            return instance
        }
        let instance = entry.make(self)
        entry.instance = instance
        return instance
    }

    /// `resolve` under the lock, as a thread-safe view does it.
    func resolveLocked<Service>(_ type: Service.Type) -> Service? {
        lock.lock()
        defer { lock.unlock() }
        return resolve(type)
    }

    /// `resolveCached` under the lock, as a thread-safe view does it.
    func resolveCachedLocked<Service>(_ type: Service.Type) -> Service? {
        lock.lock()
        defer { lock.unlock() }
        return resolveCached(type)
    }
}

/// A key made of the service type and a registration name.
struct NamedKey: Hashable {
    let type: ObjectIdentifier
    let name: String?
}

/// Factories by service type and name: every lookup hashes the name.
final class BaselineNamedContainer {
    typealias Entry<Service> = BaselineEntry<BaselineNamedContainer, Service>

    private var entries: [NamedKey: AnyObject] = [:]

    func register<Service>(
        _ type: Service.Type,
        name: String?,
        factory: @escaping (BaselineNamedContainer) -> Service
    ) {
        entries[NamedKey(type: ObjectIdentifier(type), name: name)] = Entry(factory)
    }

    func resolve<Service>(_ type: Service.Type, name: String? = nil) -> Service? {
        guard let entry = entries[NamedKey(type: ObjectIdentifier(type), name: name)] else { return nil }
        return unsafeDowncast(entry, to: Entry<Service>.self).make(self)
    }
}

/// A key made of the service type and the type of the factory's arguments (a tuple when several).
struct ArgumentsKey: Hashable {
    let type: ObjectIdentifier
    let arguments: ObjectIdentifier
}

/// Factories that take runtime arguments, keyed by the service type and the arguments' type, which fixes
/// the factory's type.
final class BaselineArgumentsContainer {
    private var entries: [ArgumentsKey: AnyObject] = [:]

    func register<Service, Arguments>(_ type: Service.Type, factory: @escaping (Arguments) -> Service) {
        entries[ArgumentsKey(type: ObjectIdentifier(type), arguments: ObjectIdentifier(Arguments.self))] =
            BaselineEntry(factory)
    }

    func resolve<Service, Arguments>(_ type: Service.Type, arguments: Arguments) -> Service? {
        let key = ArgumentsKey(type: ObjectIdentifier(type), arguments: ObjectIdentifier(Arguments.self))
        guard let entry = entries[key] else { return nil }
        return unsafeDowncast(entry, to: BaselineEntry<Arguments, Service>.self).make(arguments)
    }
}

/// The `.graph` scope: the instances one resolve makes are kept in their entries until that resolve ends,
/// so that everything needing the same service gets the same instance; the entries that hold one are
/// listed, in an array that keeps its capacity, to be emptied at the end.
final class BaselineGraphContainer {
    typealias Entry<Service> = BaselineEntry<BaselineGraphContainer, Service>

    private var entries: [ObjectIdentifier: AnyObject] = [:]
    /// How many resolves are in progress: the graph ends when the outermost one returns.
    private var depth = 0
    private var graph: [any BaselineGraphMember] = []

    func register<Service>(_ type: Service.Type, factory: @escaping (BaselineGraphContainer) -> Service) {
        entries[ObjectIdentifier(type)] = Entry(factory)
    }

    /// The graph's instance of `type` if it has one, else a new one that joins the graph.
    func resolve<Service>(_ type: Service.Type) -> Service? {
        guard let object = entries[ObjectIdentifier(type)] else { return nil }
        let entry = unsafeDowncast(object, to: Entry<Service>.self)
        if let instance = entry.instance {
            return instance
        }
        depth += 1
        let instance = entry.make(self)
        depth -= 1
        if depth > 0 {
            entry.instance = instance
            graph.append(entry)
        } else if !graph.isEmpty {
            // The outermost resolve returns: its instance need not be kept, the others are dropped.
            for member in graph {
                member.endGraph()
            }
            graph.removeAll(keepingCapacity: true)
        }
        return instance
    }
}

/// The actor front by hand: an actor that holds a dictionary of entries by service type, each made with
/// `Void` input and keeping its instance (what `DIActor.resolve` of a shared service is compared with).
actor BaselineActorFront {
    private var entries: [ObjectIdentifier: AnyObject]

    init(entries: [ObjectIdentifier: AnyObject]) {
        self.entries = entries
    }

    /// The entry's instance, made by the first resolve (see `BaselineContainer.resolveCached`).
    func resolve<Service>(_ type: Service.Type) -> Service? {
        guard let object = entries[ObjectIdentifier(type)] else { return nil }
        let entry = unsafeDowncast(object, to: BaselineEntry<Void, Service>.self)
        if let instance = entry.instance {
            return instance
        }
        let instance = entry.make(())
        entry.instance = instance
        return instance
    }
}
