// Registrations whose factories cannot run in every synchronous resolve: async factories (0 to 3 runtime
// arguments, written out for each count: see `Resolver+Async.swift` for why not a parameter pack) and
// main-actor factories (0 to 3, written out too: no escaping closure may be generic over a pack, see
// ARCHITECTURE.md, "Arities"). They are ordinary entries (scopes, names, `initCompleted`,
// `implements` chain as usual) whose factory box says where the factory runs (`IsolatedFactory.swift`);
// `Engine/Async/AsyncResolve.swift` runs them.

extension Container {
    /// Registers an async factory: one that must `await` to build the service, such as a database
    /// connection or a keychain read.
    ///
    /// ```swift
    /// container.registerAsync(Database.self) { _ in try await Database.open(at: url) }
    ///     .inObjectScope(.container)
    /// container.registerAsync(Session.self) { r in
    ///     Session(database: try await r.resolveAsync(Database.self))
    /// }
    /// let session = try await container.resolveAsync(Session.self)
    /// ```
    ///
    /// `resolveAsync` runs it; inside, the resolver it is handed resolves further services, synchronous or
    /// async, in the same object graph. A `.container` registration is created once however many tasks
    /// ask at the same time. A synchronous `resolve` returns an existing `.container` instance, and
    /// otherwise fails with ``DIError/asyncResolutionRequired(key:path:)``: call ``warmUp()`` at launch to
    /// create the `.container` instances first.
    ///
    /// An error the factory throws reaches every caller waiting for it as
    /// ``DIError/factoryFailed(key:path:underlying:)``; a ``DIError`` it throws is passed on as it is.
    ///
    /// The factory is `nonisolated(nonsending)`: it runs in the isolation it is called from, which, on a
    /// plain container, is the caller's of `resolveAsync` (see ``Resolver/resolveAsync(_:name:)``). A
    /// closure converts to it; a function value declared `@Sendable (any Resolver) async throws -> T`
    /// does not, since `any Resolver` is not `Sendable`: wrap it in a closure.
    ///
    /// If the scope is dropped while a `.container` creation is in flight (``resetObjectScope(_:)-(ObjectScope)``,
    /// ``dispose()``, registering the key again), the instance it makes is not kept: its synchronous
    /// disposal handlers run once it is made, and the callers waiting for it still get it.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance, asynchronously.
    /// - Returns: The registration, to configure further.
    @discardableResult
    public func registerAsync<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: nonisolated(nonsending) @escaping @Sendable (any Resolver) async throws -> Service
    ) -> ServiceEntry<Service> {
        registerIsolated(
            name: name,
            argumentCount: 0,
            AsyncFactory<Service, Void> { resolver, _ in try await factory(resolver) }
        )
    }

    /// Registers an async factory that takes one runtime argument, passed by
    /// `resolveAsync(_:name:argument:)`.
    ///
    /// ```swift
    /// container.registerAsync(Profile.self) { _, userID in try await ProfileAPI.load(userID) }
    /// let profile = try await container.resolveAsync(Profile.self, argument: userID)
    /// ```
    ///
    /// The argument type is part of the registration's key, as for a synchronous registration with arguments.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the argument, asynchronously.
    /// - Returns: The registration, to configure further.
    @discardableResult
    public func registerAsync<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: nonisolated(nonsending) @escaping @Sendable (any Resolver, Arg1) async throws -> Service
    ) -> ServiceEntry<Service> {
        registerIsolated(name: name, argumentCount: 1, AsyncFactory<Service, Arg1>(factory))
    }

    /// Registers an async factory that takes two runtime arguments, passed by
    /// `resolveAsync(_:name:arguments:_:)`.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments, asynchronously.
    /// - Returns: The registration, to configure further.
    @discardableResult
    public func registerAsync<Service, Arg1, Arg2>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: nonisolated(nonsending) @escaping @Sendable (any Resolver, Arg1, Arg2) async throws -> Service
    ) -> ServiceEntry<Service> {
        registerIsolated(
            name: name,
            argumentCount: 2,
            AsyncFactory<Service, (Arg1, Arg2)> { resolver, arguments in
                try await factory(resolver, arguments.0, arguments.1)
            }
        )
    }

    /// Registers an async factory that takes three runtime arguments, passed by
    /// `resolveAsync(_:name:arguments:_:_:)`.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments, asynchronously.
    /// - Returns: The registration, to configure further.
    @discardableResult
    public func registerAsync<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: nonisolated(nonsending) @escaping @Sendable (any Resolver, Arg1, Arg2, Arg3) async throws -> Service
    ) -> ServiceEntry<Service> {
        registerIsolated(
            name: name,
            argumentCount: 3,
            AsyncFactory<Service, (Arg1, Arg2, Arg3)> { resolver, arguments in
                try await factory(resolver, arguments.0, arguments.1, arguments.2)
            }
        )
    }

    /// Registers a factory that must run on the main actor, such as one that builds a view model.
    ///
    /// ```swift
    /// container.register(SettingsModel.self, mainActorFactory: { r in
    ///     SettingsModel(store: r.resolve(SettingsStore.self)!)
    /// })
    /// ```
    ///
    /// On the main actor, every resolve runs it in place. Off the main actor, `resolveAsync` runs it on the
    /// main actor; a synchronous resolve returns an existing `.container` instance, and otherwise fails with
    /// ``DIError/mainActorRequired(key:path:)``: it never stops the program.
    ///
    /// Write the `mainActorFactory:` label: a trailing closure always means `factory:`.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - mainActorFactory: Makes an instance, on the main actor.
    /// - Returns: The registration, to configure further.
    @discardableResult
    public func register<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        mainActorFactory: @escaping @MainActor (any Resolver) -> Service
    ) -> ServiceEntry<Service> {
        registerIsolated(
            name: name,
            argumentCount: 0,
            MainActorFactory<Service, Void> { resolver, _ in mainActorFactory(resolver) }
        )
    }

    /// Registers a factory that takes one runtime argument and must run on the main actor.
    ///
    /// ```swift
    /// container.register(DetailModel.self, mainActorFactory: { _, item in DetailModel(item: item) })
    /// let model = try await container.resolveAsync(DetailModel.self, argument: item)
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - mainActorFactory: Makes an instance from a resolver and the argument, on the main actor.
    /// - Returns: The registration, to configure further.
    @discardableResult
    public func register<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        mainActorFactory: @escaping @MainActor (any Resolver, Arg1) -> Service
    ) -> ServiceEntry<Service> {
        registerIsolated(
            name: name,
            argumentCount: 1,
            MainActorFactory<Service, Arg1> { resolver, arguments in
                mainActorFactory(resolver, arguments)
            }
        )
    }

    /// Registers a factory that takes two runtime arguments and must run on the main actor.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - mainActorFactory: Makes an instance from a resolver and the arguments, on the main actor.
    /// - Returns: The registration, to configure further.
    @discardableResult
    public func register<Service, Arg1, Arg2>(
        _ serviceType: Service.Type,
        name: String? = nil,
        mainActorFactory: @escaping @MainActor (any Resolver, Arg1, Arg2) -> Service
    ) -> ServiceEntry<Service> {
        registerIsolated(
            name: name,
            argumentCount: 2,
            MainActorFactory<Service, (Arg1, Arg2)> { resolver, arguments in
                mainActorFactory(resolver, arguments.0, arguments.1)
            }
        )
    }

    /// Registers a factory that takes three runtime arguments and must run on the main actor.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - mainActorFactory: Makes an instance from a resolver and the arguments, on the main actor.
    /// - Returns: The registration, to configure further.
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type,
        name: String? = nil,
        mainActorFactory: @escaping @MainActor (any Resolver, Arg1, Arg2, Arg3) -> Service
    ) -> ServiceEntry<Service> {
        registerIsolated(
            name: name,
            argumentCount: 3,
            MainActorFactory<Service, (Arg1, Arg2, Arg3)> { resolver, arguments in
                mainActorFactory(resolver, arguments.0, arguments.1, arguments.2)
            }
        )
    }

    /// Registers an entry whose factory box is `box`, an ``AsyncFactory`` or ``MainActorFactory``.
    private func registerIsolated<Service, Arguments>(
        name: String?,
        argumentCount: Int,
        _ box: ArgumentFactory<Service, Arguments>
    ) -> ServiceEntry<Service> {
        let plainFactory: ((any Resolver) throws -> Service)?
        if argumentCount == 0 {
            // `Arguments` is `Void` here: the synchronous path calls the plain factory.
            plainFactory = { resolver in try box.body(resolver, () as! Arguments) }
        } else {
            plainFactory = nil
        }
        return register(name: name, argumentCount: argumentCount, plainFactory: plainFactory, box: box)
    }
}

extension Container {
    /// How many tasks wait now for creations in flight in this container's hierarchy: what a test reads
    /// to know that its waiters have joined a creation before it lets the creation end.
    func waitersOnCreationsInFlight() -> Int {
        hierarchy.withLock { hierarchy.flights.values.reduce(0) { $0 + $1.waiterCount } }
    }
}
