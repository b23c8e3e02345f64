// The asynchronous resolves: `resolveAsync` with a name and 0 to 3 runtime arguments, on every
// `Resolver` (the one an async factory is handed included), with overloads on `Container` and
// `SynchronizedResolver` that skip finding the engine behind an existential. All end in
// `Container.resolveAsync(_:arguments:)` (`Engine/Async/AsyncResolve.swift`).
//
// Written out for each count rather than as one parameter pack: an async function that expands a pack of
// arguments breaks the task allocator's stack discipline with this toolchain ("freed pointer was not the
// last allocation"), and async factories take at most 3 arguments.
//
// `nonisolated(nonsending)`: the call runs on the caller's actor. On the main actor a main-actor factory
// then runs in place, and a container that is not `Sendable` never crosses to another isolation domain.

/// `resolveAsync` through any resolver: Keystone's own resolve asynchronously, others synchronously.
@inlinable
nonisolated(nonsending) func resolveAsync<R: Resolver, Service, Arguments>(
    _ resolver: R,
    _ serviceType: Service.Type,
    name: String?,
    arguments: Arguments,
    argumentCount: Int
) async throws(DIError) -> Service {
    if let joined = resolver as? AsyncGraphResolver {
        // An async factory's resolver: joins the resolution in flight.
        return try await joined.resolveAsync(
            .of(Service.self, name: name, Arguments.self, argumentCount),
            arguments: arguments
        )
    }
    if let engine = resolver._engine {
        return try await engine.resolveAsync(
            .of(Service.self, name: name, Arguments.self, argumentCount),
            arguments: arguments,
            through: resolver as? SynchronizedResolver
        )
    }
    return try resolver.resolveService(serviceType, name: name, arguments: arguments, argumentCount: argumentCount)
}

extension Resolver {
    /// Resolves the registration of `serviceType` under `name`, running its factory asynchronously if it
    /// is async (`registerAsync`) or on the main actor if it is a main-actor factory.
    ///
    /// ```swift
    /// container.registerAsync(Database.self) { _ in try await Database.open() }
    ///     .inObjectScope(.container)
    /// let database = try await container.resolveAsync(Database.self)
    /// ```
    ///
    /// It resolves synchronous registrations too. Inside an async factory, resolve further services with
    /// the resolver the factory is handed: they join the same object graph.
    ///
    /// A `.container` async registration (and a `.multiton` one, per argument values) is created once,
    /// whoever asks at the same time: every caller waits for the one creation and gets the same instance,
    /// or the same error (nothing is cached after a failure). A caller whose task is cancelled stops
    /// waiting at once.
    ///
    /// Where the factories run: on a plain ``Container``, which is not thread-safe, everything runs in
    /// the caller's task and isolation, so the container stays with the code that uses it (called on the
    /// main actor, an async factory runs on the main actor). A shared creation then runs in the task of
    /// the first caller, whose cancellation reaches it (its waiters get the error it ends with). Through a
    /// ``SynchronizedResolver`` a shared creation runs in a task of its own, which no caller's
    /// cancellation reaches; use one for a container that several tasks or actors resolve from. A
    /// main-actor factory resolved off the main actor runs on the main actor while the caller waits.
    ///
    /// The resolver a factory is handed belongs to its call: it joins that call while it lasts, and once
    /// the call has ended, a resolver kept from it resolves in calls of its own. A task the factory starts
    /// inherits nothing of the call through the task: a resolve it makes through a captured container is
    /// a call of its own. So a child task that resolves, through a captured container, the registration
    /// whose factory awaits it waits for that creation forever; resolve through the factory's resolver,
    /// which reports the cycle. A cycle found while serving the call fails it, even where a factory
    /// tolerated the inner failure (`try?`).
    ///
    /// > Warning: On a plain container, do not resolve from another task or actor while a `resolveAsync`
    /// > is suspended: that is concurrent use. Use ``Container/synchronize()``.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    /// - Returns: The instance.
    /// - Throws: A ``DIError``: ``DIError/circularDependency(path:)`` for a cycle through async factories
    ///   and their resolvers (never a hang), ``DIError/factoryFailed(key:path:underlying:)`` for an error
    ///   a factory threw, a cancelled wait included.
    @inlinable
    nonisolated(nonsending) public func resolveAsync<Service>(_ serviceType: Service.Type, name: String? = nil)
        async throws(DIError)
        -> Service
    {
        try await Keystone.resolveAsync(self, serviceType, name: name, arguments: (), argumentCount: 0)
    }

    /// Resolves asynchronously the registration of `serviceType` under `name` whose factory takes one
    /// argument of this static type, passing it.
    ///
    /// ```swift
    /// let session = try await container.resolveAsync(Session.self, argument: user)
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - staticTypes: Leave it out: it keeps an existential argument's static type.
    ///   - arg1: The argument; its static type must be the registered one exactly.
    /// - Returns: The instance.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable
    nonisolated(nonsending) public func resolveAsync<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        _ staticTypes: _StaticArgumentTypes<Arg1>? = nil,
        argument arg1: Arg1
    ) async throws(DIError) -> Service {
        try await Keystone.resolveAsync(self, serviceType, name: name, arguments: arg1, argumentCount: 1)
    }

    /// Resolves asynchronously the registration of `serviceType` under `name` whose factory takes two
    /// arguments of these static types, in this order, passing them.
    ///
    /// ```swift
    /// let report = try await container.resolveAsync(Report.self, arguments: user, month)
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - staticTypes: Leave it out: it keeps the arguments' static types.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    /// - Returns: The instance.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable
    nonisolated(nonsending) public func resolveAsync<Service, Arg1, Arg2>(
        _ serviceType: Service.Type,
        name: String? = nil,
        _ staticTypes: _StaticArgumentTypes<(Arg1, Arg2)>? = nil,
        arguments arg1: Arg1,
        _ arg2: Arg2
    ) async throws(DIError) -> Service {
        try await Keystone.resolveAsync(self, serviceType, name: name, arguments: (arg1, arg2), argumentCount: 2)
    }

    /// Resolves asynchronously the registration of `serviceType` under `name` whose factory takes three
    /// arguments of these static types, in this order, passing them.
    ///
    /// ```swift
    /// let page = try await container.resolveAsync(Page.self, arguments: user, month, 2)
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - staticTypes: Leave it out: it keeps the arguments' static types.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    /// - Returns: The instance.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable
    nonisolated(nonsending) public func resolveAsync<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type,
        name: String? = nil,
        _ staticTypes: _StaticArgumentTypes<(Arg1, Arg2, Arg3)>? = nil,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ arg3: Arg3
    ) async throws(DIError) -> Service {
        try await Keystone.resolveAsync(self, serviceType, name: name, arguments: (arg1, arg2, arg3), argumentCount: 3)
    }
}

extension Container {
    /// This container: it resolves `resolveAsync` calls itself.
    public var _engine: Container? { self }
}

extension SynchronizedResolver {
    /// The container this view resolves from.
    public var _engine: Container? { container }
}

extension AsyncGraphResolver {
    /// The container whose resolution in flight this resolver joins.
    @usableFromInline
    var _engine: Container? { container.value }
}
