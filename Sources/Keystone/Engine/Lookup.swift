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
        if key.serviceType == GraphIdentifier.self || key.serviceType is any InstanceWrapper.Type {
            return false
        }
        throw notRegistered(key)
    }

    /// Looks up `key` here, then in the ancestors: the nearest container that has `key` answers. The one
    /// walk of the hierarchy every resolve makes; misses and forwarded keys continue on the typed path
    /// with what it found.
    @inlinable @inline(__always)
    func lookup(_ key: ServiceKey) -> RegistrationTable.Lookup {
        let found = table.lookup(key)
        if case .missing = found, let parent {
            return parent.lookup(key)
        }
        return found
    }

    /// What every resolve does before its lookup: one load and a branch, unless resolves are observed
    /// (counted or inspected). Returns how this one is observed.
    @inlinable @inline(__always)
    func prepareToResolve() -> Hierarchy.Observation {
        hierarchy.needsAttention ? hierarchy.attend() : .none
    }

    /// The resolve path for code that knows the types (the fallback of ``Resolver/resolveFast``, and
    /// the fronts): `key` is `Service` under a name with the type and count of `arguments`. `resolver`
    /// is what factories are handed: this container, or the synchronized view the call came through.
    @inlinable
    func resolve<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Service {
        let observation = prepareToResolve()
        let found = lookup(key)
        if observation != .inspecting, case .registered(let object, _) = found {
            // `.registered` comes only from a slot registered directly under `key`, whose service type is
            // `Service`: the entry is a `ServiceEntry<Service>` (see ARCHITECTURE.md). Unchecked, the cast
            // needs no generic metadata lookup where this code is not specialized (`inject` row: 3,958 to
            // 3,608 instructions; `counted-typed` 592 to 555).
            let entry = unsafeDowncast(object, to: ServiceEntry<Service>.self)
            if observation == .counting {
                entry.resolutionCount &+= 1
            }
            return try hierarchy.state.resolve(entry, as: key, arguments: arguments, resolver: resolver)
        }
        return try resolveInGeneral(key, found: found, arguments: arguments, resolver: resolver)
    }

    /// Counts a resolve that reached `entry` under `key`, or records it while inspecting (whose resolves
    /// leave the counts alone). Only observed resolves and the cold paths call it.
    @usableFromInline
    func noteResolution(of entry: any AnyServiceEntry, as key: ServiceKey) {
        if hierarchy.isInspecting {
            hierarchy.state.noteRequest(key, scope: entry.objectScopeName)
        } else if hierarchy.countsResolutions {
            entry.resolutionCount &+= 1
        }
    }

    /// Every resolve the inlined path does not serve, with what the lookup of `key` `found`: forwarded
    /// keys, wrappers, graph identifiers, misses, and resolves being inspected.
    @usableFromInline
    func resolveInGeneral<Service, Arguments>(
        _ key: ServiceKey,
        found: RegistrationTable.Lookup,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Service {
        switch found {
        case .missing:
            return try resolveUnregistered(key, arguments: arguments, resolver: resolver)
        case .registered(let object, _):
            let entry = object as! ServiceEntry<Service>
            noteResolution(of: entry, as: key)
            return try hierarchy.state.resolve(entry, as: key, arguments: arguments, resolver: resolver)
        case .forwarded:
            // The slot says which entry the key is forwarded to.
            guard let slot = slot(for: key) else {
                return try resolveUnregistered(key, arguments: arguments, resolver: resolver)
            }
            return try resolveForwarded(slot.entry, as: key, arguments: arguments, resolver: resolver)
        }
    }

    /// Creates a new instance of the registration of `serviceType` under `name` (no runtime arguments),
    /// whatever its scope holds, and does not keep it: the facades' "unique" resolve.
    func resolveNew<Service>(
        _ serviceType: Service.Type,
        name: String?,
        resolver: any Resolver
    ) throws(DIError) -> Service {
        let key = ServiceKey(serviceType: Service.self, name: name, argumentsType: Void.self, argumentCount: 0)
        _ = prepareToResolve()
        if case .registered(let object, _) = lookup(key) {
            let entry = object as! ServiceEntry<Service>
            noteResolution(of: entry, as: key)
            let state = hierarchy.state
            return try state.withCall { () throws(DIError) in
                try state.resolveNew(entry, as: key, arguments: (), resolver: resolver)
            }
        }
        // Forwarded keys and wrappers resolve as usual.
        return try resolve(key, arguments: (), resolver: resolver)
    }

    private func resolveForwarded<Service, Arguments>(
        _ entry: any AnyServiceEntry,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Service {
        let state = hierarchy.state
        noteResolution(of: entry, as: key)
        let instance = try state.withCall { () throws(DIError) in
            try entry.resolveForwarded(as: key, arguments: arguments, state: state, resolver: resolver)
        }
        guard let service = instance as? Service else {
            throw .typeMismatch(key: key, actualType: type(of: instance))
        }
        return service
    }

    /// Nothing is registered under `key`: it may still be a graph identifier or a wrapper
    /// (`Lazy`, `Provider`, `Optional`) of something registered.
    private func resolveUnregistered<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Service {
        if Service.self == GraphIdentifier.self, !key.takesArguments, key.name == nil,
            let graph = hierarchy.state.currentGraph()
        {
            return graph as! Service
        }
        if let wrapper = Service.self as? any InstanceWrapper.Type {
            if hierarchy.isInspecting, let wrapped = wrapper.wrappedKey(of: key) {
                hierarchy.state.noteRequest(wrapped, scope: scopeName(of: wrapped))
            }
            let wrapped = try wrapper.wrap(in: self, key: key, arguments: arguments, resolver: resolver)
            return wrapped as! Service
        }
        if hierarchy.isInspecting {
            hierarchy.state.noteRequest(key, scope: nil)
        }
        throw notRegistered(key)
    }

    /// The error for a missing `key`, with the path that needed it and the near misses.
    func notRegistered(_ key: ServiceKey) -> DIError {
        var candidates: [ServiceKey] = []
        var container: Container? = self
        while let current = container {
            for candidate in current.table.keys(of: key.serviceType) where candidate != key {
                if !candidates.contains(candidate) {
                    candidates.append(candidate)
                }
            }
            container = current.parent
        }
        let error = DIError.notRegistered(key: key, path: hierarchy.state.path, candidates: candidates)
        hierarchy.state.inspection?.note(error)
        return error
    }

    /// The slot registered under `key` here or in the nearest ancestor that has one.
    @usableFromInline
    func slot(for key: ServiceKey) -> Slot? {
        var container: Container? = self
        while let current = container {
            if let slot = current.table.slot(for: key) {
                return slot
            }
            container = current.parent
        }
        return nil
    }

    /// Whether `key` is registered here or in an ancestor, directly or forwarded.
    func isRegistered(_ key: ServiceKey) -> Bool {
        slot(for: key) != nil
    }

    /// The name of the scope `key` is registered in, or `nil` when it is not registered.
    func scopeName(of key: ServiceKey) -> String? {
        slot(for: key)?.entry.objectScopeName
    }

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

/// Finding a key in one container's table: the service type's position, then its hot slot (a single
/// registration) or its bucket. The table's storage is in `RegistrationTable.swift`.
extension RegistrationTable {
    /// What a lookup of a key in one container finds.
    @usableFromInline
    enum Lookup {
        /// Nothing under the key: look in the parent.
        case missing
        /// An entry registered under the key, and its type-erased resolve.
        case registered(AnyObject, ErasedResolve)
        /// A type forwarded to another registration under the key: only the general path serves it.
        case forwarded
    }

    @inlinable
    static func bits(of type: Any.Type) -> UInt {
        UInt(bitPattern: ObjectIdentifier(type))
    }

    /// The argument types of `key` and whether it takes exactly one argument, as one word (see
    /// ``ServiceKey/argumentsWord``).
    @inlinable @inline(__always)
    static func argumentsBits(of key: ServiceKey) -> UInt {
        key.argumentsWord
    }

    @inlinable
    static func position(of bits: UInt, mask: Int) -> Int {
        // Fibonacci hashing: the high bits of the product mix every bit of the pointer.
        Int(truncatingIfNeeded: (bits &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// The position of `type`, if it has one.
    @inlinable @inline(__always)
    func index(of type: Any.Type) -> Int? {
        let bits = Self.bits(of: type)
        let mask = capacity &- 1
        var index = Self.position(of: bits, mask: mask)
        while true {
            let candidate = types[index]
            if candidate == bits {
                return index
            }
            if candidate == 0 {
                return nil
            }
            index = (index &+ 1) & mask
        }
    }

    /// Looks up `key`: a service type with a single registration is answered from its hot slot without
    /// reference counting; others from their bucket.
    @inlinable @inline(__always)
    func lookup(_ key: ServiceKey) -> Lookup {
        guard let index = index(of: key.serviceType) else { return .missing }
        let slot = hot + index
        if let entry = slot.pointee.entry, slot.pointee.argumentsBits == Self.argumentsBits(of: key),
            slot.pointee.name == key.name
        {
            return .registered(entry, slot.pointee.resolveErased)
        }
        return lookupInBucket(at: index, key)
    }

    /// ``lookup(_:)`` for a service type with several registrations, or a miss on its single one.
    @usableFromInline
    func lookupInBucket(at index: Int, _ key: ServiceKey) -> Lookup {
        guard let slot = slot(at: index, for: key) else { return .missing }
        if slot.isForwarded {
            return .forwarded
        }
        return .registered(slot.entry as AnyObject, slot.entry.resolveErased)
    }

}
