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

    /// ``serve(_:handing:)`` while resolves are observed. A resolve of a key registered directly
    /// (not forwarded) is served here when it is validated (``validatesScopes``, maybe counted too), or
    /// counted and made inside a call (a factory resolving through the `any Resolver` it was handed):
    /// counted and checked as the typed path would, then resolved by the resolve compiled for its
    /// service. Through `any Resolver`, the typed path runs generic code, which looks up generic metadata
    /// at every step: `server-scope` (the example server's request scope, which validates) 60,735
    /// instructions a request there, 38,268 here; `counted-chain` (`chain` while counting, as every
    /// `DIActor` container does) 41,073 there, 23,547 here. Everything else goes to the typed path:
    /// inspected resolves, and counted top-level ones, whose typed path is specialized in the caller and
    /// costs less than finding the slot here (`counted-container` 768 instructions here, 473 there).
    /// Out of line, so that the unobserved path stays as it was (`container` row +17% with this inlined).
    @usableFromInline @inline(never)
    func serveObserved(_ request: _ResolutionRequest, handing resolver: ResolverReference) throws(DIError) -> Bool {
        let observation = hierarchy.attend()
        guard observation == .validating || observation == .counting && hierarchy.state.calls > 0 else {
            return false
        }
        // The slot, rather than `lookup(_:)`: the checks take the registration as `any AnyServiceEntry`.
        guard let slot = slot(for: request.key), !slot.isForwarded else {
            return false
        }
        let entry = slot.entry
        observe(entry, as: request.key)
        try entry.resolveErased(entry, self, request.key, request.arguments, resolver, request.result)
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
