// Ending the instances a container holds: `dispose()` and `disposeAsync()` run the registrations'
// disposal handlers (`ServiceEntry.onDispose`, `onDisposeAsync`), newest instance first, then drop the
// instances; the registrations stay.

extension Container {
    /// Ends every instance this container holds: runs the disposal handlers of its `.container` and
    /// `.multiton` instances, once each, newest first, and drops the instances. Its parent's instances
    /// are left alone, and the registrations stay: a later resolve creates a new instance.
    ///
    /// "Newest first" follows the order in which instances *completed* (their factory and `initCompleted`
    /// actions done): a dependency completes before the instance that needs it, so a dependent is
    /// disposed of before what it depends on.
    ///
    /// A child container is a scope of its own. Make one per session or per request, and dispose of it
    /// at the end:
    ///
    /// ```swift
    /// let session = Container(parent: app)
    /// session.register(Cart.self) { _ in Cart() }
    ///     .inObjectScope(.container)
    ///     .onDispose { cart in cart.save() }
    /// // ... the session uses its services ...
    /// try session.dispose()   // saves the cart; the app's singletons live on
    /// ```
    ///
    /// Every handler runs, even when some throw; the instances are dropped either way.
    ///
    /// > Note: It skips the handlers added with `onDisposeAsync`; ``disposeAsync()`` runs them.
    ///
    /// - Throws: ``DIError/disposalFailed(_:)`` with one ``DIError/factoryFailed(key:path:underlying:)``
    ///   per handler that threw, naming its registration.
    public func dispose() throws(DIError) {
        var failures: [DIError] = []
        for disposal in takeDisposals() {
            failures += disposal.run()
        }
        if !failures.isEmpty {
            throw .disposalFailed(failures)
        }
    }

    /// Ends every instance this container holds, as ``dispose()`` does, and also runs the handlers added
    /// with `onDisposeAsync`, each in its place.
    ///
    /// An async `.container` or `.multiton` instance still being created when it is called is ended too:
    /// it waits for the creation to finish, whether or not its task is cancelled, and returns after.
    ///
    /// ```swift
    /// try await requestScope.disposeAsync()
    /// ```
    ///
    /// - Throws: ``DIError/disposalFailed(_:)`` with one ``DIError/factoryFailed(key:path:underlying:)``
    ///   per handler that threw.
    nonisolated(nonsending) public func disposeAsync() async throws(DIError) {
        try await disposeAsync(isolation: #isolation)
    }

    /// `disposeAsync()`, isolated to the caller's isolation, which it first makes sure to be on (a caller
    /// whose opening hop the compiler dropped arrives off its actor; see ``executorBarrier()``): the
    /// handlers run there.
    private func disposeAsync(isolation: isolated (any Actor)?) async throws(DIError) {
        executorBarrier()
        var failures: [DIError] = []
        for disposal in takeDisposals() {
            failures += await disposal.runAll()
        }
        if !failures.isEmpty {
            throw .disposalFailed(failures)
        }
    }

    /// Takes the instances this container's registrations hold, newest completion first, and drops them.
    private func takeDisposals() -> [Disposal] {
        withHierarchyLock {
            var disposals: [Disposal] = []
            // Room for one instance per registration, the usual most, up to 32: a request scope's few
            // disposals in one allocation rather than one per doubling (`server-scope` row), and no large
            // one for a container of many registrations and few instances.
            disposals.reserveCapacity(min(table.count, 32))
            table.forEach { slot in
                // A key forwarded to a parent's registration leads to the parent's instance: not this
                // container's to end, unless the parent no longer reaches that registration.
                guard slot.entry.owner === token || slot.entry.isOrphaned else { return }
                // An entry reached under two keys (a key forwarded to another of this container's) is
                // taken once: the second take finds its instances gone and its creations in flight
                // already taken (they are of an older generation).
                slot.entry.takeForDisposal(into: &disposals)
                hierarchy.state.noteDropped(slot.entry, discarding: false)
            }
            disposals.sort { $0.completion > $1.completion }
            return disposals
        }
    }
}

/// The disposal handlers of one registration, in the order added, with the service type erased: the
/// entry's extras (which are not generic) hold them, and a disposal runs them on the instance it keeps as
/// `Any`. Erased where they are added (`ServiceEntry.onDispose`), so that taking and running a disposal
/// looks up no generic metadata (`request-scope` row: 9% of its instructions). A value: a disposal keeps a
/// copy, one retained array.
struct DisposalHandlers {
    enum Handler {
        case sync((Any) throws -> Void)
        case async(_ handler: nonisolated(nonsending) @Sendable (Any) async throws -> Void)
    }

