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
            table.forEach { slot in
                // A key forwarded to a parent's registration leads to the parent's instance: not this
                // container's to end, unless the parent no longer reaches that registration.
                guard slot.entry.owner === token || slot.entry.isOrphaned else { return }
                // An entry reached under two keys (a key forwarded to another of this container's) is
                // taken once: the second take finds its instances gone and its creations in flight
                // already taken (they are of an older generation).
                let taken = slot.entry.takeForDisposal()
                if !taken.isEmpty {
                    disposals.append(contentsOf: taken)
                }
                hierarchy.state.noteDropped(slot.entry, discarding: false)
            }
            disposals.sort { $0.completion > $1.completion }
            return disposals
        }
    }
}

/// A handler `dispose()` runs for an instance.
enum DisposalHandler<Service> {
    case sync((Service) throws -> Void)
    case async(_ handler: nonisolated(nonsending) @Sendable (Service) async throws -> Void)
}

/// The disposal handlers of one registration, in the order added: an object, so that the entry's extras,
/// which are not generic, hold them as a reference the entry reads back without a dynamic cast.
final class DisposalHandlerList<Service> {
    var handlers: [DisposalHandler<Service>]

    init(_ first: DisposalHandler<Service>) {
        handlers = [first]
    }
}

/// One instance to end, with its registration's handlers bound to it.
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
    /// Runs the synchronous handlers; returns their errors.
    let run: () -> [DIError]
    /// Runs every handler, in the order added; returns their errors. In the caller's isolation, as the
    /// synchronous handlers run in `dispose()`: they are not `Sendable`, and may use the caller's state.
    let runAll: nonisolated(nonsending) () async -> [DIError]

    init<Service>(key: ServiceKey, completion: UInt64, handlers: [DisposalHandler<Service>], instance: Service) {
        self.key = key
        self.completion = completion
        run = {
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
        runAll = {
            var failures: [DIError] = []
            for handler in handlers {
                do {
                    switch handler {
                    case .sync(let handler): try handler(instance)
                    case .async(let handler): try await handler(instance)
                    }
                } catch {
                    failures.append(.factoryFailed(key: key, path: [], underlying: error))
                }
            }
            return failures
        }
    }
}
