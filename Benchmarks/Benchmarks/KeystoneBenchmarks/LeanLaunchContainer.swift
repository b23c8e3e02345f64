// The app launch's leanest hand-written container: factories as closures in one dictionary, with no object
// per registration. It imports nothing, so the instruction-count driver links it as it is.

/// A part of the app's registrations on the lean container, as `Assembly` is in the libraries.
protocol LeanAssembly {
    func assemble(container: LeanLaunchContainer)
}

/// Factories by service type and name, in `.transient`, `.graph` or `.container` scope, and factories
/// taking an `Int` by service type (always `.transient`, as in the app), each stored as a plain closure.
///
/// Unlike `BaselineLaunchContainer`, which keeps an entry object per registration as Keystone does, a
/// registration here is a dictionary slot and nothing else: the factory returns `AnyObject` (every service
/// of the app is a class), so a closure with no captures needs no context, and a kept instance goes into
/// the registration's own slot. A resolve is one hashed lookup, a call of the factory unless an instance is
/// kept, and an unchecked downcast (the key fixes the class).
final class LeanLaunchContainer {
    enum Scope {
        case transient, graph, container
    }

    struct Key: Hashable {
        let type: ObjectIdentifier
        let name: String?
    }

    private struct Registration {
        let make: (LeanLaunchContainer) -> AnyObject
        let scope: Scope
        var instance: AnyObject?
    }

    private var registrations: [Key: Registration] = [:]
    private var argumentFactories: [ObjectIdentifier: (LeanLaunchContainer, Int) -> AnyObject] = [:]
    /// How many resolves are in progress: the graph ends when the outermost one returns.
    private var depth = 0
    /// Where the current graph's instances are kept, to drop them when it ends.
    private var graph: [Dictionary<Key, Registration>.Index] = []

    func register(
        _ type: Any.Type,
        name: String? = nil,
        scope: Scope = .graph,
        factory: @escaping (LeanLaunchContainer) -> AnyObject
    ) {
        registrations[Key(type: ObjectIdentifier(type), name: name)] = Registration(make: factory, scope: scope)
    }

    func register(_ type: Any.Type, factory: @escaping (LeanLaunchContainer, Int) -> AnyObject) {
        argumentFactories[ObjectIdentifier(type)] = factory
    }

    func resolve<Service: AnyObject>(_ type: Service.Type, name: String? = nil) -> Service? {
        guard let index = registrations.index(forKey: Key(type: ObjectIdentifier(type), name: name)) else {
            return nil
        }
        let registration = registrations.values[index]
        if let instance = registration.instance {
            return unsafeDowncast(instance, to: Service.self)
        }
        let instance = make { registration.make(self) }
        switch registration.scope {
        case .transient:
            break
        case .container:
            registrations.values[index].instance = instance
        case .graph:
            // The outermost resolve's instance is not kept: its graph has ended. Nothing is registered
            // during a resolve, so the index stays valid until the graph ends.
            if depth > 0 {
                registrations.values[index].instance = instance
                graph.append(index)
            }
        }
        return unsafeDowncast(instance, to: Service.self)
    }

    func resolve<Service: AnyObject>(_ type: Service.Type, argument: Int) -> Service? {
        guard let factory = argumentFactories[ObjectIdentifier(type)] else { return nil }
        return unsafeDowncast(make { factory(self, argument) }, to: Service.self)
    }

    /// Calls `factory` one level deeper, and ends the graph when the outermost resolve returns.
    private func make(_ factory: () -> AnyObject) -> AnyObject {
        depth += 1
        let instance = factory()
        depth -= 1
        if depth == 0, !graph.isEmpty {
            for index in graph {
                registrations.values[index].instance = nil
            }
            graph.removeAll(keepingCapacity: true)
        }
        return instance
    }
}

/// The app launch on the lean container: the app's assemblies (generated in AppLaunch/LeanSuite+AppLaunch.swift)
/// into a new `LeanLaunchContainer`, then one resolve of the root.
enum LeanSuite {
    static let name = "Lean"

    static func launchApp() -> LeanLaunchContainer {
        let container = LeanLaunchContainer()
        for assembly in appAssemblies() {
            assembly.assemble(container: container)
        }
        return container
    }
}
