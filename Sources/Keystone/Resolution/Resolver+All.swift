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
    @inlinable
    public func resolveAll<Service>(_ serviceType: Service.Type) -> [Service] {
        guard let engine = _engine else { return [] }
        return (try? engine.resolveAll(resolver: self, stoppingAtFailure: false, makeArray: Container.array)) ?? []
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
    @inlinable
    public func resolveAllThrows<Service>(_ serviceType: Service.Type) throws(DIError) -> [Service] {
        guard let engine = _engine else { return [] }
        return try engine.resolveAll(resolver: self, stoppingAtFailure: true, makeArray: Container.array)
    }
}

extension Container {
    /// Makes the array of ``resolveAll(resolver:stoppingAtFailure:makeArray:)``: room for `capacity`
    /// instances, of which `fill` initializes the first ones and returns how many.
    ///
    /// Inlined into the caller, which knows `Service`: made in the engine, which does not, the array
    /// looked up three generic metadata on every call (row `resolve-all`, about 1,000 instructions).
    @inlinable
    static func array<Service>(capacity: Int, fill: (UnsafeMutablePointer<Service>) -> Int) -> [Service] {
        [Service](unsafeUninitializedCapacity: capacity) { (buffer, count) in
            count = fill(buffer.baseAddress.unsafelyUnwrapped)
        }
    }

    /// Resolves every argument-free registration of `Service` visible from this container, in one call,
    /// under the hierarchy's lock, handing `resolver` to the factories; `makeArray` is ``array(capacity:fill:)``.
    ///
    /// Not specialized for `Service` (the entries' compiled resolves are): each instance is written
    /// straight into the array's storage, so that no `Service?` or array growth is handled generically.
    @usableFromInline
    func resolveAll<Service>(
        resolver: any Resolver,
        stoppingAtFailure: Bool,
        makeArray: (_ capacity: Int, _ fill: (UnsafeMutablePointer<Service>) -> Int) -> [Service]
    ) throws(DIError) -> [Service] {
        // `withLock` returns nothing: returning `[Service]` from it looked up that type's metadata on
        // every call.
        var instances: [Service] = []
        try hierarchy.withLock { () throws(DIError) in
            let slots = allSlots(of: Service.self)
            guard !slots.isEmpty else { return }
            let reference = resolverReference(for: resolver)
            let unchanged = registrationsSignature()
            var failure: DIError?
            instances = makeArray(slots.count) { (storage) in
                var count = 0
                do throws(DIError) {
                    try withCall(for: resolver) { () throws(DIError) in
                        // Each slot is read in place: a copy of it retained and released its entry and key
                        // (`resolve-all` row: 16,215 instructions against 16,455).
                        try slots.withUnsafeBufferPointer { (slots) throws(DIError) in
                            for slot in slots.indices {
                                do throws(DIError) {
                                    try resolveOne(
                                        slots.baseAddress.unsafelyUnwrapped + slot,
                                        // A factory that registered meanwhile may have changed what a key
                                        // leads to.
                                        isCurrent: registrationsSignature() == unchanged,
                                        reference: reference,
                                        resolver: resolver,
                                        into: storage + count
                                    )
                                    count += 1
                                } catch {
                                    if stoppingAtFailure {
                                        throw error
                                    }
                                    Log.failure(error)
                                }
                            }
                        }
                    }
                } catch {
                    // A cycle found under one of them fails the call as a whole; the others stand.
                    if stoppingAtFailure {
                        failure = error
                    } else {
                        Log.failure(error)
                    }
                }
                return count
            }
            if let failure {
                throw failure
            }
        }
        return instances
    }

    /// Runs `body` as one call of the engine: inside the asynchronous resolution that `resolver` carries,
    /// when it is the resolver of an async factory whose call is in flight (the elements then join that
    /// resolution's graph and path, as the factory's synchronous resolves do), else as a call of its own.
    /// The caller holds the lock.
    private func withCall(for resolver: any Resolver, _ body: () throws(DIError) -> Void) throws(DIError) {
        if type(of: resolver) == AsyncGraphResolver.self, let graphResolver = resolver as? AsyncGraphResolver,
            graphResolver.context.isLive
        {
            try withEngine(in: graphResolver.context) { (_) throws(DIError) in try body() }
            return
        }
        try hierarchy.state.withCall(body)
    }

