import Foundation

/// The asynchronous resolve path: `resolveAsync`, `warmUp()`, async and main-actor factories.
///
/// It is the synchronous engine with suspension points, not a second engine: under the hierarchy's lock it
/// looks the key up once; a synchronous registration, or an async one whose instance exists, is served
/// there by the synchronous engine, inside the graph of the top-level `resolveAsync`
/// (`AsyncResolution.graph`), and every other step (reading an instance, the cycle and depth rules,
/// ending a creation) runs the engine's own code (`withEngine(in:path:_:)`). Only a factory that
/// must suspend runs outside the lock: an async factory in the caller's task and isolation, a shared
/// (`.container`, `.multiton`) creation once for every concurrent caller (`SingleFlight`), in the first
/// caller's task on a plain container and in a task of its own through a synchronized view; a main-actor
/// factory on the main actor. No lock is ever held across a suspension point.
///
/// The resolution in flight (`AsyncResolution`) is passed explicitly, carried by the resolver each factory
/// is handed (`AsyncGraphResolver`), and ends with its call (`AsyncCall`): a cycle through async factories
/// is the same registration reached again with equal arguments on its path, and a cycle between creations
/// in flight in different tasks is a loop in their wait edges (`SingleFlight.waitingOn`), found when the
/// edge that would close it is about to be added.
extension Container {
    /// Resolves `key` asynchronously: the entry point of every `resolveAsync` overload, handing `view` (or
    /// this container) to the synchronous factories a top-level call runs.
    ///
    /// Inlined, so that the common cases run code compiled for `Service`: an existing `.container`
    /// instance comes back under the lock, with no task-local read and nothing allocated; a top-level
    /// resolve of a registration that needs no suspension is one synchronous call through the resolve
    /// compiled at registration. Everything else continues in ``resolveAsyncInGeneral(_:arguments:)``.
    @inlinable
    nonisolated(nonsending) func resolveAsync<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        through view: SynchronizedResolver?
    ) async throws(DIError) -> Service {
        var isAsync = false
        if let instance: Service = existingSharedInstance(key, notingAsync: &isAsync) {
            return instance
        }
        // An async registration goes straight on asynchronously: a synchronous try would only build the
        // error that declines it.
        // A caller on an actor may arrive off it (see `executorBarrier()`): the synchronous factories run
        // after a hop to the caller's isolation. A nonisolated caller has nowhere to hop to, and skips the
        // async call (`async-transient` row, 10% fewer instructions). `#isolation` is read into a constant
        // first: the macro cannot stand in an `if` condition, and the unwrapped value would not count as
        // the caller's isolation for the compiler's region checks.
        if !isAsync, !AsyncResolution.isInFlight {
            let instance: Service?
            let isolation = #isolation
            if isolation == nil {
                instance = try resolveIfSynchronous(key, arguments, through: view)
            } else {
                instance = try await resolveIfSynchronous(key, arguments, through: view, isolation: #isolation)
            }
            if let instance {
                return instance
            }
        }
        return try await resolveAsyncInGeneral(key, arguments: arguments, confined: view == nil)
    }

    /// ``resolveIfSynchronous(_:_:through:)`` in the caller's isolation, which it first makes sure to be
    /// on: the synchronous factories it may run belong there (see ``executorBarrier()``).
    @inlinable
    func resolveIfSynchronous<Service, Arguments>(
        _ key: ServiceKey,
        _ arguments: Arguments,
        through view: SynchronizedResolver?,
        isolation: isolated (any Actor)?
    ) async throws(DIError) -> Service? {
        executorBarrier()
        return try resolveIfSynchronous(key, arguments, through: view)
    }

    /// The `.container` instance registered directly under `key`, if it exists and nothing asks for
    /// attention (counting, inspection; with `unlessLazyFrontServices`, a `.lazy`
    /// ``Registry`` service anywhere in the hierarchy, which the property wrappers must look for first).
    @inlinable
    func existingSharedInstance<Service>(_ key: ServiceKey, unlessLazyFrontServices: Bool = false) -> Service? {
        var isAsync = false
        return existingSharedInstance(key, unlessLazyFrontServices: unlessLazyFrontServices, notingAsync: &isAsync)
    }

    /// ``existingSharedInstance(_:unlessLazyFrontServices:)``, which also sets `isAsync` when it finds no
    /// instance of an async registration.
    @inlinable
    func existingSharedInstance<Service>(
        _ key: ServiceKey,
        unlessLazyFrontServices: Bool = false,
        notingAsync isAsync: inout Bool
    ) -> Service? {
        hierarchy.withLock {
            guard !hierarchy.needsAttention, !(unlessLazyFrontServices && hierarchy.hasLazyFrontServices),
                case .registered(let object, _) = lookup(key)
            else { return nil }
            let entry = object as! ServiceEntry<Service>
            // Only a `.container`-kind scope ever sets `instance`.
            if let instance = entry.instance {
                return instance
            }
            isAsync = entry.isolation == .async
            return nil
        }
    }

    /// Resolves `key` as one synchronous call, unless its registration is async, or main-actor while this
    /// code is not on the main actor: then `nil`. Tries the type-erased resolve first: the synchronous
    /// stand-in of an async or main-actor factory fails at once, and the call goes on asynchronously.
    @inlinable
    func resolveIfSynchronous<Service, Arguments>(
        _ key: ServiceKey,
        _ arguments: Arguments,
        through view: SynchronizedResolver?
    ) throws(DIError) -> Service? {
        let resolver = view.map(ResolverReference.init) ?? ResolverReference(self)
        let result: Service?
        do {
            result = try withUnsafeTemporaryAllocation(of: Service.self, capacity: 1) {
                (buffer) throws(DIError) -> Service? in
                let instance = buffer.baseAddress.unsafelyUnwrapped
                let served = try hierarchy.withLock { () throws(DIError) -> Bool in
                    try withUnsafePointer(to: arguments) { (arguments) throws(DIError) -> Bool in
                        try serve(
                            _ResolutionRequest(
                                key: key,
                                arguments: UnsafeRawPointer(arguments),
                                result: UnsafeMutableRawPointer(instance)
                            ),
                            handing: resolver
                        )
                    }
                }
                return served ? instance.move() : nil
            }
        } catch {
            if error.asksForIsolation(of: key) {
                return nil
            }
            throw error
        }
        if let result {
            return result
        }
        return try resolveIfSynchronousInGeneral(key, arguments, resolver: view ?? self)
    }

    /// ``resolveIfSynchronous(_:_:through:)`` for what the type-erased resolve declines: forwarded keys,
    /// wrappers, counted and inspected resolves.
    @usableFromInline
    func resolveIfSynchronousInGeneral<Service, Arguments>(
        _ key: ServiceKey,
        _ arguments: Arguments,
        resolver: any Resolver
    ) throws(DIError) -> Service? {
        try hierarchy.withLock { () throws(DIError) -> Service? in
            _ = prepareToResolve()
            let isolation: FactoryIsolation? =
                switch lookup(key) {
                case .registered(let object, _): (object as! ServiceEntry<Service>).isolation
                case .forwarded: slot(for: key)?.entry.isolation
                case .missing: nil
                }
            switch isolation {
            case .async?:
                return nil
            case .mainActor? where !MainActorCheck.isCurrent:
                return nil
            case .mainActor?, nil:
                let instance: Service = try resolve(key, arguments: arguments, resolver: resolver)
                return instance
            }
        }
    }

    /// Every asynchronous resolve the inlined ``resolveAsync(_:arguments:through:)`` does not finish: in
    /// the resolution in flight in this task, if any (a resolve through a container a factory captured),
    /// else as a top-level call of its own. `confined` says the call came through the plain container,
    /// not a synchronized view: its factories then all run in the caller's task.
    @usableFromInline
    nonisolated(nonsending) func resolveAsyncInGeneral<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        confined: Bool
    ) async throws(DIError) -> Service {
        if let context = AsyncResolution.inFlight {
            return try await resolveAsync(key, arguments: arguments, in: context)
        }
        if let flight = flightToJoin(key) {
            return try await wait(for: flight, key: key, in: nil).value as! Service
        }
        return try await resolveAsTopLevel(key, arguments: arguments, confined: confined)
    }

    /// Resolves `key` as a top-level asynchronous call: its `.graph` instances are shared, and held, until
    /// it returns; a cycle found anywhere while serving it fails it, even one a factory tolerated.
    nonisolated(nonsending) func resolveAsTopLevel<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        confined: Bool
    ) async throws(DIError) -> Service {
        try await resolveAsTopLevel(key, arguments: arguments, confined: confined, isolation: #isolation)
    }

    /// The top-level call, isolated to the caller's isolation, which it first makes sure to be on.
    ///
    /// Swift 6.3 drops the opening hop of an actor-isolated function whose first executor-bound step is
    /// a `nonisolated(nonsending)` call (in optimized builds, a user's actor method whose only statement
    /// is `resolveAsync`): such a caller reaches here off its actor, and a plain container's synchronous
    /// factories ran beside the actor's other work. Being isolated to `isolation`, with a synchronous call
    /// first (``executorBarrier()``, which keeps the hop), this function hops to it.
    private func resolveAsTopLevel<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        confined: Bool,
        isolation: isolated (any Actor)?
    ) async throws(DIError) -> Service {
        executorBarrier()
        let context = AsyncResolution.topLevel(confined: confined)
        let call = context.calls[0]
        context.graph.hold()
        defer {
            call.finish()
            context.graph.endHold()
        }
        let instance: Service
        do {
            instance = try await resolveAsync(key, arguments: arguments, in: context)
        } catch {
            throw call.failure ?? error
        }
        if let failure = call.failure {
            throw failure
        }
        return instance
    }

    /// Resolves `key` in the asynchronous resolution `context`.
    nonisolated(nonsending) func resolveAsync<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        in context: AsyncResolution
    ) async throws(DIError) -> Service {
        let next = try hierarchy.withLock { () throws(DIError) -> AsyncPlan<Service> in
            _ = prepareToResolve()
            let found = lookup(key)
            switch found {
            case .registered(let object, _):
                return try plan(object as! ServiceEntry<Service>, as: key, arguments: arguments, in: context)
            case .forwarded:
                if let slot = slot(for: key), slot.entry.isolation != nil {
                    return .forwarded(Handoff(slot.entry))
                }
            case .missing:
                break
            }
            return .done(Handoff(try resolveInGraph(key, arguments: arguments, in: context)))
        }
        return try await carryOut(next, as: key, arguments: arguments, in: context)
    }

    /// Carries out what ``plan(_:as:arguments:in:)`` decided for a resolve of `key`: suspends where the
    /// plan says, to run an async factory, wait for a creation in flight or hop to the main actor.
    nonisolated(nonsending) func carryOut<Service, Arguments>(
        _ next: AsyncPlan<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        in context: AsyncResolution
    ) async throws(DIError) -> Service {
        switch next {
        case .done(let instance):
            return instance.value
        case .create(let entry, let generation):
            return try await entry.value.createAsync(
                as: key,
                arguments: arguments,
                in: self,
                context: context,
                generation: generation
            )
        case .wait(let flight):
            return try await wait(for: flight, key: key, in: context).value as! Service
        case .start(let flight, let entry):
            if context.isConfined {
                // A plain container stays with its caller: the creation runs here, in the caller's task.
                let outcome = await runCreation(
                    of: entry.value,
                    as: key,
                    arguments: arguments,
                    flight: flight,
                    from: context
                )
                if let waiter = context.creation {
                    hierarchy.withLock { waiter.removeWait(on: flight) }
                }
                return try outcome.get().value as! Service
            }
            let work = Handoff((self, entry.value, arguments, context))
            // A task of its own: no waiter's cancellation reaches the factory.
            Task {
                let (container, entry, arguments, context) = work.value
                _ = await container.runCreation(of: entry, as: key, arguments: arguments, flight: flight, from: context)
            }
            return try await wait(for: flight, key: key, in: context).value as! Service
        case .onMainActor:
            return try await resolveOnMainActor(key, arguments: arguments, in: context)
        case .forwarded(let entry):
            let instance = try await entry.value.resolveAsyncErased(
                as: key,
                arguments: arguments,
                in: self,
                context: context
            )
            guard let service = instance.value as? Service else {
                throw .typeMismatch(key: key, actualType: type(of: instance.value))
            }
            return service
        }
    }

    /// Decides, under the lock, how to resolve `entry`, found under `key`: at once, by creating an
    /// instance, or by waiting for the creation in flight.
    func plan<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        in context: AsyncResolution
    ) throws(DIError) -> AsyncPlan<Service> {
        // The synchronous engine counts and records what it serves; this function only what it serves itself.
        switch entry.isolation {
        case nil:
            return .done(Handoff(try resolveInGraph(key, arguments: arguments, in: context)))
        case .mainActor:
            if MainActorCheck.isCurrent || entry.kind == .container && entry.instance != nil {
                return .done(Handoff(try resolveInGraph(key, arguments: arguments, in: context)))
            }
            return .onMainActor
        case .async:
            noteResolution(of: entry, as: key)
            if hierarchy.isInspecting || hierarchy.validatesScopes {
                // A captive dependency found here fails the calls of `context` (`withEngine`); this
                // resolve goes on, as a synchronous one does.
                _ = try? withEngine(in: context) { (_) in checkScope(of: entry, as: key) }
            }
            // The instance the scope holds first, as the synchronous engine reads it before any frame
            // (`ResolutionState.resolve`, then `resolveInCall`).
            if let instance = entry.instance {
                return .done(Handoff(instance))
            }
            let identity = entry.kind == .multiton ? try MultitonKey.of(arguments, key: key) : nil
            if let identity {
                if let kept = entry.instance(forArguments: identity) {
                    return .done(Handoff(kept))
                }
            } else if entry.kind != .transient,
                let existing = try withEngine(in: context, { state in state.existingInstance(of: entry) })
            {
                return .done(Handoff(existing))
            }
            try checkCycleAndDepth(of: entry, as: key, arguments: arguments, in: context)
            switch entry.kind {
            case .container, .multiton:
                // One creation in flight per registration, and for `.multiton` per argument values.
                let shared = FlightKey(entry: entry, arguments: identity)
                return try flight(for: entry, as: key, shared: shared, in: context)
            case .weak, .custom:
                // A scope that keeps instances: a creation it drops meanwhile keeps nothing (see `flight`).
                if entry.cache == nil {
                    entry.cache = InstanceCache()
                }
                return .create(Handoff(entry), generation: entry.cache?.generation)
            case .transient, .graph:
                return .create(Handoff(entry), generation: nil)
            }
        }
    }

    /// Resolves `key` with the synchronous engine, inside the resolution `context` (``withEngine(in:path:_:)``),
    /// handing the factories a resolver that joins `context`. The caller holds the lock.
    func resolveInGraph<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        in context: AsyncResolution
    ) throws(DIError) -> Service {
        try withEngine(in: context) { (_) throws(DIError) -> Service in
            try resolve(key, arguments: arguments, resolver: AsyncGraphResolver(container: self, context: context))
        }
    }

    /// Runs `body` on the synchronous engine, inside the asynchronous resolution `context`, as one call: in
    /// its graph, and with the registrations `context` is creating (all, or all but the last with
    /// `outsideLast`) ahead of the engine's frames, in the paths of errors, the depth limit and the
    /// scope check. A cycle, runaway depth or captive dependency the engine finds fails `context`'s calls
    /// too, even if a factory tolerates it. The caller holds the lock.
    ///
    /// This is how the asynchronous path uses the engine's rules (reading and keeping instances, cycles
    /// and depth, `initCompleted`, completions, drops) rather than copies of them.
    func withEngine<T>(
        in context: AsyncResolution,
        outsideLast: Bool = false,
        _ body: (ResolutionState) throws(DIError) -> T
    ) throws(DIError) -> T {
        let state = hierarchy.state
        let steps = outsideLast ? context.path.dropLast() : context.path[...]
        do {
            return try state.inGraph(GraphIdentifier(record: context.graph)) { () throws(DIError) -> T in
                try state.afterPath(
                    steps.map(\.key),
                    holders: steps.map(\.holderDepth),
                    // Only a record of the profile being recorded now is a parent.
                    inCreation: context.profile?.profiler === state.call.profiler ? context.profile?.record : nil
                ) { () throws(DIError) -> T in
                    try state.withCall { () throws(DIError) -> T in try body(state) }
                }
            }
        } catch {
            switch error {
            case .circularDependency, .depthLimitExceeded, .captiveDependency:
                context.recordFailure(error)
            default:
                break
            }
            throw error
        }
    }

    /// Throws, and fails `context`, if creating `entry` with `arguments` closes a cycle on the path of
    /// `context` (the engine's rule, ``CreationInFlight``) or nests deeper than the engine allows
    /// (`ResolutionState.checkDepth`). The caller holds the lock.
    func checkCycleAndDepth<Service, Arguments>(
        of entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        in context: AsyncResolution
    ) throws(DIError) {
        if let start = context.path.lastCreation(of: ObjectIdentifier(entry), with: arguments) {
            let cycle = DIError.circularDependency(path: context.path[start...].map(\.key) + [key])
            context.recordFailure(cycle)
            throw cycle
        }
        try withEngine(in: context) { (state) throws(DIError) in
            try state.checkDepth(context.path.count, key: key, stackDepth: 0)
        }
    }

    /// Runs the synchronous resolve of a main-actor registration on the main actor.
    nonisolated(nonsending) private func resolveOnMainActor<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        in context: AsyncResolution
    ) async throws(DIError) -> Service {
        let input = Handoff((self, arguments, context))
        let output = await MainActor.run { () -> Handoff<Result<Service, DIError>> in
            let (container, arguments, context) = input.value
            return Handoff(
                Result { () throws(DIError) -> Service in
                    try container.hierarchy.withLock { () throws(DIError) -> Service in
                        try container.resolveInGraph(key, arguments: arguments, in: context)
                    }
                }
            )
        }
        return try output.value.get()
    }
}

