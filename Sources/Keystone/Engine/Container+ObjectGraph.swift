extension Container {
    /// Resolves `key` as one call inside `graph` (or the current graph when `nil`), for `Lazy` and
    /// `Provider`.
    func resolve<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        inGraph graph: GraphIdentifier?,
        resolver: any Resolver
    ) throws(DIError) -> Service {
        try hierarchy.state.withGraph(graph) { () throws(DIError) in
            try resolve(key, arguments: arguments, resolver: resolver)
        }
    }

    /// Resolves everything `closure` resolves inside one graph, `identifier`: instances of that graph
    /// still alive are reused, and new `.graph` instances join it.
    ///
    /// ```swift
    /// container.withObjectGraph(graph) { container in
    ///     container.resolve(Dog.self)  // the dog of `graph`, if it is still alive
    /// }
    /// ```
    ///
    /// Each resolve inside `closure` is a call of its own and reports its own failures. The closure runs
    /// under the hierarchy's lock, so that no synchronized resolve sees the graph switched.
    public func withObjectGraph<T>(_ identifier: GraphIdentifier, closure: (Container) throws -> T) rethrows -> T {
        try hierarchy.withLock {
            try hierarchy.state.inGraph(identifier) {
                try closure(self)
            }
        }
    }
}
