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
    @inlinable
    func create<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver,
        keep: Bool
    ) throws(DIError) -> Service {
        // The frame points to the arguments, to tell recursion from a cycle (`checkReentry`).
        try withUnsafePointer(to: arguments) { (arguments) throws(DIError) -> Service in
            try create(entry, as: key, argumentsAt: arguments, resolver: resolver, keep: keep)
        }
    }

    /// ``create(_:as:arguments:resolver:keep:)`` with the arguments in place.
    ///
    /// The entry is not touched once its frame is popped: a factory may replace its own registration, and
    /// what keeps the entry alive until the top-level call ends is `retired`, not the frame.
    @inlinable
    func create<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        argumentsAt arguments: UnsafePointer<Arguments>,
        resolver: any Resolver,
        keep: Bool
    ) throws(DIError) -> Service {
        if entry.activeFrames > 0 {
            try checkReentry(of: entry, as: key, arguments: arguments)
        }
        let index = try push(entry, as: key, arguments: UnsafeRawPointer(arguments), isUnique: !keep)
        entry.activeFrames &+= 1
        let made: Service
        do {
            userCodeWillRun()
            defer { userCodeDidRun() }
            made = try entry.make(resolver, arguments.pointee)
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
        }
        frames[index].produced = true
        if entry.hasInitCompletedActions,
            let failure = completeInitialization(of: made, in: entry, resolver: resolver, keep: keep, frame: index)
        {
            entry.activeFrames &-= 1
            throw abandon(failure, key: key)
        }
        entry.activeFrames &-= 1
        pop()
        return made
    }

    /// Runs the `initCompleted` actions of a new instance; returns the error one threw. A kept instance
    /// that did not complete (an action threw, or a cycle was found meanwhile) is discarded from its
    /// scope and from the graph, so that nothing half-built is reused.
    @usableFromInline
    func completeInitialization<Service>(
        of made: Service,
        in entry: ServiceEntry<Service>,
        resolver: any Resolver,
        keep: Bool,
        frame index: Int
    ) -> (any Error)? {
        var thrown: (any Error)?
        for action in entry.initCompletedActions where thrown == nil {
            userCodeWillRun()
            defer { userCodeDidRun() }
            do {
                try action(resolver, made)
            } catch {
                thrown = error
            }
        }
        if keep, thrown != nil || frames[index].tainted {
            discardIncomplete(entry)
        }
        return thrown
    }

    /// Forgets the instance `entry` has just stored, in its scope and in the current graph.
    @usableFromInline
    func discardIncomplete<Service>(_ entry: ServiceEntry<Service>) {
        if let restored {
            restored.forget(entry.graphRecordKey)
        } else if entry.graphEpoch == epoch {
            entry.graphInstance = nil
        }
        if let inspection {
            // Inspecting: the instance went to the sandbox, not to the scope.
            inspection.sandbox[ObjectIdentifier(entry)] = nil
            return
        }
        entry.discardInstance()
        if entry.kind == .custom, let graph = currentGraph() {
            entry.customStorage().setInstance(nil, inGraph: graph)
        }
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
    /// rest of the failing call. `.graph` and `.weak` share class instances only: a value type's factory
    /// runs on every resolve, as in Swinject.
    @inlinable
    func store<Service>(_ instance: Service, in entry: ServiceEntry<Service>, tainted: Bool) {
        if inspection == nil, restored == nil {
            switch entry.kind {
            case .transient:
                return
            case .container:
                if !tainted, entry.sharesValues || isReference(instance) {
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

    /// Whether `instance` is a class instance, which a graph may share.
    @inlinable
    func isReference<Service>(_ instance: Service) -> Bool {
        Service.self is AnyObject.Type || type(of: instance as Any) is AnyClass
    }

    /// Keeps a class instance for the rest of the graph; values are not shared.
    @inlinable
    func storeInLiveGraph<Service>(_ instance: Service, in entry: ServiceEntry<Service>) {
        if frames.count == 1, !entry.hasInitCompletedActions, liveRecord == nil {
            // The top-level instance, with nothing left to run in its graph and no one holding the
            // graph's identity: no later lookup can ask for it.
            return
        }
        guard isReference(instance) else { return }
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
            let keepsValues = entry.kind != .weak && entry.sharesValues
            if !tainted, keepsValues || isReference(instance) {
                inspection.sandbox[ObjectIdentifier(entry)] = instance
            }
            storeInGraph(instance, in: entry)
            return
        }
        switch entry.kind {
        case .transient:
            return
        case .container:
            if !tainted, entry.sharesValues || isReference(instance) {
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
            return restored.instance(for: entry.graphRecordKey) as? Service
        }
        return entry.graphEpoch == epoch ? entry.graphInstance : nil
    }

    /// Keeps a class instance in the graph being resolved; values are not shared.
    private func storeInGraph<Service>(_ instance: Service, in entry: ServiceEntry<Service>) {
        guard let restored else {
            storeInLiveGraph(instance, in: entry)
            return
        }
        if isReference(instance) {
            restored.store(instance, for: entry.graphRecordKey)
        }
    }
}
