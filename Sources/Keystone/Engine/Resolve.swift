/// The generic part of the resolve path: reading and storing an entry's typed instance and calling its
/// factory. The common cases are `@inlinable`, so that they specialize for the service type in the
/// caller's module: no dynamic cast, no metadata lookup. Weak and custom scopes and restored graphs keep
/// their instances elsewhere, through functions that are generic but not inlined.
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

    /// Resolves `entry`, registered under `key`: returns a cached `.container` instance with a load, and
    /// otherwise resolves in a call. `resolver`, what the factories are handed, is made only if a factory
    /// runs: a type-erased resolve holds it as a plain reference until then.
    @inlinable
    func resolve<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: @autoclosure () -> any Resolver
    ) throws(DIError) -> Service {
        // Only a `.container`-kind scope ever sets `instance`.
        if let instance = entry.instance {
            return instance
        }
        return try resolveInCall(entry, as: key, arguments: arguments, resolver: resolver())
    }

    /// Resolves `entry`, found under `key`, as a call (the top-level one, or nested in the call in
    /// flight): reuses the instance its scope holds for the resolution in flight, or creates one.
    @inlinable
    func resolveInCall<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: @autoclosure () -> any Resolver
    ) throws(DIError) -> Service {
        let resolver = resolver()
        return try withCall { () throws(DIError) -> Service in
            if let existing = existingInstance(of: entry) {
                return existing
            }
            if entry.kind == .multiton {
                return try resolveMultiton(entry, as: key, arguments: arguments, resolver: resolver)
            }
            return try create(entry, as: key, arguments: arguments, resolver: resolver, keep: true)
        }
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

    /// ``create(_:as:arguments:resolver:keep:)`` with the arguments in place; while a profile is recorded,
    /// through ``createProfiled(_:as:argumentsAt:resolver:keep:)``.
    @inlinable
    func create<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        argumentsAt arguments: UnsafePointer<Arguments>,
        resolver: any Resolver,
        keep: Bool
    ) throws(DIError) -> Service {
        if call.profiler != nil {
            return try createProfiled(entry, as: key, argumentsAt: arguments, resolver: resolver, keep: keep)
        }
        return try createInFrame(entry, as: key, argumentsAt: arguments, resolver: resolver, keep: keep)
    }

    /// ``createInFrame(_:as:argumentsAt:resolver:keep:)`` recorded in the profile: from before the factory
    /// runs to after its `initCompleted` actions, inside the creation in flight. Not inlined: profiling
    /// is rare, and its code stays out of the resolve path.
    @usableFromInline
    func createProfiled<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        argumentsAt arguments: UnsafePointer<Arguments>,
        resolver: any Resolver,
        keep: Bool
    ) throws(DIError) -> Service {
        // The synchronous stand-in of an async factory, or of a main-actor one off the main actor, creates
        // nothing: it throws, and the resolve goes on asynchronously, where the creation is recorded.
        guard let profiler = call.profiler,
            entry.isolation == nil || entry.isolation == .mainActor && MainActorCheck.isCurrent
        else {
            return try createInFrame(entry, as: key, argumentsAt: arguments, resolver: resolver, keep: keep)
        }
        let record = profiler.open(key, scope: entry.objectScopeName, parent: call.profileParent, synchronous: true)
        defer { profiler.close(record) }
        return try createInFrame(entry, as: key, argumentsAt: arguments, resolver: resolver, keep: keep)
    }

    /// Pushes a frame for a new instance of `entry`, runs the factory and completes the instance.
    ///
    /// The entry is not touched once its frame is popped: a factory may replace its own registration, and
    /// what keeps the entry alive until the top-level call ends is `retired`, not the frame.
    @inlinable
    func createInFrame<Service, Arguments>(
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
        return try complete(made, of: entry, as: key, resolver: resolver, keep: keep, frame: index)
    }

    /// Completes a new instance of `entry` whose factory returned `made` in the frame at `index`: stores
    /// it in its scope (if `keep`), runs its `initCompleted` actions, pops the frame, numbers a
    /// `.container` instance's completion and disposes of an instance whose scope was dropped meanwhile.
    /// Every creation ends here, the synchronous ones and those of async factories (``adopt(_:of:as:arguments:resolver:dropped:tainted:)``).
    @inlinable
    func complete<Service>(
        _ made: Service,
        of entry: ServiceEntry<Service>,
        as key: ServiceKey,
        resolver: any Resolver,
        keep: Bool,
        frame index: Int
    ) throws(DIError) -> Service {
        if keep {
            if frames[index].reentered || frames[index].dropped {
                if let existing = storeAfterReentryOrDrop(made, in: entry, frame: index) {
                    entry.activeFrames &-= 1
                    // `made` is not kept: if a disposing call dropped it meanwhile, it ends here.
                    endDropped(made, of: entry, frame: index)
                    return existing
                }
            } else {
                store(made, in: entry, tainted: frames[index].tainted)
            }
        }
        frames[index].produced = true
        if entry.hasInitCompletedActions,
            let failure = completeInitialization(of: made, in: entry, resolver: resolver, keep: keep, frame: index)
        {
            entry.activeFrames &-= 1
            throw abandon(failure, key: key)
        }
        entry.activeFrames &-= 1
        if frames[index].dropped {
            endDropped(made, of: entry, frame: index)
        } else {
            pop()
            if keep {
                numberCompletion(of: entry)
            }
        }
        return made
    }

    /// ``complete(_:of:as:resolver:keep:frame:)``'s storing of an instance whose frame is reentered or
    /// dropped, out of line: returns the instance to hand out instead, if the factory resolved this entry
    /// again and that inner resolve stored its instance first. An instance whose scope was dropped while
    /// the factory ran is stored all the same, unless a newer creation filled the scope: its
    /// `initCompleted` actions may resolve it back; `complete` takes it back afterwards.
    @usableFromInline
    func storeAfterReentryOrDrop<Service>(
        _ made: Service,
        in entry: ServiceEntry<Service>,
        frame index: Int
    ) -> Service? {
        if frames[index].keepsNothing {
            // Its scope changed while the factory ran: it is stored in neither.
            return nil
        }
        if frames[index].reentered, let existing = existingInstance(of: entry) {
            return existing
        }
        if !frames[index].dropped {
            store(made, in: entry, tainted: frames[index].tainted)
        } else if isEmpty(entry) {
            store(made, in: entry, tainted: frames[index].tainted)
            frames[index].holdsDroppedInstance = !isEmpty(entry)
        }
        return nil
    }

    /// Completes an instance of `entry` that an async factory made, outside any frame: pushes its frame
    /// and ends the creation as a synchronous one ends (``complete(_:of:as:resolver:keep:frame:)``),
    /// keeping the instance by its arguments for `.multiton`. `dropped`: the scope was dropped while the
    /// factory ran; `tainted`: a cycle was found in the resolution it ran in. Either way it is not kept.
    /// The scope is the one the registration has now: an async creation is on no frame while its factory
    /// runs, so a scope change meanwhile (`inObjectScope`) does not mark it as it marks a synchronous one
    /// (``Frame/keepsNothing``). One started under a scope that keeps nothing is kept by a `.container`
    /// or `.multiton` scope set since: the scope a registration gets with `inObjectScope` right after it
    /// was made, while another task was already resolving it. One started under a scope that keeps
    /// instances is dropped by the change (its generation changed) and keeps nothing.
    func adopt<Service, Arguments>(
        _ made: Service,
        of entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: any Resolver,
        dropped: Bool,
        disposesIfDropped: Bool,
        tainted: Bool
    ) throws(DIError) -> Service {
        let identity = entry.kind == .multiton ? try MultitonKey.of(arguments, key: key) : nil
        return try withUnsafePointer(to: arguments) { (arguments) throws(DIError) -> Service in
            try keeping(entry, byArguments: identity) { () throws(DIError) -> Service in
                let index = try push(entry, as: key, arguments: UnsafeRawPointer(arguments), isUnique: false)
                frames[index].dropped = dropped
                frames[index].disposesIfDropped = disposesIfDropped
                frames[index].tainted = tainted
                entry.activeFrames &+= 1
                return try complete(made, of: entry, as: key, resolver: resolver, keep: true, frame: index)
            }
        }
    }

    /// Resolves a `.multiton` entry: the instance made earlier from equal arguments, or a new one, kept
    /// as a `.container` instance is (stored before its `initCompleted` actions, so that they may resolve
    /// it again, and dropped if it does not complete). Inlined, so that the arguments become a
    /// ``MultitonKey`` in code that knows their type; `resolver` is made only if the factory runs. (Run
    /// outside the call, or not inlined, it cost `transient`, `three-arguments`, `fan-out` or the counted
    /// rows 2% to 30% more instructions. Returning a hit before the call opens saved `multiton-hit` 145
    /// more instructions, but the compiled resolves of different services were no longer merged: 2,845
    /// bytes per site against 269, `Benchmarks/size.sh`.)
    @inlinable
    func resolveMultiton<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        resolver: @autoclosure () -> any Resolver
    ) throws(DIError) -> Service {
        let identity = try MultitonKey.of(arguments, key: key)
        if let kept = entry.instance(forArguments: identity) {
            return kept
        }
        return try createMultiton(entry, as: key, arguments: arguments, identity: identity, resolver: resolver())
    }

    /// Creates a `.multiton` instance of `entry` and keeps it under `identity`. Compiled once, generically,
    /// in this module: specialized for each service type, its dictionary code would keep the compiled
    /// resolves of different services from being merged into one in an app (`Benchmarks/size.sh`).
    @usableFromInline @_semantics("optimize.sil.specialize.generic.never")
    func createMultiton<Service, Arguments>(
        _ entry: ServiceEntry<Service>,
        as key: ServiceKey,
        arguments: Arguments,
        identity: MultitonKey,
        resolver: any Resolver
    ) throws(DIError) -> Service {
        try keeping(entry, byArguments: identity) { () throws(DIError) -> Service in
            try create(entry, as: key, arguments: arguments, resolver: resolver, keep: true)
        }
    }

    /// Runs `creation`, which makes an instance of `entry`, so that a `.multiton` entry keeps it under
    /// `identity`, its arguments, as a creation keeps a key (``MultitonKey/storable``; in ``multitonKeys``,
    /// which `store` and `numberCompletion` read). With `nil`
    /// (any other scope), just runs it.
    @inlinable
    func keeping<Service>(
        _ entry: ServiceEntry<Service>,
        byArguments identity: MultitonKey?,
        _ creation: () throws(DIError) -> Service
    ) throws(DIError) -> Service {
        guard let identity else { return try creation() }
        multitonKeys.append(identity.storable)
        defer { multitonKeys.removeLast() }
        return try creation()
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
        for action in entry.initCompletedActions ?? [] where thrown == nil {
            userCodeWillRun()
            defer { userCodeDidRun() }
            do {
                try action(resolver, made)
            } catch {
                thrown = error
            }
        }
        // A dropped creation discards only the instance it still holds in its scope: after a drop, the scope
        // may hold a newer creation's, or be another scope altogether.
        if keep, thrown != nil || frames[index].tainted, !frames[index].dropped || frames[index].holdsDroppedInstance {
            discardIncomplete(made, of: entry)
            frames[index].holdsDroppedInstance = false
        }
        return thrown
    }

}

