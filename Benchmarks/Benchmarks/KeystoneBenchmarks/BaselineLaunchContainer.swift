// The hand-written baseline of the app launch: a dictionary container with what the app's registrations
// use (names, one runtime argument, three scopes) and nothing else, and the assemblies that fill it.

/// A part of the app's registrations, as `Assembly` is in the libraries.
protocol BaselineAssembly {
    func assemble(container: BaselineLaunchContainer)
}

/// Factories by service type and name, in `.transient`, `.graph` or `.container` scope, and factories
/// taking one argument by service type and argument type (always `.transient`, as in the app).
///
/// A resolve is one hashed lookup, an unchecked downcast of the entry (its key fixes its type, see
/// `BaselineEntry`) and, unless the scope keeps an instance, a call of the factory. `.container` instances
/// stay in their entries; `.graph` ones too, listed until the outermost resolve returns.
final class BaselineLaunchContainer {
    enum Scope {
        case transient, graph, container
    }

    /// An entry and the scope it was registered in.
    private struct Registration {
        let entry: AnyObject
        let scope: Scope
    }

    /// A factory taking an argument, typed as it was registered (see `BaselineEntry`).
    private final class ArgumentEntry<Service, Argument> {
        let make: (BaselineLaunchContainer, Argument) -> Service

        init(_ make: @escaping (BaselineLaunchContainer, Argument) -> Service) {
            self.make = make
        }
    }

    typealias Entry<Service> = BaselineEntry<BaselineLaunchContainer, Service>

    private var registrations: [NamedKey: Registration] = [:]
    private var argumentEntries: [ArgumentsKey: AnyObject] = [:]
    /// How many resolves are in progress: the graph ends when the outermost one returns.
    private var depth = 0
    private var graph: [any BaselineGraphMember] = []

    func register<Service>(
        _ type: Service.Type,
        name: String? = nil,
        scope: Scope = .graph,
        factory: @escaping (BaselineLaunchContainer) -> Service
    ) {
        registrations[NamedKey(type: ObjectIdentifier(type), name: name)] = Registration(
            entry: Entry(factory),
            scope: scope
        )
    }

    func register<Service, Argument>(
        _ type: Service.Type,
        factory: @escaping (BaselineLaunchContainer, Argument) -> Service
    ) {
        let key = ArgumentsKey(type: ObjectIdentifier(type), arguments: ObjectIdentifier(Argument.self))
        argumentEntries[key] = ArgumentEntry(factory)
    }

    func resolve<Service>(_ type: Service.Type, name: String? = nil) -> Service? {
        guard let registration = registrations[NamedKey(type: ObjectIdentifier(type), name: name)] else {
            return nil
        }
        let entry = unsafeDowncast(registration.entry, to: Entry<Service>.self)
        if let instance = entry.instance {
            return instance
        }
        let instance = make { entry.make(self) }
        switch registration.scope {
        case .transient:
            break
        case .container:
            entry.instance = instance
        case .graph:
            // The outermost resolve's instance is not kept: its graph has ended.
            if depth > 0 {
                entry.instance = instance
                graph.append(entry)
            }
        }
        return instance
    }

    func resolve<Service, Argument>(_ type: Service.Type, argument: Argument) -> Service? {
        let key = ArgumentsKey(type: ObjectIdentifier(type), arguments: ObjectIdentifier(Argument.self))
        guard let entry = argumentEntries[key] else { return nil }
        return make { unsafeDowncast(entry, to: ArgumentEntry<Service, Argument>.self).make(self, argument) }
    }

    /// Calls `factory` one level deeper, and ends the graph when the outermost resolve returns.
    private func make<Service>(_ factory: () -> Service) -> Service {
        depth += 1
        let instance = factory()
        depth -= 1
        if depth == 0, !graph.isEmpty {
            for member in graph {
                member.endGraph()
            }
            graph.removeAll(keepingCapacity: true)
        }
        return instance
    }
}
