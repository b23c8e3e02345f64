extension Container: Resolver {
    /// Resolves the registration with the given service type, name and argument types, handing this
    /// container to the factories it calls.
    ///
    /// Every `resolve`, `resolveThrows` and `resolveResult` overload calls this one.
    @inlinable
    public func resolveService<Service, Arguments>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: Arguments,
        argumentCount: Int
    ) throws(DIError) -> Service {
        try resolve(.of(Service.self, name: name, Arguments.self, argumentCount), arguments: arguments, resolver: self)
    }

    /// Serves a resolve with erased types: a registration of this container or an ancestor under
    /// exactly the key asked for, through the resolve compiled for its types when it was registered.
    /// Inlined into the caller, as the whole hot path is (see ARCHITECTURE.md).
    @inlinable
    public func _resolve(_ request: _ResolutionRequest) throws(DIError) -> Bool {
        try serve(request, handing: ResolverReference(self))
    }
}
