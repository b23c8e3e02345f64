/// A resolve made later, when first asked for: the one mechanism behind `Lazy`, `Provider`, and the
/// property wrappers that resolve on first read (`@LazyInject`, and `@Inject`/`@OptionalInject` of a
/// ``Registry`` service with the `.lazy` lifecycle).
///
/// It knows the container to resolve from and how to resolve there. The container is held weakly, and
/// also strongly until the first value is made when asked to (a property wrapper initialized outside
/// any factory, which may be read after ``Container/withCurrent(_:operation:)`` has returned). The
/// cached value and the strong reference are read and written only under the hierarchy's lock, so an
/// owner shared across threads sees one resolve.
@usableFromInline
final class DeferredResolution<Service> {
    /// What is resolved, for the error when the container is gone.
    let key: ServiceKey
    private let hierarchy: Hierarchy
    private weak var container: Container?
    /// The container again, strongly, until the first value is made; `nil` when it is held weakly only.
    private var keptContainer: Container?
    /// Whether the first value is kept and returned by every later `get`.
    private let caches: Bool
    private var cached: Service?
    private let resolveNow: (Container, GraphIdentifier?) throws(DIError) -> Service

    /// Prepares to resolve `key` from `container` with `resolve`, which is handed the container and the
    /// graph given to ``get(inGraph:)``.
    init(
        _ key: ServiceKey,
        from container: Container,
        keepingContainer: Bool,
        caching: Bool,
        resolve: @escaping (Container, GraphIdentifier?) throws(DIError) -> Service
    ) {
        self.key = key
        self.hierarchy = container.hierarchy
        self.container = container
        self.keptContainer = keepingContainer ? container : nil
        self.caches = caching
        self.resolveNow = resolve
    }

    /// Prepares a `Lazy` or a `Provider` resolved under `key` (with the wrapped service's type) from
    /// `container`: checked now, resolved later with the same name and arguments, handing factories a
    /// synchronized view if the wrapper was resolved through one.
    convenience init<Arguments>(
        wrapping key: ServiceKey,
        from container: Container,
        arguments: Arguments,
        resolver: any Resolver,
        caching: Bool
    ) throws(DIError) {
        guard container.isRegistered(key) else {
            throw container.notRegistered(key)
        }
        let synchronized = resolver is SynchronizedResolver || resolver is AsyncGraphResolver
        self.init(key, from: container, keepingContainer: false, caching: caching) {
            (container, graph) throws(DIError) -> Service in
            let resolver: any Resolver = synchronized ? SynchronizedResolver(container) : container
            return try container.resolve(key, arguments: arguments, inGraph: graph, resolver: resolver)
        }
    }

    /// Prepares a property wrapper's value, resolved by `resolve` from `context`'s container on first
    /// read. Made inside a factory of that container's hierarchy, it holds the container weakly: the
    /// container may come to hold the wrapper's owner, and a strong reference back would form a cycle.
    /// Made anywhere else, it keeps the container alive until the value is made.
    convenience init(
        property name: String?,
        from context: FrontContext,
        resolve: @escaping (FrontContext) -> Service
    ) {
        let container = context.container
        let isCreating = container.hierarchy.withLock { container.hierarchy.state.calls > 0 }
        self.init(
            .of(Service.self, name: name, Void.self, 0),
            from: container,
            keepingContainer: !isCreating,
            caching: true
        ) {
            (container, _) in resolve(FrontContext(container))
        }
    }

    /// The identity of the graph being resolved in `container`'s hierarchy, if any: what a `Lazy` made
    /// now resolves inside later.
    static func currentGraph(of container: Container) -> GraphIdentifier? {
        container.hierarchy.state.currentGraph()
    }

    /// The value: the kept one, or one resolved now (inside `graph`, when given), under the lock.
    func get(inGraph graph: GraphIdentifier? = nil) throws(DIError) -> Service {
        try hierarchy.withLock { () throws(DIError) -> Service in
            if let cached {
                return cached
            }
            guard let container = keptContainer ?? container else {
                throw .containerDeallocated(key: key)
            }
            let made = try resolveNow(container, graph)
            if caches {
                cached = made
                // Resolved: the container is no longer needed, and holding it could keep it alive for good.
                keptContainer = nil
            }
            return made
        }
    }

    /// A property wrapper's value: a property cannot throw, so a failure stops the program with the fix.
    var propertyValue: Service {
        do {
            return try get()
        } catch {
            fatalError(
                "Keystone: a lazily injected \(Service.self) was read after the container it was injected from was "
                    + "deallocated. It was injected inside a factory, so it held that container weakly. Fix: keep "
                    + "that container alive as long as the objects it injected."
            )
        }
    }

    /// Stops the program for a `Lazy` or `Provider` whose `instance` could not be resolved.
    func fail(_ error: DIError, in wrapper: String) -> Never {
        fatalError("Keystone: \(wrapper)<\(Service.self)>.instance could not be resolved. \(error)")
    }
}

// @unchecked: `cached` and `keptContainer` are read and written only under the hierarchy's lock; the weak
// `container` is only loaded after `init` (thread-safe); the rest are `let`s. What the compiler cannot
// check is `resolveNow`: for a `Lazy` or `Provider` it captures the runtime arguments of the resolve
// that made it, and the resolve overloads take arguments of any type (Swinject's spellings). The
// documentation of `Lazy` and `Provider` says to pass `Sendable` arguments to one that crosses threads.
extension DeferredResolution: @unchecked Sendable where Service: Sendable {}
