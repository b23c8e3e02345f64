/// A type that wraps a registered service and is resolved without a registration of its own:
/// `Lazy<Service>`, `Provider<Service>` and `Optional<Service>`.
protocol InstanceWrapper {
    /// The key of the wrapped service, for a wrapper resolved under `key`.
    static func wrappedKey(of key: ServiceKey) -> ServiceKey?

    /// The wrapper resolved under `key` (the wrapper's own type, name and arguments).
    static func wrap<Arguments>(
        in container: Container,
        key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Self
}

/// How a `Lazy` or a `Provider` resolves its service later: from its container, if it still exists,
/// under the hierarchy's lock, with the name and arguments it was resolved with.
struct DeferredResolution<Service> {
    let key: ServiceKey
    private let hierarchy: Hierarchy
    private let resolveNow: (GraphIdentifier?) throws(DIError) -> Service

    /// Prepares to resolve `key` from `container`, or fails now if nothing is registered to resolve later.
    init<Arguments>(
        from container: Container,
        key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) {
        guard container.isRegistered(key) else {
            throw container.notRegistered(key)
        }
        let synchronized = resolver is SynchronizedResolver
        self.key = key
        self.hierarchy = container.hierarchy
        self.resolveNow = { [weak container] (graph: GraphIdentifier?) throws(DIError) -> Service in
            guard let container else {
                throw .containerDeallocated(key: key)
            }
            let resolver: any Resolver = synchronized ? SynchronizedResolver(container) : container
            return try container.resolve(key, arguments: arguments, inGraph: graph, resolver: resolver)
        }
    }

    /// The graph being resolved when the wrapper is created, if any.
    static func currentGraph(of container: Container) -> GraphIdentifier? {
        container.hierarchy.state.currentGraph()
    }

    /// Runs `body` under the hierarchy's lock.
    func withLock<T>(_ body: () throws(DIError) -> T) throws(DIError) -> T {
        try hierarchy.withLock(body)
    }

    /// Resolves inside `graph`, or the current graph (a new one outside any resolve) when `nil`.
    /// The caller holds the lock.
    func resolve(inGraph graph: GraphIdentifier?) throws(DIError) -> Service {
        try resolveNow(graph)
    }

    /// Stops with the error's explanation: `instance` promises a value. `fatalError`, so that the
    /// message is printed in optimized builds too.
    func fail(_ error: DIError, in wrapper: String) -> Never {
        fatalError("Keystone: \(wrapper)<\(Service.self)>.instance could not be resolved. \(error)")
    }
}

extension InstanceWrapper {
    static func wrappedKey(of key: ServiceKey) -> ServiceKey? {
        nil
    }
}

extension Optional: InstanceWrapper {
    static func wrap<Arguments>(
        in container: Container,
        key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Wrapped? {
        let wrappedKey = key.with(serviceType: Wrapped.self)
        guard container.isRegistered(wrappedKey) || Wrapped.self is any InstanceWrapper.Type else {
            // Asked for as optional: a missing registration is an answer, not a failure.
            return nil
        }
        do {
            let wrapped: Wrapped = try container.resolve(wrappedKey, arguments: arguments, resolver: resolver)
            return wrapped
        } catch {
            if case .notRegistered(let missing, _, _) = error, missing == wrappedKey {
                return nil
            }
            throw error
        }
    }
}