// MARK: - Calls and frames

/// The bookkeeping the resolve path does around each call and each new instance.
extension ResolutionState {
    /// Enters a call: the first call in flight opens a graph.
    @usableFromInline
    func enterCall() {
        #if DEBUG
            checkNoOtherThreadIsRunning()
            runningThreads.append(runningThread)
            runningThread = .current
        #endif
        if calls == 0 {
            call.epoch &+= 1
            // `failure` is nil here: the top-level call that set it took it in `leaveCall`.
            if call.tracksKept {
                call.kept.removeAll(keepingCapacity: true)
            }
        }
        calls += 1
    }

    /// Leaves a call; when it was the top-level one, closes the graph and returns the failure to report
    /// (a cycle found anywhere during the call fails it, whatever it returned).
    ///
    /// The call is settled (its failure taken, its graph detached) before any instance is released: a
    /// deinitializer that resolves starts a call of its own, which must not see this one's state.
    @usableFromInline
    func leaveCall() -> DIError? {
        #if DEBUG
            runningThread = runningThreads.removeLast()
        #endif
        calls -= 1
        guard calls == 0 else { return nil }
        if call.touched.isEmpty, call.liveRecord == nil, call.retired.isEmpty, failure == nil {
            return nil
        }
        let failure = self.failure
        self.failure = nil
        closeGraph()
        if case .captiveDependency = failure {
            dropKept()
        }
        return failure
    }

