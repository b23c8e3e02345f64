/// Creations shared by concurrent asynchronous resolves: a `.container` async registration's instance,
/// or a `.multiton` one's for some argument values, is created once (`SingleFlight`) and every other
/// caller waits for it; the wait edges between creations in flight tell a deadlock before it happens.
extension Container {
    /// The creation in flight of `entry` (a `.container` registration, or a `.multiton` one for some
    /// argument values) under `shared`, to wait for, or a new one to start. Adds the wait edge from the
    /// creation `context` runs in, unless it closes a loop. The caller holds the lock.
    func flight<Service>(
        for entry: ServiceEntry<Service>,
        as key: ServiceKey,
        shared: FlightKey,
        in context: AsyncResolution
    ) throws(DIError) -> AsyncPlan<Service> {
        if let flight = flightInProgress(under: shared, generation: entry.cache?.generation ?? 0) {
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

    /// The creation in flight that a top-level resolve of `key` has only to wait for, as ``flight(for:as:shared:in:)``
    /// would find it: a `.container` async registration whose instance is being created for its scope's
    /// current generation. A waiter at top level creates nothing, so it needs no resolution of its own (no
    /// graph, path or call). `nil` when the resolve must be planned: counted, inspected or validated,
    /// forwarded, another kind of registration, or nothing in flight.
    func flightToJoin(_ key: ServiceKey) -> SingleFlight? {
        hierarchy.withLock {
            guard !hierarchy.needsAttention, !hierarchy.flights.isEmpty, let slot = slot(for: key), !slot.isForwarded
            else { return nil }
            guard let generation = slot.entry.generationOfSharedCreation else { return nil }
            return flightInProgress(under: FlightKey(entry: slot.entry), generation: generation)
        }
    }

    /// The creation in flight under `shared` that a resolve joins, if it was started in the scope's
    /// current `generation`: one started before the scope was dropped keeps nothing, and a resolve made
    /// since starts anew. The caller holds the lock.
    private func flightInProgress(under shared: FlightKey, generation: UInt64) -> SingleFlight? {
        guard let flight = hierarchy.flights[shared], flight.generation == generation else { return nil }
        return flight
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
        // Under the lock: the step reads the entry's scope, which `inObjectScope` changes under it.
        let creation = hierarchy.withLock {
            context.entering(
                entry,
                as: key,
                arguments: arguments,
                creating: flight,
                call: call,
                profiler: profiler
            )
        }
        var outcome: Result<Handoff<Any>, DIError>
        do throws(DIError) {
            let made = try await entry.create(
                as: key,
                arguments: arguments,
                in: self,
                context: creation,
                generation: flight.generation,
                flight: flight
            )
            outcome = .success(Handoff(made))
        } catch {
            outcome = .failure(error)
        }
        call.finish()
        if let failure = call.failure {
            outcome = .failure(failure)
        }
        // A creation that failed before its instance was adopted (which ends its flight) ends it here.
        hierarchy.withLock { endFlight(flight) }
        flight.finish(outcome)
        return outcome
    }

    /// Takes `flight` out of the creations in flight, if a later one has not replaced it: resolves no
    /// longer join it, and disposals no longer take it. Its waiters still get its outcome. The caller holds
    /// the lock.
    func endFlight(_ flight: SingleFlight) {
        if hierarchy.flights[flight.shared] === flight {
            hierarchy.flights[flight.shared] = nil
        }
    }

    /// Waits for `flight`, from the resolution `context`, or at top level with none; a cancellation of the
    /// waiting task ends the wait at once.
    nonisolated(nonsending) func wait(for flight: SingleFlight, key: ServiceKey, in context: AsyncResolution?)
        async throws(DIError)
        -> Handoff<Any>
    {
        defer {
            if let waiter = context?.creation {
                hierarchy.withLock { waiter.removeWait(on: flight) }
            }
        }
        do {
            return try await flight.wait()
        } catch let error as DIError {
            throw error
        } catch {
            throw .factoryFailed(key: key, path: context?.keys ?? [], underlying: error)
        }
    }
}

extension ServiceEntry {
    @usableFromInline
    var generationOfSharedCreation: UInt64? {
        guard kind == .container, instance == nil, isolation == .async else { return nil }
        return cache?.generation ?? 0
    }
}

/// What a creation in flight is shared under: its registration, and for `.multiton` its arguments.
struct FlightKey: Hashable, Sendable {
    let entry: ObjectIdentifier
    let arguments: Handoff<MultitonKey>?

    init<Service>(entry: ServiceEntry<Service>, arguments: MultitonKey?) {
        self.entry = ObjectIdentifier(entry)
        // A key that does not equal itself shares no flight, and must still find its own to remove it.
        self.arguments = arguments.map { Handoff($0.storable) }
    }

    /// The key of a `.container` registration's creation.
    init(entry: any AnyServiceEntry) {
        self.entry = ObjectIdentifier(entry)
        self.arguments = nil
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
        /// A call that disposes of instances took this creation (``Disposal/init(awaiting:key:handlers:)``):
        /// the creation runs the synchronous disposal handlers of its instance when it ends.
        var takenForDisposal = false
    }

    private let state = LockedValue(State())

    init(key: ServiceKey, shared: FlightKey, generation: UInt64) {
        self.key = key
        self.shared = shared
        self.generation = generation
    }

    /// Whether a call that disposes of instances took this creation, leaving its instance to it to end.
    var isTakenForDisposal: Bool {
        state.withLock { $0.takenForDisposal }
    }

    /// Notes that a call that disposes of instances took this creation.
    func takeForDisposal() {
        state.withLock { $0.takenForDisposal = true }
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

    /// Waits for the outcome however long it takes, whether or not the waiting task is cancelled: what a
    /// disposal that took this creation waits for, to end its instance (a cancelled `disposeAsync()` still
    /// runs every handler of what it took, and returns once the creation has ended).
    nonisolated(nonsending) func outcome() async -> Result<Handoff<Any>, DIError> {
        let waiter = state.withLock { state in
            state.lastWaiter += 1
            return state.lastWaiter
        }
        do {
            return .success(
                try await withCheckedThrowingContinuation { continuation in
                    let ready = state.withLock { state -> Result<Handoff<Any>, any Error>? in
                        if let outcome = state.outcome {
                            return outcome.mapError { $0 }
                        }
                        state.waiters[waiter] = continuation
                        return nil
                    }
                    if let ready {
                        continuation.resume(with: ready)
                    }
                }
            )
        } catch let error as DIError {
            return .failure(error)
        } catch {
            // `finish` resumes the waiters with a `DIError` only; nothing cancels this wait.
            preconditionFailure("a creation in flight ended with \(error)")
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

extension Disposal {
    /// The disposal of the instance a creation in flight will make, taken by `dispose()` or
    /// `disposeAsync()` while the creation runs: that creation will not keep its instance, and runs its
    /// synchronous handlers itself when it ends (`ServiceEntry.create`), so ``run()`` has nothing to do.
    /// ``runAll()`` waits for the creation, cancelled or not, so that `disposeAsync()` returns only once
    /// it has ended, and then runs the asynchronous handlers on its instance. Numbered as the newest
    /// completion: it completes after everything the container holds now. Making it is what takes the
    /// flight for disposal (``SingleFlight/isTakenForDisposal``).
    init(awaiting flight: SingleFlight, key: ServiceKey, handlers: DisposalHandlers?) {
        flight.takeForDisposal()
        self.init(key: key, completion: .max, flight: flight, handlers: handlers)
    }
}
