import Foundation

/// The asynchronous resolve path: `resolveAsync`, `warmUp()`, async and main-actor factories.
///
/// It runs beside the synchronous path and reuses it: under the hierarchy's lock it looks the key up once;
/// a synchronous registration, or an async one whose instance exists, is served there by the synchronous
/// engine, inside the graph of the top-level `resolveAsync` (`AsyncResolution.graph`). Only a factory that
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
        if let instance: Service = existingSharedInstance(key) {
            return instance
        }
        if !AsyncResolution.isInFlight, let instance: Service = try resolveIfSynchronous(key, arguments, through: view)
        {
            return instance
        }
        return try await resolveAsyncInGeneral(key, arguments: arguments, confined: view == nil)
    }

    /// The `.container` instance registered directly under `key`, if it exists and nothing asks for
    /// attention (pending registrations, counting, inspection; with `unlessLazyFrontServices`, a `.lazy`
    /// ``Registry`` service anywhere in the hierarchy, which the property wrappers must look for first).
    @inlinable
    func existingSharedInstance<Service>(_ key: ServiceKey, unlessLazyFrontServices: Bool = false) -> Service? {
        hierarchy.withLock {
            guard !hierarchy.needsAttention, !(unlessLazyFrontServices && hierarchy.hasLazyFrontServices),
                case .registered(let object, _) = lookup(key)
            else { return nil }
            // Only a `.container`-kind scope ever sets `instance`.
            return (object as! ServiceEntry<Service>).instance
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
        return try await resolveAsTopLevel(key, arguments: arguments, confined: confined)
    }

    /// Resolves `key` as a top-level asynchronous call: its `.graph` instances are shared, and held, until
    /// it returns; a cycle found anywhere while serving it fails it, even one a factory tolerated.
    nonisolated(nonsending) func resolveAsTopLevel<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        confined: Bool
    ) async throws(DIError) -> Service {
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
        switch next {
        case .done(let instance):
            return instance.value
        case .create(let entry):
            return try await entry.value.createAsync(as: key, arguments: arguments, in: self, context: context)
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
            if entry.kind == .container, let instance = entry.instance {
                return .done(Handoff(instance))
            }
            try checkCycleAndDepth(of: entry, as: key, arguments: arguments, in: context)
            switch entry.kind {
            case .container:
                return try flight(for: entry, as: key, shared: FlightKey(entry: entry, arguments: nil), in: context)
            case .multiton:
                // One instance per argument values: one creation in flight per argument values too.
                let identity = try MultitonKey.of(arguments, key: key)
                if let kept = entry.instance(forArguments: identity) {
                    return .done(Handoff(kept))
                }
                return try flight(
                    for: entry,
                    as: key,
                    shared: FlightKey(entry: entry, arguments: identity),
                    in: context
                )
            case .transient, .graph, .weak, .custom:
                if let existing = try withEngine(in: context, { state in state.existingInstance(of: entry) }) {
                    return .done(Handoff(existing))
                }
                return .create(Handoff(entry))
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
    /// its graph, and with `path` (by default the keys `context` is creating) ahead of the engine's
    /// frames, in the paths of errors and in the depth limit. A cycle or runaway depth the engine finds
    /// fails `context`'s calls too, even if a factory tolerates it. The caller holds the lock.
    ///
    /// This is how the asynchronous path uses the engine's rules (reading and keeping instances, cycles
    /// and depth, `initCompleted`, completions, drops) rather than copies of them.
    func withEngine<T>(
        in context: AsyncResolution,
        path: [ServiceKey]? = nil,
        _ body: (ResolutionState) throws(DIError) -> T
    ) throws(DIError) -> T {
        let state = hierarchy.state
        do {
            return try state.inGraph(GraphIdentifier(record: context.graph)) { () throws(DIError) -> T in
                try state.afterPath(path ?? context.keys) { () throws(DIError) -> T in
                    try state.withCall { () throws(DIError) -> T in try body(state) }
                }
            }
        } catch {
            switch error {
            case .circularDependency, .depthLimitExceeded:
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
            try state.checkDepth(context.path.count, key: key)
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

    // MARK: - Single flight

    /// The creation in flight of `entry` (a `.container` registration, or a `.multiton` one for some
    /// argument values) under `shared`, to wait for, or a new one to start. Adds the wait edge from the
    /// creation `context` runs in, unless it closes a loop. The caller holds the lock.
    private func flight<Service>(
        for entry: ServiceEntry<Service>,
        as key: ServiceKey,
        shared: FlightKey,
        in context: AsyncResolution
    ) throws(DIError) -> AsyncPlan<Service> {
        if let flight = hierarchy.flights[shared] {
            if let waiter = context.creation {
                if let loop = flight.pathOfWaits(to: waiter) {
                    let cycle = DIError.circularDependency(path: [waiter.key] + loop.map(\.key) + [waiter.key])
                    context.recordFailure(cycle)
                    throw cycle
                }
                waiter.addWait(on: flight)
            }
            return .wait(flight)
        }
        if entry.cache == nil {
            entry.cache = InstanceCache()
        }
        // What dropping the scope changes (`discardInstance`, `takeForDisposal`): a creation that sees
        // another generation when it ends does not keep its instance.
        let flight = SingleFlight(key: key, shared: shared, generation: entry.cache?.generation ?? 0)
        hierarchy.flights[shared] = flight
        if let waiter = context.creation {
            waiter.addWait(on: flight)
        }
        return .start(flight, Handoff(entry))
    }

    /// Runs the creation `flight` of `entry`, as a call of its own inside `context`, and hands its outcome
    /// to every waiter. A cycle found while it ran fails it, even one a factory tolerated.
    nonisolated(nonsending) func runCreation<Service, Arguments>(
        of entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        flight: SingleFlight,
        from context: AsyncResolution
    ) async -> Result<Handoff<Any>, DIError> {
        let call = AsyncCall()
        let creation = context.entering(entry, as: key, arguments: arguments, creating: flight, call: call)
        var outcome: Result<Handoff<Any>, DIError>
        do throws(DIError) {
            let made = try await entry.create(
                as: key,
                arguments: arguments,
                in: self,
                context: creation,
                generation: flight.generation
            )
            outcome = .success(Handoff(made))
        } catch {
            outcome = .failure(error)
        }
        call.finish()
        if let failure = call.failure {
            outcome = .failure(failure)
        }
        hierarchy.withLock {
            if hierarchy.flights[flight.shared] === flight {
                hierarchy.flights[flight.shared] = nil
            }
        }
        flight.finish(outcome)
        return outcome
    }

    /// Waits for `flight`; a cancellation of the waiting task ends the wait at once.
    nonisolated(nonsending) private func wait(for flight: SingleFlight, key: ServiceKey, in context: AsyncResolution)
        async throws(DIError)
        -> Handoff<Any>
    {
        defer {
            if let waiter = context.creation {
                hierarchy.withLock { waiter.removeWait(on: flight) }
            }
        }
        do {
            return try await flight.wait()
        } catch let error as DIError {
            throw error
        } catch {
            throw .factoryFailed(key: key, path: context.keys, underlying: error)
        }
    }

    // MARK: - Warming up

    /// Creates every `.container`-scoped registration this container can see that takes no runtime
    /// arguments (and every `.multiton` one without arguments, which is the same), each once: the async
    /// ones first, then the main-actor ones, then the synchronous ones, each group in registration order.
    /// So a main-actor or synchronous factory may depend on an async one registered after it.
    ///
    /// Call it at launch, so that synchronous code can resolve services whose factories are asynchronous:
    ///
    /// ```swift
    /// container.registerAsync(Database.self) { _ in try await Database.open() }
    ///     .inObjectScope(.container)
    /// container.register(Repository.self) { r in Repository(database: r.resolve(Database.self)!) }
    ///     .inObjectScope(.container)
    /// try await container.warmUp()
    /// let repository = container.resolve(Repository.self)  // synchronous, and finds the database
    /// ```
    ///
    /// Called inside a factory during a `resolveAsync`, it is part of that resolution: a registration it
    /// would create that is being created on the way to it (the factory's own, or one waiting for it) is a
    /// cycle, and fails with ``DIError/circularDependency(path:)`` instead of waiting for itself.
    ///
    /// - Throws: The first ``DIError`` met; the instances created before it are kept.
    nonisolated(nonsending) public func warmUp() async throws(DIError) {
        let entries = hierarchy.withLock { () -> [(ServiceKey, Handoff<any AnyServiceEntry>)] in
            var seen: Set<ServiceKey> = []
            // By where the factory runs: async, main-actor, synchronous. Each group may depend on the ones
            // before it, whatever the registration order.
            var groups: [[(ServiceKey, Handoff<any AnyServiceEntry>, Date)]] = [[], [], []]
            var container: Container? = self
            while let current = container {
                current.table.forEach { slot in
                    guard seen.insert(slot.key).inserted, !slot.isForwarded, !slot.key.takesArguments,
                        slot.entry.keepsOneInstanceWithoutArguments
                    else { return }
                    let group =
                        switch slot.entry.isolation {
                        case .async?: 0
                        case .mainActor?: 1
                        case nil: 2
                        }
                    groups[group].append((slot.key, Handoff(slot.entry), slot.entry.registeredAt))
                }
                container = current.parent
            }
            return groups.flatMap { group in group.sorted { $0.2 < $1.2 }.map { ($0.0, $0.1) } }
        }
        // Inside a factory, in the task running it, warm-up is part of that resolution: what is being
        // created on the way to it is a cycle, as a resolve of it would be.
        if let context = AsyncResolution.inFlight {
            for (key, entry) in entries {
                _ = try await entry.value.resolveAsyncErased(as: key, arguments: (), in: self, context: context)
            }
            return
        }
        for (key, entry) in entries {
            _ = try await entry.value.resolveAsTopLevel(as: key, in: self)
        }
    }
}

/// How `resolveAsync` goes on after its lookup.
enum AsyncPlan<Service> {
    /// Resolved under the lock.
    case done(Handoff<Service>)
    /// An async factory to run in the caller's task.
    case create(Handoff<ServiceEntry<Service>>)
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
        let own = self.key
        let instance: Service = try await container.resolveAsync(own, arguments: arguments, in: context)
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
        context: AsyncResolution
    ) async throws(DIError) -> Service {
        try await create(
            as: key,
            arguments: arguments,
            in: container,
            context: context.entering(self, as: key, arguments: arguments, creating: nil, call: nil),
            generation: nil
        )
    }

    /// Runs the async factory with `context` (whose path ends with this entry), then, under the lock,
    /// stores the instance in its scope and runs the `initCompleted` actions.
    ///
    /// A `.container` or `.multiton` creation started at `generation` of the entry's scope keeps its
    /// instance only if the scope was not dropped meanwhile (`resetObjectScope`, `dispose()`,
    /// re-registration) and no cycle was found in its resolution; a dropped one is disposed of (its
    /// synchronous handlers) and handed to its waiters all the same.
    nonisolated(nonsending) func create<Arguments>(
        as key: ServiceKey,
        arguments: Arguments,
        in container: Container,
        context: AsyncResolution,
        generation: UInt64?
    ) async throws(DIError) -> Service {
        let factory = argumentFactory as! AsyncFactory<Service, Arguments>
        let resolver = AsyncGraphResolver(container: container, context: context)
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
        // The creation ends as a synchronous one does, in the engine.
        return try container.hierarchy.withLock { () throws(DIError) -> Service in
            try container.withEngine(in: context, path: outer) { (state) throws(DIError) -> Service in
                try state.adopt(
                    made,
                    of: self,
                    as: key,
                    arguments: arguments,
                    resolver: resolver,
                    dropped: generation.map { $0 != cache?.generation ?? 0 } ?? false,
                    tainted: context.hasFailed
                )
            }
        }
    }
}

// MARK: - The resolution in flight

/// One asynchronous resolution in flight: the graph of its top-level call, the registrations being created
/// on the way to it, the `.container` or `.multiton` creation it runs in, if any, and the calls it belongs
/// to. Passed explicitly: an async factory's resolver (``AsyncGraphResolver``) carries it, and only while
/// its call lasts; a task the factory starts does not inherit it.
@usableFromInline
final class AsyncResolution: Sendable {
    /// The `.graph` instances of the top-level call, shared by everything it resolves.
    let graph: GraphRecord
    /// The registrations being created, outermost first.
    let path: [Step]
    /// The creation in flight this resolution runs in, whose wait edges tell a deadlock.
    let creation: SingleFlight?
    /// The top-level call, then each creation in flight on the way here, innermost last: a cycle fails
    /// them all, and the innermost one ending ends this resolution.
    let calls: [AsyncCall]
    /// The task that runs this resolution: the only one that finds it as the task-local current one.
    let task: Int
    /// Started through a plain container: every factory runs in the caller's task and isolation.
    let isConfined: Bool

    /// One registration being created: its identity, the key it was asked for under, its arguments.
    struct Step: Sendable {
        let entry: ObjectIdentifier
        /// The identity of its factory, which the synchronous stand-in of an async factory compares.
        let factory: ObjectIdentifier?
        let key: ServiceKey
        let arguments: Handoff<Any>
    }

    /// The resolution whose factory this task runs, for what has no resolver to go through (`warmUp()`,
    /// a container a factory captured). Read through ``inFlight``: a task started inside a factory
    /// inherits it, and must not use it.
    @TaskLocal static var current: AsyncResolution?

    /// ``current``, if this task is the one running it and its call has not ended.
    static var inFlight: AsyncResolution? {
        guard let current, current.isLive, current.task == currentTask else { return nil }
        return current
    }

    /// Runs `factory` with `context` as the task-local ``current``, in the caller's isolation.
    ///
    /// `TaskLocal.withValue`'s operation runs in the isolation it captures: written in a
    /// `nonisolated(nonsending)` function, it would leave the caller's actor. Capturing `isolation` keeps
    /// it there, and a plain container's factory with its caller.
    static func running<Service, Arguments>(
        _ context: AsyncResolution,
        _ factory: nonisolated(nonsending) @Sendable (any Resolver, Arguments) async throws -> Service,
        _ resolver: any Resolver,
        _ arguments: Arguments,
        isolation: isolated (any Actor)? = #isolation
    ) async throws -> Service {
        try await $current.withValue(
            context,
            operation: {
                _ = isolation
                return try await factory(resolver, arguments)
            }
        )
    }

    /// Whether this task is inside an asynchronous resolution: a resolve made now joins it.
    @usableFromInline
    static var isInFlight: Bool {
        inFlight != nil
    }

    /// An identity of the task running now (0 outside any task).
    static var currentTask: Int {
        withUnsafeCurrentTask { $0?.hashValue ?? 0 }
    }

    init(graph: GraphRecord, path: [Step], creation: SingleFlight?, calls: [AsyncCall], isConfined: Bool) {
        self.graph = graph
        self.path = path
        self.creation = creation
        self.calls = calls
        self.task = Self.currentTask
        self.isConfined = isConfined
    }

    /// A new top-level resolution, in this task.
    static func topLevel(confined: Bool) -> AsyncResolution {
        AsyncResolution(graph: GraphRecord(), path: [], creation: nil, calls: [AsyncCall()], isConfined: confined)
    }

    /// The keys being created, outermost first.
    var keys: [ServiceKey] {
        path.map(\.key)
    }

    /// Whether the call this resolution serves is still in flight: once it has ended, a resolver kept
    /// from it starts calls of its own.
    var isLive: Bool {
        !(calls.last?.isFinished ?? true)
    }

    /// Whether a cycle (or runaway depth) was found while serving the innermost call this resolution
    /// belongs to: what it creates was built around it, and is not kept.
    var hasFailed: Bool {
        calls.last?.failure != nil
    }

    /// Records a cycle or runaway depth: it fails every call this resolution belongs to.
    func recordFailure(_ error: DIError) {
        for call in calls {
            call.fail(error)
        }
    }

    /// The resolution one level deeper, creating `entry`, in this task; `creating` is the creation in
    /// flight that starts with it, with `call`, if it does.
    func entering<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        creating flight: SingleFlight?,
        call: AsyncCall?
    ) -> AsyncResolution {
        AsyncResolution(
            graph: graph,
            path: path + [
                Step(
                    entry: ObjectIdentifier(entry),
                    factory: (entry.argumentFactory as? any IsolatedFactory)?.identity,
                    key: key,
                    arguments: Handoff(arguments)
                )
            ],
            creation: flight ?? creation,
            calls: call.map { calls + [$0] } ?? calls,
            isConfined: isConfined
        )
    }

    /// The keys of a cycle that the synchronous stand-in of the async factory `factory` closes when a
    /// synchronous factory resolved inside this resolution asks for it with `arguments`: from where it is
    /// on the path. `nil` if it is not on the path.
    func cycleKeys<Arguments>(closedBy factory: ObjectIdentifier, arguments: Arguments) -> [ServiceKey]? {
        guard isLive, let start = path.lastCreation(of: factory, with: arguments) else { return nil }
        return path[start...].map(\.key)
    }
}

extension AsyncResolution.Step: CreationInFlight {
    /// Arguments of another type are another registration's (an identity reused after re-registration).
    func isCreation<Arguments>(of registration: ObjectIdentifier, with arguments: Arguments) -> Bool {
        guard registration == entry || registration == factory, let earlier = self.arguments.value as? Arguments
        else { return false }
        return ArgumentComparison.equal(earlier, arguments)
    }
}

/// One call of the asynchronous path, as the synchronous engine's `withCall` is one: a top-level
/// `resolveAsync`, or a `.container`/`.multiton` creation in flight. A cycle found while serving it fails
/// it, whatever its factories tolerated; once ended, the resolutions in it are no longer in flight.
final class AsyncCall: Sendable {
    private struct State {
        var isFinished = false
        var failure: DIError?
    }

    private let state = LockedValue(State())

    var isFinished: Bool {
        state.withLock { $0.isFinished }
    }

    /// The first cycle or runaway depth found while serving this call.
    var failure: DIError? {
        state.withLock { $0.failure }
    }

    func fail(_ error: DIError) {
        state.withLock { state in
            if state.failure == nil {
                state.failure = error
            }
        }
    }

    func finish() {
        state.withLock { $0.isFinished = true }
    }
}

/// What a creation in flight is shared under: its registration, and for `.multiton` its arguments.
struct FlightKey: Hashable, Sendable {
    let entry: ObjectIdentifier
    let arguments: Handoff<AnyHashable>?

    init<Service>(entry: ServiceEntry<Service>, arguments: AnyHashable?) {
        self.entry = ObjectIdentifier(entry)
        self.arguments = arguments.map(Handoff.init)
    }

    static func == (lhs: FlightKey, rhs: FlightKey) -> Bool {
        lhs.entry == rhs.entry && lhs.arguments?.value == rhs.arguments?.value
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(entry)
        hasher.combine(arguments?.value)
    }
}

/// The creation of a `.container` async registration's instance (or a `.multiton` one's for some argument
/// values), which every concurrent `resolveAsync` of it waits for: the factory runs once, everyone gets the
/// same instance or the same error, and a failure caches nothing. The hierarchy keeps it
/// (`Hierarchy.flights`) while it runs.
final class SingleFlight: Sendable {
    let key: ServiceKey
    /// What it is shared under in `Hierarchy.flights`.
    let shared: FlightKey
    /// The generation of the entry's scope when the creation started: if it differs when the creation
    /// ends, the scope was dropped meanwhile, and the instance is not kept.
    let generation: UInt64

    private struct State {
        var outcome: Result<Handoff<Any>, DIError>?
        var waiters: [Int: CheckedContinuation<Handoff<Any>, any Error>] = [:]
        var cancelled: Set<Int> = []
        var lastWaiter = 0
        /// The creations this one's task waits for now; read and written under the hierarchy's lock.
        var waitingOn: [SingleFlight] = []
    }

    private let state = LockedValue(State())

    init(key: ServiceKey, shared: FlightKey, generation: UInt64) {
        self.key = key
        self.shared = shared
        self.generation = generation
    }

    /// Waits for the outcome; throws `CancellationError` as soon as the waiting task is cancelled.
    nonisolated(nonsending) func wait() async throws -> Handoff<Any> {
        let waiter = state.withLock { state in
            state.lastWaiter += 1
            return state.lastWaiter
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let ready: Result<Handoff<Any>, any Error>? = state.withLock { state in
                    if let outcome = state.outcome {
                        return outcome.mapError { $0 }
                    }
                    if state.cancelled.remove(waiter) != nil {
                        return .failure(CancellationError())
                    }
                    state.waiters[waiter] = continuation
                    return nil
                }
                if let ready {
                    continuation.resume(with: ready)
                }
            }
        } onCancel: {
            let continuation = state.withLock { state -> CheckedContinuation<Handoff<Any>, any Error>? in
                if let continuation = state.waiters.removeValue(forKey: waiter) {
                    return continuation
                }
                if state.outcome == nil {
                    state.cancelled.insert(waiter)
                }
                return nil
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// How many tasks wait for the outcome now.
    var waiterCount: Int {
        state.withLock { $0.waiters.count }
    }

    /// Ends the creation: every waiter, present and future, gets `outcome`.
    func finish(_ outcome: Result<Handoff<Any>, DIError>) {
        let waiters = state.withLock { state in
            state.outcome = outcome
            state.cancelled.removeAll()
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.resume(with: outcome.mapError { $0 })
        }
    }

    /// Records that this creation's task waits for `other`. The caller holds the hierarchy's lock.
    func addWait(on other: SingleFlight) {
        state.withLock { $0.waitingOn.append(other) }
    }

    /// Forgets one wait for `other`. The caller holds the hierarchy's lock.
    func removeWait(on other: SingleFlight) {
        state.withLock { state in
            if let index = state.waitingOn.firstIndex(where: { $0 === other }) {
                state.waitingOn.remove(at: index)
            }
        }
    }

    /// The creations from this one to `target` along wait edges, this one first and `target` left out, if
    /// `target` is reached (empty when this one is `target`): `target` waiting for this one would close a
    /// loop that never ends. The caller holds the hierarchy's lock.
    func pathOfWaits(to target: SingleFlight) -> [SingleFlight]? {
        if self === target {
            return []
        }
        var visited: Set<ObjectIdentifier> = [ObjectIdentifier(self)]
        var stack: [[SingleFlight]] = [[self]]
        while let path = stack.popLast() {
            let last = path[path.count - 1]
            for next in last.state.withLock({ $0.waitingOn }) {
                if next === target {
                    return path
                }
                if visited.insert(ObjectIdentifier(next)).inserted {
                    stack.append(path + [next])
                }
            }
        }
        return nil
    }
}

/// The resolver an async factory and the `initCompleted` actions of its instance are handed (and, inside
/// an asynchronous resolution, the synchronous factories it runs): it carries the resolution, so that its
/// resolves, synchronous or not, join the graph and the path of the call in flight. Once that call has
/// ended, a resolver kept from it resolves as its container does, each resolve a call of its own.
@usableFromInline
final class AsyncGraphResolver: Resolver, Sendable {
    let container: Handoff<Container>
    let context: AsyncResolution

    init(container: Container, context: AsyncResolution) {
        self.container = Handoff(container)
        self.context = context
    }

    @usableFromInline
    func resolveService<Service, Arguments>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: Arguments,
        argumentCount: Int
    ) throws(DIError) -> Service {
        let container = container.value
        let key = ServiceKey.of(Service.self, name: name, Arguments.self, argumentCount)
        let context = context
        return try container.hierarchy.withLock { () throws(DIError) -> Service in
            if context.isLive {
                return try container.resolveInGraph(key, arguments: arguments, in: context)
            }
            let resolver: any Resolver = context.isConfined ? container : SynchronizedResolver(container)
            return try container.resolve(key, arguments: arguments, resolver: resolver)
        }
    }

    /// Resolves `key` asynchronously in the resolution this resolver carries, or, once its call has
    /// ended, as a top-level call of its own.
    @usableFromInline
    nonisolated(nonsending) func resolveAsync<Service, Arguments>(_ key: ServiceKey, arguments: Arguments)
        async throws(DIError) -> Service
    {
        if context.isLive {
            return try await container.value.resolveAsync(key, arguments: arguments, in: context)
        }
        return try await container.value.resolveAsTopLevel(key, arguments: arguments, confined: context.isConfined)
    }
}

extension Disposal {
    /// The disposal of the instance a creation in flight will make, taken by `dispose()` or
    /// `disposeAsync()` while the creation runs: that creation will not keep its instance, and runs its
    /// synchronous handlers itself when it ends (`ServiceEntry.create`), so ``run`` has nothing to do.
    /// ``runAll`` waits for the creation, so that `disposeAsync()` returns only once it has ended, and then
    /// runs the asynchronous handlers on its instance. Numbered as the newest completion: it completes
    /// after everything the container holds now.
    init<Service>(awaiting flight: SingleFlight, key: ServiceKey, handlers: [DisposalHandler<Service>]) {
        self.key = key
        completion = .max
        run = { [] }
        runAll = {
            guard let made = try? await flight.wait().value as? Service else { return [] }
            var failures: [DIError] = []
            for case .async(let handler) in handlers {
                do {
                    try await handler(made)
                } catch {
                    failures.append(.factoryFailed(key: key, path: [], underlying: error))
                }
            }
            return failures
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