/// How `resolveAsync` goes on after its lookup.
enum AsyncPlan<Service> {
    /// Resolved under the lock.
    case done(Handoff<Service>)
    /// An async factory to run in the caller's task.
    case create(Handoff<ServiceEntry<Service>>, generation: UInt64?)
    /// A `.container` or `.multiton` creation in flight to wait for.
    case wait(SingleFlight)
    /// A `.container` or `.multiton` creation to start, registered in the hierarchy's flights.
    case start(SingleFlight, Handoff<ServiceEntry<Service>>)
    /// A main-actor factory to run on the main actor.
    case onMainActor
    /// A key forwarded to an async or main-actor registration of another service type.
    case forwarded(Handoff<any AnyServiceEntry>)
}

extension ServiceEntry {
    /// Resolves this entry asynchronously for a key forwarded to it, or for `warmUp()`.
    @usableFromInline
    nonisolated(nonsending) func resolveAsyncErased<Arguments>(
        as key: ServiceKey,
        arguments: Arguments,
        in container: Container,
        context: AsyncResolution
    ) async throws(DIError) -> Handoff<Any> {
        // Planned under the key asked for, as the synchronous engine resolves a forwarded key: that key is
        // the one on the path and in errors.
        let next = try container.hierarchy.withLock { () throws(DIError) -> AsyncPlan<Service> in
            _ = container.prepareToResolve()
            return try container.plan(self, as: key, arguments: arguments, in: context)
        }
        let instance: Service = try await container.carryOut(next, as: key, arguments: arguments, in: context)
        return Handoff(instance)
    }

