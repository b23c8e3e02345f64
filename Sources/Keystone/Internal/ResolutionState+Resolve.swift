/// The generic part of the resolve path: reading and storing an entry's typed instance and calling its
/// factory. The common cases are `@inlinable`, so that they specialize for the service type in the
/// caller's module: no dynamic cast, no metadata lookup. Weak and custom scopes, restored graphs and
/// inspection take the general path below, which is generic but not inlined.
extension ResolutionState {
    /// Runs `body` as one call: the first call in flight opens a graph and the last one closes it.
    /// A cycle found anywhere during the top-level call fails it, whatever `body` returned.
    @inlinable
    func withCall<T>(_ body: () throws(DIError) -> T) throws(DIError) -> T {
        enterCall()
        let result: T
        do {
            result = try body()
        } catch {
            throw leaveCall() ?? error
        }
        if let failure = leaveCall() {
            throw failure
        }
        return result
    }

    /// Resolves `entry`, found under `key`: reuses the instance its scope holds, or creates one.
    @inlinable
    func resolve<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Service {
        if let existing = existingInstance(of: entry) {
            return existing
        }
        return try create(entry, as: key, arguments: arguments, resolver: resolver, keep: true)
    }

    /// Creates a new instance of `entry` whatever its scope holds, and does not keep it: what a front
    /// offers as a "unique" resolve. Its dependencies are resolved as usual.
    @inlinable
    func resolveNew<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Service {
        try create(entry, as: key, arguments: arguments, resolver: resolver, keep: false)
    }

    /// Runs the factory and the `initCompleted` actions of `entry` in a frame of their own; stores the
    /// instance in its scope if `keep`.
    ///
    /// The frame holds the entry strongly, and the entry is not touched once the frame is popped: a
    /// factory may replace its own registration, and the table's reference was the last one.
    @inlinable
    func create<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver,
        keep: Bool
    ) throws(DIError) -> Service {
        let index = try push(entry, as: key, reentering: entry.activeFrames > 0)
        entry.activeFrames &+= 1
        let made: Service
        do {
            made = try entry.make(resolver, arguments)
        } catch {
            entry.activeFrames &-= 1
            throw abandon(error, key: key)
        }
        if keep {
            if frames[index].reentered, let existing = existingInstance(of: entry) {
                // The factory resolved this entry again, and that inner resolve stored its instance first.
                entry.activeFrames &-= 1
                pop()
                return existing
            }
            store(made, in: entry, tainted: frames[index].tainted)
            frames[index].produced = true
        }
        if entry.hasInitCompletedActions,
            let failure = completeInitialization(of: made, in: entry, as: key, resolver: resolver, keep: keep, frame: index)
        {
            entry.activeFrames &-= 1
            throw abandon(failure, key: key)
        }
        entry.activeFrames &-= 1
        pop()
        return made
    }

    /// Runs the `initCompleted` actions of a new instance; returns the error one threw, after discarding
    /// the kept instance.
    @usableFromInline
    func completeInitialization<Service>(
        of made: Service,
        in entry: ServiceEntry<Service>,
        as key: ServiceKey,
        resolver: any Resolver,
        keep: Bool,
        frame index: Int
    ) -> (any Error)? {
        for action in entry.initCompletedActions {
            do {
                try action(resolver, made)
            } catch {
                if keep {
                    entry.discardInstance()
                }
                return error
            }
        }
        if keep, frames[index].tainted {
            // A cycle was found while `initCompleted` ran: the stored instance is incomplete.
            entry.discardInstance()
        }
        return nil
    }

    // MARK: - Instances

    /// The instance the scope of `entry` holds for the resolution in flight, if any.
    @inlinable
    func existingInstance<Service>(of entry: ServiceEntry<Service>) -> Service? {
        if inspection == nil, restored == nil {
            switch entry.kind {
            case .transient:
                return nil
            case .container:
                return entry.instance
            case .graph:
                return entry.graphEpoch == epoch ? entry.graphInstance : nil
            case .weak, .custom:
                break
            }
        }
        return existingInstanceInGeneral(of: entry)
    }

    /// Stores a new instance of `entry` in its scope; a tainted one (built around a cycle) only for the
    /// rest of the failing call.
    @inlinable
    func store<Service>(_ instance: Service, in entry: ServiceEntry<Service>, tainted: Bool) {
        if inspection == nil, restored == nil {
            switch entry.kind {
            case .transient:
                return
            case .container:
                if !tainted, entry.sharesValues || type(of: instance as Any) is AnyClass {
                    entry.instance = instance
                }
                return
            case .graph:
                storeInLiveGraph(instance, in: entry)
                return
            case .weak, .custom:
                break
            }
        }
        storeInGeneral(instance, in: entry, tainted: tainted)
    }

    @inlinable
    func storeInLiveGraph<Service>(_ instance: Service, in entry: ServiceEntry<Service>) {
        if frames.count == 1, !entry.hasInitCompletedActions, liveRecord == nil {
            // The top-level instance, with nothing left to run in its graph and no one holding the
            // graph's identity: no later lookup can ask for it.
            return
        }
        entry.graphInstance = instance
        entry.graphEpoch = epoch
        touch(entry)
    }

    @usableFromInline
    func existingInstanceInGeneral<Service>(of entry: ServiceEntry<Service>) -> Service? {
        if let inspection, entry.kind != .transient, entry.kind != .graph {
            // Inspecting: the real cached instances are neither read nor replaced.
            return inspection.sandbox[ObjectIdentifier(entry)] as? Service ?? graphInstance(of: entry)
        }
        switch entry.kind {
        case .transient:
            return nil
        case .container:
            return entry.instance
        case .graph:
            return graphInstance(of: entry)
        case .weak:
            if let object = entry.weakObject, let instance = object as? Service {
                return instance
            }
            return graphInstance(of: entry)
        case .custom:
            guard let graph = currentGraph() else { return nil }
            return entry.customStorage().instance(inGraph: graph) as? Service
        }
    }

    @usableFromInline
    func storeInGeneral<Service>(_ instance: Service, in entry: ServiceEntry<Service>, tainted: Bool) {
        if let inspection, entry.kind != .transient, entry.kind != .graph {
            if !tainted {
                inspection.sandbox[ObjectIdentifier(entry)] = instance
            }
            storeInGraph(instance, in: entry)
            return
        }
        switch entry.kind {
        case .transient:
            return
        case .container:
            if !tainted, entry.sharesValues || type(of: instance as Any) is AnyClass {
                entry.instance = instance
            }
        case .graph:
            storeInGraph(instance, in: entry)
        case .weak:
            if !tainted {
                entry.weakObject = WeakStorage.referenceIfClass(instance)
            }
            storeInGraph(instance, in: entry)
        case .custom:
            if !tainted, let graph = currentGraph() {
                entry.customStorage().setInstance(instance, inGraph: graph)
                touch(entry)
            }
        }
    }

    private func graphInstance<Service>(of entry: ServiceEntry<Service>) -> Service? {
        if let restored {
            return restored.instance(for: ObjectIdentifier(entry)) as? Service
        }
        return entry.graphEpoch == epoch ? entry.graphInstance : nil
    }

    private func storeInGraph<Service>(_ instance: Service, in entry: ServiceEntry<Service>) {
        if let restored {
            restored.store(instance, for: ObjectIdentifier(entry))
            return
        }
        storeInLiveGraph(instance, in: entry)
    }
}