    /// How factories hand `resolver` on when it is this container or a synchronized view (the erased
    /// resolve needs one of those); `nil` for any other resolver, which the typed path serves.
    ///
    /// Both classes are final: their types are compared first, and only a cast that succeeds runs (a
    /// failing cast from `any Resolver` to a class is the runtime's slow path).
    private func resolverReference(for resolver: any Resolver) -> ResolverReference? {
        let type = type(of: resolver)
        if type == SynchronizedResolver.self, let view = resolver as? SynchronizedResolver {
            return ResolverReference(view)
        }
        if type == Container.self, resolver._engine === self {
            return ResolverReference(self)
        }
        return nil
    }

    /// Resolves the key of `slot`, of `Service` without arguments, inside the call in flight, into
    /// `result` (uninitialized; initialized unless this throws): through the resolve compiled for its
    /// entry at registration when the key still leads to `slot` (`isCurrent`) and is registered directly
    /// (this function is not specialized for `Service`, that closure is), else on the typed path, which
    /// looks it up again. The caller holds the lock.
    private func resolveOne<Service>(
        _ slot: UnsafePointer<Slot>,
        isCurrent: Bool,
        reference: ResolverReference?,
        resolver: any Resolver,
        into result: UnsafeMutablePointer<Service>
    ) throws(DIError) {
        if let reference, isCurrent, !slot.pointee.isForwarded, !hierarchy.needsAttention {
            try withUnsafePointer(to: ()) { (arguments) throws(DIError) in
                try slot.pointee.entry.resolveErased(
                    slot.pointee.entry as AnyObject,
                    self,
                    slot.pointee.key,
                    UnsafeRawPointer(arguments),
                    reference,
                    UnsafeMutableRawPointer(result)
                )
            }
            return
        }
        result.initialize(to: try resolve(slot.pointee.key, arguments: (), resolver: resolver))
    }

    /// The slots of `serviceType` without arguments that this container and its ancestors hold, every
    /// name, in registration order, ancestors first; a container's slot replaces its ancestor's under the
    /// same name, in its place. The caller holds the lock.
    private func allSlots(of serviceType: Any.Type) -> [Slot] {
        var slots: [Slot] = []
        var positions: [String?: Int] = [:]
        collectSlots(of: serviceType, into: &slots, positions: &positions)
        return slots
    }

    /// Adds the slots of `serviceType` that this container holds to `slots`, after its ancestors' (walked
    /// by recursion rather than gathered in an array: row `resolve-all`, one allocation fewer per call).
    private func collectSlots(of serviceType: Any.Type, into slots: inout [Slot], positions: inout [String?: Int]) {
        if let parent {
            parent.collectSlots(of: serviceType, into: &slots, positions: &positions)
        }
        let found = table.slots(of: serviceType)
        if found.isEmpty {
            return
        }
        if slots.isEmpty, found.allSatisfy({ !$0.key.takesArguments }) {
            // The first table with registrations: its names are distinct; named positions are needed
            // only once an ancestor's slots are there to be replaced.
            slots = found
            return
        }
        if positions.isEmpty {
            for (position, slot) in slots.enumerated() {
                positions[slot.key.name] = position
            }
        }
        for slot in found where !slot.key.takesArguments {
            if let position = positions[slot.key.name] {
                slots[position] = slot
            } else {
                positions[slot.key.name] = slots.count
                slots.append(slot)
            }
        }
    }

    /// What changes whenever a registration is added to, replaced in or removed from the table of this
    /// container or of an ancestor during the call in flight: their counts, and the entries retired
    /// meanwhile.
    private func registrationsSignature() -> (registrations: Int, retired: Int) {
        var registrations = 0
        var container: Container? = self
        while let current = container {
            registrations += current.table.count
            container = current.parent
        }
        return (registrations, hierarchy.state.call.retired.count)
    }
}