    var handlers: [Handler]

    /// Runs the synchronous handlers on `instance`; returns their errors, naming `key`.
    func runSync(on instance: Any, key: ServiceKey) -> [DIError] {
        var failures: [DIError] = []
        for case .sync(let handler) in handlers {
            do {
                try handler(instance)
            } catch {
                failures.append(.factoryFailed(key: key, path: [], underlying: error))
            }
        }
        return failures
    }

    /// Runs the handlers on `instance` in the order added, the synchronous ones too unless
    /// `asynchronousOnly`; returns their errors, naming `key`.
    nonisolated(nonsending) func runAll(on instance: Any, key: ServiceKey, asynchronousOnly: Bool) async -> [DIError] {
        var failures: [DIError] = []
        for handler in handlers {
            do {
                switch handler {
                case .sync(let handler):
                    if !asynchronousOnly {
                        try handler(instance)
                    }
                case .async(let handler):
                    try await handler(instance)
                }
            } catch {
                failures.append(.factoryFailed(key: key, path: [], underlying: error))
            }
        }
        return failures
    }
}

/// One instance to end, with its registration's handlers: the instance is kept until the disposal is
/// dropped, after every handler of the call has run.
@usableFromInline
struct Disposal {
    /// Runs the synchronous handlers of instances a container dropped without `dispose()`: by
    /// `resetObjectScope`, re-registration, removal or `removeAll()`. Newest completion first, as
    /// `dispose()` does; since those calls cannot throw, what the handlers threw goes to
    /// ``Container/logHandler`` as one ``DIError/disposalFailed(_:)``. Called with no lock held by the
    /// dropping call.
    static func runDropped(_ dropped: [Disposal]) {
        guard !dropped.isEmpty else { return }
        var failures: [DIError] = []
        for disposal in dropped.sorted(by: { $0.completion > $1.completion }) {
            failures += disposal.run()
        }
        if !failures.isEmpty {
            Log.failure(.disposalFailed(failures))
        }
    }

    let key: ServiceKey
    /// When the instance completed: `dispose()` goes from the newest.
    let completion: UInt64
    /// The instance, as the registration's `Service`; `nil` for a creation in flight (`flight`).
    let instance: Any?
    let handlers: DisposalHandlers?
    /// The creation in flight whose instance this disposal ends (see `init(awaiting:key:handlers:)`).
    let flight: SingleFlight?

    init(key: ServiceKey, completion: UInt64, instance: Any, handlers: DisposalHandlers?) {
        self.key = key
        self.completion = completion
        self.instance = instance
        self.handlers = handlers
        flight = nil
    }

    init(key: ServiceKey, completion: UInt64, flight: SingleFlight, handlers: DisposalHandlers?) {
        self.key = key
        self.completion = completion
        instance = nil
        self.handlers = handlers
        self.flight = flight
    }

    /// Runs the synchronous handlers; returns their errors.
    func run() -> [DIError] {
        guard let handlers, let instance else { return [] }
        return handlers.runSync(on: instance, key: key)
    }

    /// Runs every handler, in the order added; returns their errors. In the caller's isolation, as the
    /// synchronous handlers run in `dispose()`: they are not `Sendable`, and may use the caller's state.
    /// For a creation in flight, waits for it to end, cancelled or not, then runs the asynchronous
    /// handlers on its instance (it ran the synchronous ones itself).
    nonisolated(nonsending) func runAll() async -> [DIError] {
        if let flight {
            guard case .success(let outcome) = await flight.outcome(), let handlers else { return [] }
            return await handlers.runAll(on: outcome.value, key: key, asynchronousOnly: true)
        }
        guard let handlers, let instance else { return [] }
        return await handlers.runAll(on: instance, key: key, asynchronousOnly: false)
    }
}
