import Foundation

/// The asynchronous resolve path: `resolveAsync`, `warmUp()`, async and main-actor factories.
///
/// It runs beside the synchronous path and reuses it: under the hierarchy's lock it looks the key up once;
/// a synchronous registration, or an async one whose instance exists, is served there by the synchronous
/// engine, inside the graph of the top-level `resolveAsync` (`AsyncResolution.graph`). Only a factory that
/// must suspend runs outside the lock: an async factory in the caller's task, or, for a `.container`
/// registration, in a creation task of its own that every concurrent caller waits for (`SingleFlight`);
/// a main-actor factory on the main actor. No lock is ever held across a suspension point.
///
/// The resolutions in flight are task-local (`AsyncResolution.current`), so the path survives `await`:
/// a cycle through async factories is the same registration reached again with equal arguments on it,
/// and a cycle between creations in flight in different tasks is a loop in their wait edges
/// (`SingleFlight.waitingOn`), found when the edge that would close it is about to be added.
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
        return try await resolveAsyncInGeneral(key, arguments: arguments)
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
    /// the resolution in flight in this task, if any, else in a new one.
    @usableFromInline
    nonisolated(nonsending) func resolveAsyncInGeneral<Service, Arguments>(_ key: ServiceKey, arguments: Arguments)
        async throws(DIError) -> Service
    {
        if let context = AsyncResolution.current {
            return try await resolveAsync(key, arguments: arguments, in: context)
        }
        // A top-level call: its `.graph` instances are shared until it returns.
        let context = AsyncResolution(graph: GraphRecord(), path: [], creation: nil)
        defer { context.graph.weakenAll() }
        return try await resolveAsync(key, arguments: arguments, in: context)
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
            try context.checkCycle(entry, as: key, arguments: arguments)
            if entry.kind == .container {
                return .wait(try flight(for: entry, as: key, arguments: arguments, in: context))
            }
            if let existing = try entry.existingInstance(in: context, container: self, key: key, arguments: arguments) {
                return .done(Handoff(existing))
            }
            return .create(Handoff(entry))
        }
    }

    /// Resolves `key` with the synchronous engine, inside the graph of `context`, handing the factories a
    /// synchronized view. The caller holds the lock.
    func resolveInGraph<Service, Arguments>(
        _ key: ServiceKey,
        arguments: Arguments,
        in context: AsyncResolution
    ) throws(DIError) -> Service {
        do {
            return try hierarchy.state.inGraph(GraphIdentifier(record: context.graph)) { () throws(DIError) in
                try resolve(key, arguments: arguments, resolver: SynchronizedResolver(self))
            }
        } catch {
            throw error.nested(in: context.keys)
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

    /// The creation in flight of `entry`, a `.container` async registration, or a new one. Adds the wait
    /// edge from the creation `context` runs in, unless it closes a loop. The caller holds the lock.
    private func flight<Service, Arguments>(
        for entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        in context: AsyncResolution
    ) throws(DIError) -> SingleFlight {
        let identity = ObjectIdentifier(entry)
        if let flight = hierarchy.flights[identity] {
            if let waiter = context.creation {
                if let loop = flight.pathOfWaits(to: waiter) {
                    throw .circularDependency(path: [waiter.key] + loop.map(\.key) + [waiter.key])
                }
                waiter.addWait(on: flight)
            }
            return flight
        }
        let flight = SingleFlight(key: key)
        hierarchy.flights[identity] = flight
        if let waiter = context.creation {
            waiter.addWait(on: flight)
        }
        let creation = context.entering(entry, as: key, arguments: arguments, creating: flight)
        let work = Handoff((self, entry, arguments))
        // A task of its own: no waiter's cancellation reaches the factory.
        Task {
            let (container, entry, arguments) = work.value
            let outcome: Result<Handoff<Any>, DIError>
            do throws(DIError) {
                let made = try await entry.create(as: key, arguments: arguments, in: container, context: creation)
                outcome = .success(Handoff(made))
            } catch {
                outcome = .failure(error)
            }
            container.hierarchy.withLock {
                if container.hierarchy.flights[identity] === flight {
                    container.hierarchy.flights[identity] = nil
                }
            }
            flight.finish(outcome)
        }
        return flight
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
    /// arguments, each once: the async and main-actor ones first, then the synchronous ones, each group in
    /// registration order.
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
    /// - Throws: The first ``DIError`` met; the instances created before it are kept.
    nonisolated(nonsending) public func warmUp() async throws(DIError) {
        let entries = hierarchy.withLock { () -> [(ServiceKey, Handoff<any AnyServiceEntry>)] in
            var seen: Set<ServiceKey> = []
            var isolated: [(ServiceKey, Handoff<any AnyServiceEntry>, Date)] = []
            var plain: [(ServiceKey, Handoff<any AnyServiceEntry>, Date)] = []
            var container: Container? = self
            while let current = container {
                current.table.forEach { slot in
                    guard seen.insert(slot.key).inserted, !slot.isForwarded, !slot.key.takesArguments,
                        slot.entry.keepsOneInstance
                    else { return }
                    let item = (slot.key, Handoff(slot.entry), slot.entry.registeredAt)
                    if slot.entry.isolation == nil {
                        plain.append(item)
                    } else {
                        isolated.append(item)
                    }
                }
                container = current.parent
            }
            let byRegistration = {
                (
                    a: (ServiceKey, Handoff<any AnyServiceEntry>, Date),
                    b: (ServiceKey, Handoff<any AnyServiceEntry>, Date)
                ) in
                a.2 < b.2
            }
            return (isolated.sorted(by: byRegistration) + plain.sorted(by: byRegistration)).map { ($0.0, $0.1) }
        }
        for (key, entry) in entries {
            let context = AsyncResolution(graph: GraphRecord(), path: [], creation: nil)
            defer { context.graph.weakenAll() }
            _ = try await entry.value.resolveAsyncErased(as: key, arguments: (), in: self, context: context)
        }
    }
}

/// How `resolveAsync` goes on after its lookup.
enum AsyncPlan<Service> {
    /// Resolved under the lock.
    case done(Handoff<Service>)
    /// An async factory to run in the caller's task.
    case create(Handoff<ServiceEntry<Service>>)
    /// A `.container` creation in flight to wait for.
    case wait(SingleFlight)
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
            context: context.entering(self, as: key, arguments: arguments, creating: nil)
        )
    }

    /// Runs the async factory with `context` (whose path ends with this entry) current, then, under the
    /// lock, stores the instance in its scope and runs the `initCompleted` actions.
    nonisolated(nonsending) func create<Arguments>(
        as key: ServiceKey,
        arguments: Arguments,
        in container: Container,
        context: AsyncResolution
    ) async throws(DIError) -> Service {
        let factory = argumentFactory as! AsyncFactory<Service, Arguments>
        let resolver = AsyncGraphResolver(container: container, graph: context.graph)
        let outer = Array(context.keys.dropLast())
        let made: Service
        do {
            let input = Handoff(arguments)
            made = try await AsyncResolution.$current.withValue(context) {
                try await factory.run(resolver, input.value)
            }
        } catch let error as DIError {
            throw error
        } catch {
            throw .factoryFailed(key: key, path: outer, underlying: error)
        }
        return try container.hierarchy.withLock { () throws(DIError) -> Service in
            // Stored before the `initCompleted` actions run, as a synchronous instance is, so that they
            // may resolve it; numbered in the order of completions once they all succeeded.
            try store(made, in: context, container: container, key: key, arguments: arguments)
            var failure: DIError?
            for action in initCompletedActions ?? [] where failure == nil {
                do {
                    try action(resolver, made)
                } catch let error as DIError {
                    failure = error
                } catch {
                    failure = .factoryFailed(key: key, path: outer, underlying: error)
                }
            }
            if let failure {
                discard(in: context, container: container, key: key, arguments: arguments)
                throw failure
            }
            noteCompletion(key: key, arguments: arguments, completion: container.hierarchy.state.nextCompletion())
            return made
        }
    }

    /// Records when the instance stored for `arguments` completed, for `dispose()`. The caller holds the
    /// lock.
    private func noteCompletion<Arguments>(key: ServiceKey, arguments: Arguments, completion: UInt64) {
        switch kind {
        case .container:
            cache?.completion = completion
        case .multiton:
            if let identity = try? MultitonKey.of(arguments, key: key), let kept = cache?.byArguments[identity] {
                cache?.byArguments[identity] = (kept.instance, completion)
            }
        case .transient, .graph, .weak, .custom:
            break
        }
    }

    /// Forgets an instance whose `initCompleted` action threw. The caller holds the lock.
    private func discard<Arguments>(
        in context: AsyncResolution,
        container: Container,
        key: ServiceKey,
        arguments: Arguments
    ) {
        if kind == .multiton {
            if let identity = try? MultitonKey.of(arguments, key: key) {
                cache?.byArguments[identity] = nil
            }
            return
        }
        _ = try? container.inGraph(of: context) { state in state.discardIncomplete(self) }
    }

    /// The instance this entry's scope holds for the asynchronous resolution `context`: the synchronous
    /// engine's own reading, inside `context`'s graph. The caller holds the lock.
    func existingInstance<Arguments>(
        in context: AsyncResolution,
        container: Container,
        key: ServiceKey,
        arguments: Arguments
    ) throws(DIError) -> Service? {
        if kind == .multiton {
            return cache?.byArguments[try MultitonKey.of(arguments, key: key)]?.instance
        }
        return try container.inGraph(of: context) { state in state.existingInstance(of: self) }
    }

    /// Keeps a new instance in this entry's scope, as the synchronous engine does, inside `context`'s
    /// graph. The caller holds the lock.
    func store<Arguments>(
        _ made: Service,
        in context: AsyncResolution,
        container: Container,
        key: ServiceKey,
        arguments: Arguments
    ) throws(DIError) {
        if kind == .multiton {
            if cache == nil {
                cache = InstanceCache()
            }
            cache?.byArguments[try MultitonKey.of(arguments, key: key)] = (made, 0)
            return
        }
        try container.inGraph(of: context) { state in state.store(made, in: self, tainted: false) }
    }
}

