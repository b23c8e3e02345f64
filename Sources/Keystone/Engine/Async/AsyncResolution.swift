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
    /// While a profile is recorded (``Container/profilingCreations(_:)``): the profiler, and the record of
    /// the creation this resolution runs (the parent of the creations made inside it).
    let profile: (profiler: CreationProfiler, record: Int?)?

    /// One registration being created: its identity, the key it was asked for under, its arguments.
    struct Step: Sendable {
        let entry: ObjectIdentifier
        /// The identity of its factory, which the synchronous stand-in of an async factory compares.
        let factory: ObjectIdentifier?
        let key: ServiceKey
        let arguments: Handoff<Any>
        /// The depth of the container that keeps its instance (`.container`, `.multiton`), if one does:
        /// what the scope check compares (``Container/validatesScopes``).
        let holderDepth: Int?
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

    init(
        graph: GraphRecord,
        path: [Step],
        creation: SingleFlight?,
        calls: [AsyncCall],
        isConfined: Bool,
        profile: (profiler: CreationProfiler, record: Int?)? = nil
    ) {
        self.graph = graph
        self.path = path
        self.creation = creation
        self.calls = calls
        self.task = Self.currentTask
        self.isConfined = isConfined
        self.profile = profile
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
    /// flight that starts with it, with `call`, if it does. With `profiler`, the creation's record opens
    /// now (``CreationProfiler/open(_:scope:parent:synchronous:)``); whoever ends the creation closes it.
    /// The caller holds the hierarchy's lock: the entry's scope and owner may change under it.
    func entering<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        creating flight: SingleFlight?,
        call: AsyncCall?,
        profiler: CreationProfiler?
    ) -> AsyncResolution {
        let parent = profile?.profiler === profiler ? profile?.record : nil
        let record = profiler?.open(key, scope: entry.objectScopeName, parent: parent, synchronous: false)
        return AsyncResolution(
            graph: graph,
            path: path + [
                Step(
                    entry: ObjectIdentifier(entry),
                    factory: (entry.argumentFactory as? any IsolatedFactory)?.identity,
                    key: key,
                    arguments: Handoff(arguments),
                    holderDepth: entry.keepsOneInstanceWithoutArguments ? entry.owner?.depth : nil
                )
            ],
            creation: flight ?? creation,
            calls: call.map { calls + [$0] } ?? calls,
            isConfined: isConfined,
            profile: profiler.map { ($0, record) }
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
