extension Container {
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
        if observation == .none || observation == .counting, case .registered(let object, _) = found {
            // `.registered` comes only from a slot registered directly under `key`, whose service type is
            // `Service`: the entry is a `ServiceEntry<Service>` (see ARCHITECTURE.md). Unchecked, the cast
            // needs no generic metadata lookup where this code is not specialized (`inject` row 9% and
            // `counted-typed` row 6% fewer instructions).
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

    /// What an observed resolve of `entry`, found under `key`, does before it resolves: it is counted or
    /// recorded (``noteResolution(of:as:)``) and checked for captive dependencies (``checkScope(of:as:)``).
    /// The typed path and the erased one (``serveObserved(_:handing:)``) both call it.
    func observe(_ entry: any AnyServiceEntry, as key: ServiceKey) {
        noteResolution(of: entry, as: key)
        checkScope(of: entry, as: key)
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
            observe(entry, as: key)
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
        observe(entry, as: key)
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

    /// Adds to `candidates` the keys of `serviceType`'s registrations in this container and its ancestors,
    /// other than `key`, this container's first. Recursive rather than a loop over a `var`: each container
    /// is passed borrowed, where the loop retained and released each one (`failed` row: 581 instructions
    /// against 672).
    private func collectCandidates(for key: ServiceKey, into candidates: inout [ServiceKey]) {
        table.forEachKey(of: key.serviceType) { candidate in
            if candidate != key, !candidates.contains(candidate) {
                candidates.append(candidate)
            }
        }
        parent?.collectCandidates(for: key, into: &candidates)
    }

    /// The error for a missing `key`, with the path that needed it and the near misses.
    func notRegistered(_ key: ServiceKey) -> DIError {
        var candidates: [ServiceKey] = []
        collectCandidates(for: key, into: &candidates)
        let state = hierarchy.state
        // A top-level miss (no frame) has an empty path: no mapping of the frames (the `failed` row).
        let path = state.frames.isEmpty ? state.outer : state.path
        let error = DIError.notRegistered(key: key, path: path, candidates: candidates)
        state.inspection?.note(error)
        return error
    }
}