extension Container {
    /// Runs `body` with the synchronous engine's state inside the graph of `context`, as one call: the
    /// engine's own reading and keeping of instances then serve the async path. The caller holds the lock.
    func inGraph<T>(of context: AsyncResolution, _ body: (ResolutionState) -> T) throws(DIError) -> T {
        let state = hierarchy.state
        return try state.inGraph(GraphIdentifier(record: context.graph)) { () throws(DIError) -> T in
            try state.withCall { () throws(DIError) -> T in body(state) }
        }
    }
}

// MARK: - The resolution in flight

/// One asynchronous resolution in flight in a task: the graph of its top-level `resolveAsync`, the
/// registrations being created on the way to it, and the `.container` creation the task runs, if any.
/// Task-local, so it survives suspension points and follows the creation tasks it starts.
@usableFromInline
final class AsyncResolution: Sendable {
    /// The `.graph` instances of the top-level call, shared by everything it resolves.
    let graph: GraphRecord
    /// The registrations being created, outermost first.
    let path: [Step]
    /// The `.container` creation this task runs, whose wait edges tell a deadlock.
    let creation: SingleFlight?

    /// One registration being created: its identity, the key it was asked for under, its arguments.
    struct Step: Sendable {
        let entry: ObjectIdentifier
        let key: ServiceKey
        let arguments: Handoff<Any>
    }

