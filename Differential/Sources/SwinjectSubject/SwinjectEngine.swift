// Swinject 2.10.0 (the oracle) behind the common Engine protocol.
import DifferentialCore
import Swinject

public final class SwinjectEngine: Engine {
    public var name: String { "Swinject" }

    /// Swinject logs failed resolves only when SWINJECT_LOGGING_ENABLED=1.
    public init() {}

    func objectScope(_ scope: ScopeKind) -> ObjectScope {
        switch scope {
        case .transient: .transient
        case .graph: .graph
        case .container: .container
        case .weak: .weak
        }
    }

    public func makeContainer(parent: Container?) -> Container { Container(parent: parent) }

    public func register(
        in container: Container,
        service: Any.Type,
        name: String?,
        args: [ArgType],
        scope: ScopeKind,
        initCompleted: (() -> Void)?,
        forwards: [(type: Any.Type, name: String?)],
        factory: @escaping (_ resolve: (Request) -> Any?) -> Any
    ) {
        let registrar = Registrar(
            container: container,
            name: name,
            scope: objectScope(scope),
            initCompleted: initCompleted,
            forwards: forwards,
            factory: factory
        )
        dispatch(registrar, service: service, args: args.map(\.sample))
    }

    /// The synchronized views made so far, by container: a container's resolves go through its view.
    var views: [ObjectIdentifier: Resolver] = [:]

    public func synchronize(_ container: Container) {
        views[ObjectIdentifier(container)] = container.synchronize()
    }

    public func resolve(in container: Container, service: Any.Type, name: String?, args: [ArgValue]) -> Any? {
        if let view = views[ObjectIdentifier(container)] {
            // Swinject's view is an existential `Resolver`: opened to the concrete type it holds.
            func through<R: Resolver>(_ resolver: R) -> Any? {
                dispatch(Resolve(resolver: resolver, name: name), service: service, args: args)
            }
            return through(view)
        }
        return dispatch(Resolve(resolver: container, name: name), service: service, args: args)
    }

    public func removeAll(in container: Container) { container.removeAll() }

    public func resetObjectScope(in container: Container, _ scope: ScopeKind, serviceType: Any.Type?) {
        if let serviceType {
            container.resetObjectScope(objectScope(scope), serviceType: serviceType)
        } else {
            container.resetObjectScope(objectScope(scope))
        }
    }
}

/// Resolves a request through `resolver`: a container or the resolver handed to a factory.
struct Resolve<R: Resolver>: ArgumentVisitor {
    let resolver: R
    let name: String?
    func visit<S>(_ s: S.Type) -> Any? { resolver.resolve(s, name: name) }
    func visit<S, A>(_ s: S.Type, _ a: A) -> Any? { resolver.resolve(s, name: name, argument: a) }
    func visit<S, A, B>(_ s: S.Type, _ a: A, _ b: B) -> Any? { resolver.resolve(s, name: name, arguments: a, b) }
    func visit<S, A, B, C>(_ s: S.Type, _ a: A, _ b: B, _ c: C) -> Any? {
        resolver.resolve(s, name: name, arguments: a, b, c)
    }
}

func resolving(_ r: any Resolver) -> (Request) -> Any? {
    { q in resolve(through: r, q) }
}

func resolve<R: Resolver>(through r: R, _ q: Request) -> Any? {
    dispatch(Resolve(resolver: r, name: q.name), service: ServiceTypes.all[q.service], args: q.args)
}

struct Registrar: ArgumentVisitor {
    let container: Container
    let name: String?
    let scope: ObjectScope
    let initCompleted: (() -> Void)?
    let forwards: [(type: Any.Type, name: String?)]
    let factory: (_ resolve: (Request) -> Any?) -> Any

    func visit<S>(_ s: S.Type) {
        configure(container.register(s, name: name) { r in factory(resolving(r)) as! S })
    }
    func visit<S, A>(_ s: S.Type, _: A) {
        configure(container.register(s, name: name) { (r, _: A) in factory(resolving(r)) as! S })
    }
    func visit<S, A, B>(_ s: S.Type, _: A, _: B) {
        configure(container.register(s, name: name) { (r, _: A, _: B) in factory(resolving(r)) as! S })
    }
    func visit<S, A, B, C>(_ s: S.Type, _: A, _: B, _: C) {
        configure(container.register(s, name: name) { (r, _: A, _: B, _: C) in factory(resolving(r)) as! S })
    }

    func configure<S>(_ entry: ServiceEntry<S>) {
        entry.inObjectScope(scope)
        if let initCompleted { entry.initCompleted { _, _ in initCompleted() } }
        for forward in forwards { implement(entry, forward.type, forward.name) }
    }

    func implement<S, F>(_ entry: ServiceEntry<S>, _ type: F.Type, _ name: String?) {
        entry.implements(type, name: name)
    }
}