    /// Pushes the frame of a resolution about to create an instance of `entry`, found under `key`, and
    /// returns its index; throws if the stack is as deep as the engine allows. The caller pops the frame
    /// with ``pop()`` or ``abandon(_:key:)``.
    @usableFromInline
    func push(
        _ entry: any AnyServiceEntry,
        as key: ServiceKey,
        arguments: UnsafeRawPointer,
        isUnique: Bool
    ) throws(DIError) -> Int {
        let depth = frames.count &+ call.outerDepth
        if depth >= Self.stackCheckDepth {
            try checkDepth(depth, key: key, stackDepth: frames.count)
        }
        frames.append(Frame(entry: entry, key: key, arguments: arguments, isUnique: isUnique))
        return frames.count - 1
    }

    /// Pops the frame on top.
    @usableFromInline
    func pop() {
        frames.removeLast()
    }

}

// MARK: - The entry's compiled resolve and factory

extension ServiceEntry {
    /// The type-erased resolve of an entry of this type whose factory takes `Arguments`.
    ///
    /// It is made where the entry is registered: `register` is `@inlinable`, so in the app's module the
    /// closure is compiled for the concrete service and argument types. Code that does not know them, such
    /// as a nested `resolver.resolve(...)` made through `any Resolver`, resolves through it and never runs
    /// the resolve path unspecialized.
    @inlinable
    static func erasedResolve<Arguments>(taking _: Arguments.Type) -> ErasedResolve {
        {
            (
                object: AnyObject,
                container: Container,
                key: ServiceKey,
                arguments: UnsafeRawPointer,
                resolver: ResolverReference,
                result: UnsafeMutableRawPointer
            ) throws(DIError) in
            // Unchecked: the entry was found under a key of `Service` (rows `container` 14%, `inject` 7%
            // fewer instructions than `as!`).
            let entry = unsafeDowncast(object, to: ServiceEntry<Service>.self)
            let arguments = arguments.assumingMemoryBound(to: Arguments.self).pointee
            let instance = try container.hierarchy.state.resolve(
                entry,
                as: key,
                arguments: arguments,
                resolver: resolver.resolver
            )
            result.initializeMemory(as: Service.self, to: instance)
        }
    }