    @TaskLocal static var current: AsyncResolution?

    /// Whether this task is inside an asynchronous resolution: a resolve made now joins it.
    @usableFromInline
    static var isInFlight: Bool {
        current != nil
    }

    init(graph: GraphRecord, path: [Step], creation: SingleFlight?) {
        self.graph = graph
        self.path = path
        self.creation = creation
    }

    /// The keys being created, outermost first.
    var keys: [ServiceKey] {
        path.map(\.key)
    }

    /// The resolution one level deeper, creating `entry`; `creating` is the `.container` creation that
    /// starts with it, if it does.
    func entering<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        creating flight: SingleFlight?
    ) -> AsyncResolution {
        AsyncResolution(
            graph: graph,
            path: path + [Step(entry: ObjectIdentifier(entry), key: key, arguments: Handoff(arguments))],
            creation: flight ?? creation
        )
    }

    /// Throws if creating `entry` with `arguments` is already on the path (a cycle), or if the path is as
    /// deep as the engine allows.
    func checkCycle<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments
    ) throws(DIError) {
        let identity = ObjectIdentifier(entry)
        if let index = path.firstIndex(where: {
            $0.entry == identity && ArgumentComparison.equal($0.arguments.value as! Arguments, arguments)
        }) {
            throw .circularDependency(path: path[index...].map(\.key) + [key])
        }
        if path.count >= ResolutionState.maximumDepth {
            throw .depthLimitExceeded(path: keys + [key], limit: path.count)
        }
    }
}

