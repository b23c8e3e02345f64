/// A thread-safe view of a container: every resolve through it, and through the `Lazy` and
/// `Provider` values it returns, runs under one `NSRecursiveLock` shared by the whole container
/// hierarchy.
///
/// Get one with ``Container/synchronize()`` after registering, and hand it to worker threads and tasks:
///
/// ```swift
/// let resolver = container.synchronize()
/// await withTaskGroup(of: Void.self) { group in
///     for _ in 0..<8 {
///         group.addTask { _ = resolver.resolve(Database.self) }
///     }
/// }
/// ```
///
/// Factories called through the view are handed the view, so what they resolve, now or later, is
/// synchronized too. The lock is recursive, so a factory may resolve re-entrantly, from the parent or
/// a child, without deadlock.
public final class SynchronizedResolver: Resolver, @unchecked Sendable {
    // @unchecked: the container is used only under `container.hierarchy.lock`, which every
    // synchronized view, `Lazy` and `Provider` of the hierarchy takes, as do registration and reset.

    /// The container this view resolves from.
    @usableFromInline let container: Container

    init(_ container: Container) {
        self.container = container
    }

    /// Serves a resolve with erased types under the hierarchy's lock, handing this view to the
    /// factories it calls.
    public func _resolve(_ request: _ResolutionRequest) throws(DIError) -> Bool {
        try container.hierarchy.withLock { () throws(DIError) in
            try container.serve(request, handing: ResolverReference(self))
        }
    }

    /// Resolves under the hierarchy's lock, handing this view to the factories it calls.
    @inlinable
    public func resolveService<Service, Arguments>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: Arguments,
        argumentCount: Int
    ) throws(DIError) -> Service {
        let key = ServiceKey.of(Service.self, name: name, Arguments.self, argumentCount)
        return try container.hierarchy.withLock { () throws(DIError) in
            try container.resolve(key, arguments: arguments, resolver: self)
        }
    }
}

extension SynchronizedResolver {
    /// Makes a child of this view's container, from any thread or task: the way a server makes a request
    /// scope from the shared view of its app container.
    ///
    /// ```swift
    /// let request = app.makeChild(defaultObjectScope: .container) { child in
    ///     child.register(UnitOfWork.self) { r in UnitOfWork(store: r.resolve(OrderStore.self)!) }
    ///         .onDispose { unitOfWork in try unitOfWork.commit() }
    /// }
    /// let scope = request.synchronize()
    /// // ... the request resolves from `scope` ...
    /// try request.dispose()
    /// ```
    ///
    /// The child belongs to the task that made it. It shares the lock and the resolution state of its
    /// parent's hierarchy, so while other threads resolve from that hierarchy, resolve from the child
    /// through its own `synchronize()` view, as above.
    ///
    /// - Parameters:
    ///   - defaultObjectScope: The scope of the child's registrations that do not call `inObjectScope`.
    ///   - registeringClosure: Registers the child's own services.
    /// - Returns: A new child container of this view's container.
    public func makeChild(
        defaultObjectScope: ObjectScope = .graph,
        registeringClosure: (Container) -> Void = { _ in }
    ) -> Container {
        // `Container(parent:)` reads only the parent's hierarchy, which never changes, and registering in
        // the child takes the hierarchy's lock.
        Container(parent: container, defaultObjectScope: defaultObjectScope, registeringClosure: registeringClosure)
    }

    /// The typed resolve of a service that takes no arguments, for ``DIActor`` and the facades: it skips the type-erased
    /// attempt the `Resolver` overloads make first, which a container that counts its resolves (as an
    /// actor's does, see ``Container/countsResolutions``) declines (`counted-container` row: 30% fewer
    /// instructions than through the overloads).
    @inlinable
    func resolveTyped<Service>(_ type: Service.Type, name: String? = nil) throws(DIError) -> Service {
        try resolveService(type, name: name, arguments: (), argumentCount: 0)
    }

    /// ``resolveTyped(_:)`` in the `Optional` style: a failure is logged and becomes `nil`.
    @inlinable
    func resolveTypedOrNil<Service>(_ type: Service.Type) -> Service? {
        do {
            return try resolveTyped(type)
        } catch {
            Log.failure(error)
            return nil
        }
    }
}

extension Container {
    /// Returns a thread-safe view of this container, to share with the threads and tasks that resolve.
    ///
    /// ```swift
    /// let container = Container()
    /// container.register(Database.self) { _ in SQLiteDatabase() }.inObjectScope(.container)
    /// let resolver = container.synchronize()
    /// DispatchQueue.concurrentPerform(iterations: 8) { _ in
    ///     _ = resolver.resolve(Database.self)
    /// }
    /// ```
    ///
    /// What it guarantees:
    /// - Every resolve through the view, and through the `Lazy` and `Provider` values it returns, runs
    ///   under one `NSRecursiveLock` shared by this container, its ancestors, its descendants and all
    ///   their views. Views of a parent and of a child may be used at the same time.
    /// - A `.container` or `.weak` instance is created once however many threads ask for it at once, and
    ///   the `.graph` instances of one thread's resolve are never seen by another's.
    /// - A factory may resolve re-entrantly, through the resolver it is handed, in parent and child,
    ///   without deadlock.
    /// - Registering, `removeAll()` and `resetObjectScope` take the same lock, so they never corrupt a
    ///   resolve in flight.
    ///
    /// What it does not:
    /// - It does not make the container itself thread-safe: a resolve called on the `Container`
    ///   directly takes no lock. Register on one thread, typically at startup, then share only the view.
    /// - One lock serializes every resolve of the hierarchy: a slow factory delays the other threads'
    ///   resolves for as long as it runs. Keep factories fast, or resolve a `Lazy`.
    /// - Instances are not made thread-safe: a shared instance used from several threads must be
    ///   `Sendable` or synchronize itself.
    ///
    /// Swinject code that writes `let resolver: Resolver = container.synchronize()` still compiles, but a
    /// value typed plain `Resolver` cannot be captured by a `@Sendable` closure in Swift 6: keep the
    /// concrete `SynchronizedResolver` type, or write `any Resolver & Sendable`.
    ///
    /// - Returns: A view that may be shared by any number of threads and tasks.
    public func synchronize() -> SynchronizedResolver {
        return SynchronizedResolver(self)
    }
}