    /// Runs the factory.
    @inlinable
    func make<Arguments>(_ resolver: any Resolver, _ arguments: Arguments) throws -> Service {
        if let plainFactory {
            return try plainFactory(resolver)
        }
        // The key this entry was found under includes `Arguments`, so the box has exactly this type.
        // Unchecked: the key includes `Arguments` and their count (row `argument`: 3% fewer instructions).
        let box = unsafeDowncast(argumentFactory.unsafelyUnwrapped, to: ArgumentFactory<Service, Arguments>.self)
        return try box.body(resolver, arguments)
    }
}

/// Resolves an entry for code that knows neither its service type nor its argument types: `entry` is
/// the `ServiceEntry`, `key` the key it was found under, `arguments` points to the arguments and `result`
/// to uninitialized memory for one instance of the service type, which it initializes unless it throws.
@usableFromInline
typealias ErasedResolve = (
    _ entry: AnyObject,
    _ container: Container,
    _ key: ServiceKey,
    _ arguments: UnsafeRawPointer,
    _ resolver: ResolverReference,
    _ result: UnsafeMutableRawPointer
) throws(DIError) -> Void

/// The resolver a resolve hands to the factories it calls, as plain data: the container or the
/// synchronized view the call came through. A cached resolve never calls a factory, and never pays for
/// making the `any Resolver` existential.
@usableFromInline
struct ResolverReference {
    @usableFromInline let object: AnyObject
    @usableFromInline let isSynchronized: Bool

    @inlinable
    init(_ container: Container) {
        object = container
        isSynchronized = false
    }

    @inlinable
    init(_ view: SynchronizedResolver) {
        object = view
        isSynchronized = true
    }

    /// The resolver to hand to a factory.
    ///
    /// Unchecked: the two initializers set `isSynchronized` with the object's class (rows `transient`
    /// and `graph` 34 instructions fewer, about 3%, `fan-out` 2.6%, than `as!`).
    @inlinable
    var resolver: any Resolver {
        if isSynchronized {
            return unsafeDowncast(object, to: SynchronizedResolver.self)
        }
        return unsafeDowncast(object, to: Container.self)
    }
}

/// A factory that takes runtime arguments, boxed so that an entry can hold it without knowing the
/// argument types and get it back without a dynamic cast. Not final: the boxes of async and main-actor
/// factories (`IsolatedFactory.swift`) extend it with the factory the synchronous `body` stands in for.
@usableFromInline
class ArgumentFactory<Service, Arguments>: FactoryBox {
    @usableFromInline let body: (any Resolver, Arguments) throws -> Service

    @usableFromInline
    init(_ body: @escaping (any Resolver, Arguments) throws -> Service, isolation: FactoryIsolation? = nil) {
        self.body = body
        super.init(isolation: isolation)
    }
}

/// What an entry's factory box says without its generic types: where the factory runs. Every
/// `ServiceEntry.argumentFactory` is one, so reading it takes a load rather than a dynamic cast.
@usableFromInline
class FactoryBox {
    /// `nil` for a synchronous factory; `.async` or `.mainActor` for the boxes of `IsolatedFactory.swift`.
    @usableFromInline let isolation: FactoryIsolation?

    @usableFromInline
    init(isolation: FactoryIsolation?) {
        self.isolation = isolation
    }
}