/// The creation of a `.container` async registration's instance, which every concurrent `resolveAsync`
/// of it waits for: the factory runs once, everyone gets the same instance or the same error, and a
/// failure caches nothing. The hierarchy keeps it (`Hierarchy.flights`) while it runs.
final class SingleFlight: Sendable {
    let key: ServiceKey

    private struct State {
        var outcome: Result<Handoff<Any>, DIError>?
        var waiters: [Int: CheckedContinuation<Handoff<Any>, any Error>] = [:]
        var cancelled: Set<Int> = []
        var lastWaiter = 0
        /// The creations this one's task waits for now; read and written under the hierarchy's lock.
        var waitingOn: [SingleFlight] = []
    }

    private let state = LockedValue(State())

    init(key: ServiceKey) {
        self.key = key
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

/// The resolver an async factory and the `initCompleted` actions of its instance are handed: a
/// synchronized view of the container whose resolves, synchronous or not, join the graph of the
/// top-level `resolveAsync` in flight.
final class AsyncGraphResolver: Resolver, Sendable {
    let container: Handoff<Container>
    let graph: GraphRecord

    init(container: Container, graph: GraphRecord) {
        self.container = Handoff(container)
        self.graph = graph
    }

    func resolveService<Service, Arguments>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: Arguments,
        argumentCount: Int
    ) throws(DIError) -> Service {
        let container = container.value
        let key = ServiceKey.of(Service.self, name: name, Arguments.self, argumentCount)
        let context =
            AsyncResolution.current ?? AsyncResolution(graph: graph, path: [], creation: nil)
        return try container.hierarchy.withLock { () throws(DIError) -> Service in
            try container.resolveInGraph(key, arguments: arguments, in: context)
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

    /// This error as reported from inside an asynchronous resolution whose path is `outer`: the keys in
    /// flight come before the path the synchronous engine recorded.
    func nested(in outer: [ServiceKey]) -> DIError {
        guard !outer.isEmpty else { return self }
        switch self {
        case .notRegistered(let key, let path, let candidates):
            return .notRegistered(key: key, path: outer + path, candidates: candidates)
        case .factoryFailed(let key, let path, let underlying):
            return .factoryFailed(key: key, path: outer + path, underlying: underlying)
        case .asyncResolutionRequired(let key, let path):
            return .asyncResolutionRequired(key: key, path: outer + path)
        case .mainActorRequired(let key, let path):
            return .mainActorRequired(key: key, path: outer + path)
        default:
            return self
        }
    }
}