    /// Resolves this entry, which takes no arguments, as a top-level asynchronous call, for `warmUp()`.
    @usableFromInline
    nonisolated(nonsending) func resolveAsTopLevel(as key: ServiceKey, in container: Container) async throws(DIError) {
        let _: Service = try await container.resolveAsTopLevel(self.key, arguments: (), confined: true)
    }

    /// Runs the async factory and stores the instance in the scope, for a resolve of `key`.
    nonisolated(nonsending) func createAsync<Arguments>(
        as key: ServiceKey,
        arguments: Arguments,
        in container: Container,
        context: AsyncResolution,
        generation: UInt64?
    ) async throws(DIError) -> Service {
        try await create(
            as: key,
            arguments: arguments,
            in: container,
            // Under the lock: the step reads the entry's scope, which `inObjectScope` changes under it.
            context: container.hierarchy.withLock {
                context.entering(
                    self,
                    as: key,
                    arguments: arguments,
                    creating: nil,
                    call: nil,
                    profiler: container.profiler
                )
            },
            generation: generation,
            flight: nil
        )
    }

    /// Runs the async factory with `context` (whose path ends with this entry), then, under the lock,
    /// stores the instance in its scope and runs the `initCompleted` actions.
    ///
    /// A `.container` or `.multiton` creation started at `generation` of the entry's scope keeps its
    /// instance only if the scope was not dropped meanwhile (`resetObjectScope`, `dispose()`,
    /// re-registration) and no cycle was found in its resolution; a dropped one is handed to its waiters
    /// all the same, and, if a call that disposes of instances took its `flight` (left its instance to it),
    /// disposed of (its synchronous handlers), whatever the scope has become meanwhile.
    nonisolated(nonsending) func create<Arguments>(
        as key: ServiceKey,
        arguments: Arguments,
        in container: Container,
        context: AsyncResolution,
        generation: UInt64?,
        flight: SingleFlight?
    ) async throws(DIError) -> Service {
        let factory = argumentFactory as! AsyncFactory<Service, Arguments>
        let resolver = AsyncGraphResolver(container: container, context: context)
        defer {
            if let profile = context.profile, let record = profile.record {
                profile.profiler.close(record)
            }
        }
        let outer = Array(context.keys.dropLast())
        let made: Service
        do {
            let input = Handoff(arguments)
            // Task-local only for what has no resolver to go through (`warmUp()`, a captured container),
            // and only in this task while the call lasts (`AsyncResolution.inFlight`).
            made = try await AsyncResolution.running(context, factory.run, resolver, input.value)
        } catch let error as DIError {
            throw error
        } catch {
            throw .factoryFailed(key: key, path: outer, underlying: error)
        }
        // The creation ends as a synchronous one does, in the engine. Its flight ends with it, under the
        // same lock: a disposal from now on finds the instance where the scope keeps it, or nowhere if the
        // scope was dropped, and never also the flight (it would be ended twice).
        return try container.hierarchy.withLock { () throws(DIError) -> Service in
            if let flight {
                container.endFlight(flight)
            }
            return try container.withEngine(in: context, outsideLast: true) { (state) throws(DIError) -> Service in
                try state.adopt(
                    made,
                    of: self,
                    as: key,
                    arguments: arguments,
                    resolver: resolver,
                    dropped: generation.map { $0 != cache?.generation ?? 0 } ?? false,
                    disposesIfDropped: flight?.isTakenForDisposal ?? false,
                    tainted: context.hasFailed
                )
            }
        }
    }
}

extension DIError {
    /// Whether this is the failure of a synchronous resolve of `key` itself, at top level, because its
    /// factory is async or must run on the main actor: the resolve goes on asynchronously.
    @usableFromInline
    func asksForIsolation(of key: ServiceKey) -> Bool {
        switch self {
        case .asyncResolutionRequired(let failed, let path), .mainActorRequired(let failed, let path):
            failed == key && path.isEmpty
        default:
            false
        }
    }
}

/// A synchronous call the optimizer cannot see through: placed first in a function isolated to an actor,
/// it keeps the function's opening hop to that actor.
///
/// Swift 6.3 drops the opening hop of an actor-isolated function whose first executor-bound step is a
/// `nonisolated(nonsending)` call (in optimized builds, a user's actor method whose only statement is
/// `resolveAsync`): such a caller reaches the engine off its actor. The engine's entry points that run
/// factories or handlers (`resolveIfSynchronous(_:_:through:isolation:)`,
/// `resolveAsTopLevel(_:arguments:confined:isolation:)`, `disposeAsync(isolation:)`, warm-up's
/// `create(_:on:)`) are therefore isolated to the caller's isolation and start with this call (or another
/// synchronous one), so that they hop there.
@usableFromInline
@inline(never)
func executorBarrier() {}
