extension Container {
    /// Serves `request` if a registration is found directly under its key, handing `resolver` to the
    /// factories, and fails a plain miss at once; returns `false` for what only the typed
    /// ``resolve(_:arguments:resolver:)`` serves (forwarded keys, wrappers, graph identifiers, counted and
    /// inspected resolves), so that a failed resolve walks the hierarchy once.
    @inlinable
    func serve(_ request: _ResolutionRequest, handing resolver: ResolverReference) throws(DIError) -> Bool {
        if hierarchy.needsAttention {
            return try serveObserved(request, handing: resolver)
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

    /// ``serve(_:handing:)`` while resolves are observed. Counted or inspected: left to the typed path,
    /// which counts it with its types known (a dynamic cast to count it here costs more instructions on
    /// the `counted-container` row). Validated (``validatesScopes``, and maybe counted too) and registered
    /// directly under its key: checked here as the typed path checks it, then served by the resolve
    /// compiled for its service, so that a validated resolve through `any Resolver` does not run generic
    /// code (`server-scope` row, the example server's request scope, which validates scopes: 60,735
    /// instructions a request on the typed path, 39,320 here). Out of line, so that the unobserved path
    /// stays as it was (`container` row +17% with this inlined).
    @usableFromInline @inline(never)
    func serveObserved(_ request: _ResolutionRequest, handing resolver: ResolverReference) throws(DIError) -> Bool {
        guard hierarchy.attend() == .validating, case .registered(let entry, let resolveErased) = lookup(request.key)
        else {
            return false
        }
        // The checks take the registration as `any AnyServiceEntry`: its slot has it.
        if let slot = slot(for: request.key) {
            noteResolution(of: slot.entry, as: request.key)
            checkScope(of: slot.entry, as: request.key)
        }
        try resolveErased(entry, self, request.key, request.arguments, resolver, request.result)
        return true
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
