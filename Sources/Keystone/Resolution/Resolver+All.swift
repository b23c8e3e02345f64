// Collections of services: every registration of a service type, resolved at once.

extension Resolver {
    /// Resolves every registration of `serviceType` that takes no runtime arguments, under every name
    /// (`nil` included): plugins, interceptors, analytics sinks.
    ///
    /// ```swift
    /// container.register(AnalyticsSink.self, name: "console") { _ in ConsoleSink() }
    /// container.register(AnalyticsSink.self, name: "remote") { _ in RemoteSink() }
    /// let sinks = container.resolveAll(AnalyticsSink.self)  // [ConsoleSink, RemoteSink]
    /// ```
    ///
    /// The order is the order of registration, ancestors' registrations first; a child's registration
    /// under the same name as its parent's replaces it, in the parent's position. Each instance follows
    /// its own registration's scope, and all are resolved in one object graph. A registration that fails
    /// is left out (and logged); ``resolveAllThrows(_:)`` says why instead.
    ///
    /// - Parameter serviceType: The service type whose registrations to resolve.
    /// - Returns: One instance per registration, in order; empty when there is none.
    public func resolveAll<Service>(_ serviceType: Service.Type) -> [Service] {
        guard let engine = _engine else { return [] }
        return (try? engine.resolveAll(Service.self, resolver: self, stoppingAtFailure: false)) ?? []
    }

    /// Resolves every registration of `serviceType` that takes no runtime arguments, as
    /// ``resolveAll(_:)`` does, or throws the first failure.
    ///
    /// ```swift
    /// let migrations = try container.resolveAllThrows(Migration.self)
    /// ```
    ///
    /// - Parameter serviceType: The service type whose registrations to resolve.
    /// - Returns: One instance per registration, in order.
    /// - Throws: The ``DIError`` of the first registration that fails.
    public func resolveAllThrows<Service>(_ serviceType: Service.Type) throws(DIError) -> [Service] {
        guard let engine = _engine else { return [] }
        return try engine.resolveAll(Service.self, resolver: self, stoppingAtFailure: true)
    }
}

extension Container {
    /// Resolves every argument-free registration of `Service` visible from this container, in one call,
    /// under the hierarchy's lock, handing `resolver` to the factories.
    func resolveAll<Service>(
        _ serviceType: Service.Type,
        resolver: any Resolver,
        stoppingAtFailure: Bool
    ) throws(DIError) -> [Service] {
        try hierarchy.withLock { () throws(DIError) -> [Service] in
            let keys = allKeys(of: Service.self)
            guard !keys.isEmpty else { return [] }
            var instances: [Service] = []
            do throws(DIError) {
                try hierarchy.state.withCall { () throws(DIError) in
                    for key in keys {
                        do throws(DIError) {
                            instances.append(try resolveOne(key, resolver: resolver))
                        } catch {
                            if stoppingAtFailure {
                                throw error
                            }
                            Log.failure(error)
                        }
                    }
                }
            } catch {
                // A cycle found under one of them fails the call as a whole; the others stand.
                if stoppingAtFailure {
                    throw error
                }
                Log.failure(error)
            }
            return instances
        }
    }

    /// Resolves `key`, of `Service` without arguments, inside the call in flight: through the resolve
    /// compiled for its entry at registration when the key is registered directly (this function is not
    /// specialized for `Service`, that closure is), else on the typed path. The caller holds the lock.
    private func resolveOne<Service>(_ key: ServiceKey, resolver: any Resolver) throws(DIError) -> Service {
        let reference: ResolverReference? =
            if let view = resolver as? SynchronizedResolver {
                ResolverReference(view)
            } else if (resolver as? Container) === self {
                ResolverReference(self)
            } else {
                nil
            }
        if let reference, !hierarchy.needsAttention, case .registered(let entry, let resolveErased) = lookup(key) {
            var result: Service?
            try withUnsafeMutablePointer(to: &result) { (result) throws(DIError) in
                try withUnsafePointer(to: ()) { (arguments) throws(DIError) in
                    try resolveErased(
                        entry,
                        self,
                        key,
                        UnsafeRawPointer(arguments),
                        reference,
                        UnsafeMutableRawPointer(result)
                    )
                }
            }
            if let result {
                return result
            }
        }
        return try resolve(key, arguments: (), resolver: resolver)
    }

    /// The keys of `serviceType` without arguments, every name, in registration order, ancestors first;
    /// a container's key replaces its ancestor's under the same name, in its place. The caller holds the
    /// lock.
    private func allKeys(of serviceType: Any.Type) -> [ServiceKey] {
        var chain: [Container] = []
        var container: Container? = self
        while let current = container {
            chain.append(current)
            container = current.parent
        }
        var keys: [ServiceKey] = []
        var positions: [String?: Int] = [:]
        for current in chain.reversed() {
            for key in current.table.keys(of: serviceType) where !key.takesArguments {
                if let position = positions[key.name] {
                    keys[position] = key
                } else {
                    positions[key.name] = keys.count
                    keys.append(key)
                }
            }
        }
        return keys
    }
}
