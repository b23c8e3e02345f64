extension Container {
    /// Serves `request` if a registration is found directly under its key, handing `resolver` to the
    /// factories, and fails a plain miss at once; returns `false` for what only the typed
    /// ``resolve(_:arguments:resolver:)`` serves (forwarded keys, wrappers, graph identifiers, counted and
    /// inspected resolves), so that a failed resolve walks the hierarchy once.
    @inlinable
    func serve(_ request: _ResolutionRequest, handing resolver: ResolverReference) throws(DIError) -> Bool {
        if hierarchy.needsAttention {
            // Counted or inspected: left to the typed path, which counts it with its types known (a
            // dynamic cast to count it here costs more instructions on the `counted-container` row).
            return false
        }
        switch lookup(request.key) {
        case .registered(let entry, let resolveErased):
            try resolveErased(entry, self, request.key, request.arguments, resolver, request.result)
            return true
        case .forwarded:
            return false
        case .missing:
            return try serveMiss(request.key)
        }
    }

    /// A miss on the erased path: `false` when the key may still be served without a registration of its
    /// own (a wrapper such as `Lazy` or `Optional`, or the graph identifier), else the error.
    @usableFromInline
    func serveMiss(_ key: ServiceKey) throws(DIError) -> Bool {
        if key.serviceType == GraphIdentifier.self {
            return false
        }
        let type = ObjectIdentifier(key.serviceType)
        if hierarchy.state.lastUnwrappedMiss != type {
            if key.serviceType is any InstanceWrapper.Type {
                return false
            }
            hierarchy.state.lastUnwrappedMiss = type
        }
        throw notRegistered(key)
    }
}
