/// A dependency-injection container: registrations of how to make each service, and the instances
/// their scopes keep.
///
/// Register a factory per service, then resolve; a factory resolves its own dependencies from the
/// resolver it is handed:
///
/// ```swift
/// let container = Container()
/// container.register(Animal.self) { _ in Cat(name: "Mimi") }
/// container.register(Person.self) { r in PetOwner(name: "Stephen", pet: r.resolve(Animal.self)!) }
///
/// let person = container.resolve(Person.self)!
/// ```
///
/// A registration is identified by its ``ServiceKey``: the service type, an optional name, and the
/// types of the runtime arguments its factory takes. Registering the same key again replaces the
/// earlier registration and discards its instance.
///
/// Containers form hierarchies: a child resolves what it lacks from its parent, a parent never sees
/// its children's registrations, and a parent's `.container`-scoped instance is shared with its
/// children. One recursive lock serves the whole hierarchy (see ``synchronize()``).
///
/// > Warning: A `Container` is not thread-safe by itself. Register on one thread, then hand
/// > ``synchronize()``'s view to the threads that resolve. Debug builds stop with an explanation when
/// > a second thread enters a container while a resolve is in flight.
public final class Container {
    /// The container this one resolves from when it lacks a registration.
    public let parent: Container?
    /// The scope of new registrations unless they say otherwise.
    public let defaultObjectScope: ObjectScope
    @usableFromInline let hierarchy: Hierarchy
    /// This container's own registrations. The resolve path only reads it; every change happens under
    /// the hierarchy's lock.
    @usableFromInline let table = RegistrationTable()
    /// Changed and read under the hierarchy's lock only, in single statements: no dynamic exclusivity
    /// checks (`register` row: 1.5% more instructions with them).
    @exclusivity(unchecked) private var behaviors: [any Behavior] = []
    /// What entries hold to reach this container: a weak reference would give the container a side
    /// table, and every retain and release of it would then take the slow path.
    let token: ContainerToken
    /// The fronts' bookkeeping for this container (Registry startup state, what the facades registered),
    /// opaque to the engine and read and written under the hierarchy's lock.
    var frontBook: AnyObject?

    /// Creates a container.
    ///
    /// ```swift
    /// let app = Container { container in
    ///     container.register(Database.self) { _ in SQLiteDatabase() }.inObjectScope(.container)
    /// }
    /// let feature = Container(parent: app)
    /// ```
    ///
    /// - Parameters:
    ///   - parent: The container to resolve from when this one lacks a registration. The child shares
    ///     the parent's lock and its `.container`-scoped instances.
    ///   - defaultObjectScope: The scope of registrations that do not call `inObjectScope`.
    ///   - behaviors: Behaviors told about each registration.
    ///   - registeringClosure: Registers services on the new container.
    public init(
        parent: Container? = nil,
        defaultObjectScope: ObjectScope = .graph,
        behaviors: [any Behavior] = [],
        registeringClosure: (Container) -> Void = { _ in }
    ) {
        self.parent = parent
        self.defaultObjectScope = defaultObjectScope
        self.hierarchy = parent?.hierarchy ?? Hierarchy()
        self.token = ContainerToken(hierarchy: hierarchy, depth: parent.map { $0.token.depth + 1 } ?? 0)
        for behavior in behaviors {
            addBehavior(behavior)
        }
        token.container = self
        registeringClosure(self)
    }

    deinit {
        token.container = nil
    }

    // MARK: - Registering

    /// Registers how to make `serviceType`.
    ///
    /// The factory is called when a resolve needs a new instance, with a resolver to resolve the
    /// instance's dependencies from. It may throw; the resolve then fails with
    /// ``DIError/factoryFailed(key:path:underlying:)``, and a ``DIError`` thrown by a nested
    /// `resolveThrows` is passed on as it is:
    ///
    /// ```swift
    /// container.register(Person.self) { r in
    ///     PetOwner(name: "Stephen", pet: try r.resolveThrows(Animal.self))
    /// }
    /// ```
    ///
    /// The registration is in the container, and visible to every thread, when `register` returns. A call
    /// chained to it (`inObjectScope`, `initCompleted`, `implements`) takes the container's lock and
    /// applies at once, so a resolve on another thread in between sees the registration with its
    /// defaults. To add registrations whole while other threads resolve, make them inside
    /// ``SynchronizedResolver/withContainer(_:)``.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as, usually a protocol.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance.
    /// - Returns: The registration, to configure its scope, `initCompleted` actions and forwarded types.
    @inlinable
    @discardableResult
    public func register<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver) throws -> Service
    ) -> ServiceEntry<Service> {
        add(
            ServiceEntry(
                key: ServiceKey(serviceType: Service.self, name: name, argumentsType: Void.self, argumentCount: 0),
                scope: defaultObjectScope,
                plainFactory: factory,
                argumentFactory: nil,
                resolveErased: ServiceEntry<Service>.erasedResolve(taking: Void.self),
                completesGraph: ServiceEntry<Service>.completeGraph(of:remembering:)
            )
        )
    }

    /// Registers how to make `serviceType` with a factory that needs no resolver, as in the actor front's
    /// style: `container.register(Clock.self) { SystemClock() }`.
    ///
    /// ```swift
    /// await Container.bootstrap { container in
    ///     container.register(UserService.self) { UserServiceImpl() }
    /// }
    /// ```
    ///
    /// It is the same registration as `register(serviceType, name: name) { _ in try factory() }`.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as, usually a protocol.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance.
    /// - Returns: The registration, to configure its scope, `initCompleted` actions and forwarded types.
    @inlinable
    @discardableResult
    public func register<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping () throws -> Service
    ) -> ServiceEntry<Service> {
        register(serviceType, name: name) { (_: any Resolver) throws -> Service in try factory() }
    }

    /// Registers a factory that takes runtime arguments; the overloads of `register` with arguments
    /// call it with the arguments packed into one tuple, and their count.
    @inlinable
    func registerPacked<Service, Arguments>(
        _ serviceType: Service.Type,
        name: String?,
        argumentCount: Int,
        factory: @escaping (any Resolver, Arguments) throws -> Service
    ) -> ServiceEntry<Service> {
        register(name: name, argumentCount: argumentCount, plainFactory: nil, box: ArgumentFactory(factory))
    }

    /// Registers an entry whose factory takes `Arguments` (`argumentCount` of them), boxed in `box`, and,
    /// without arguments, called through `plainFactory`: the registration with arguments, and the async
    /// and main-actor ones (`Container+Async.swift`).
    @inlinable
    func register<Service, Arguments>(
        name: String?,
        argumentCount: Int,
        plainFactory: ((any Resolver) throws -> Service)?,
        box: ArgumentFactory<Service, Arguments>
    ) -> ServiceEntry<Service> {
        add(
            ServiceEntry(
                key: ServiceKey(
                    serviceType: Service.self,
                    name: name,
                    argumentsType: Arguments.self,
                    argumentCount: argumentCount
                ),
                scope: defaultObjectScope,
                plainFactory: plainFactory,
                argumentFactory: box,
                resolveErased: ServiceEntry<Service>.erasedResolve(taking: Arguments.self),
                completesGraph: ServiceEntry<Service>.completeGraph(of:remembering:)
            )
        )
    }

    /// Puts `entry` in the table and tells the behaviors; inlined, so that the entry's conformance to
    /// `AnyServiceEntry` is known at compile time.
    @inlinable
    func add<Service>(_ entry: ServiceEntry<Service>) -> ServiceEntry<Service> {
        let behaviors = addRegistration(entry, under: entry.key)
        if !behaviors.isEmpty {
            notify(behaviors, of: Service.self, registeredTo: entry, name: entry.key.name)
        }
        return entry
    }

    /// Puts `entry` in the table under `key`, its key (read by the caller, which knows the entry's type,
    /// rather than through the protocol), holding the hierarchy's lock, and returns the behaviors to
    /// tell: from here on every thread sees the registration (API: publication).
    @usableFromInline
    func addRegistration(_ entry: any AnyServiceEntry, under key: ServiceKey) -> [any Behavior] {
        let (told, dropped) = withHierarchyLock { () -> ([any Behavior], [Disposal]) in
            entry.owner = token
            var dropped: [Disposal] = []
            if let replaced = insert(Slot(key: key, entry: entry, isForwarded: false)) {
                discardUnreachable(replaced, into: &dropped)
            }
            return (behaviors, dropped)
        }
        Disposal.runDropped(dropped)
        return told
    }

    /// Puts `slot` in the table and returns the entry it replaced, if any, kept alive until the call in
    /// flight ends. The caller holds the lock and discards what is returned once the table is settled.
    private func insert(_ slot: Slot) -> (any AnyServiceEntry)? {
        guard let replaced = table.insert(slot), replaced.entry !== slot.entry else { return nil }
        hierarchy.state.retire(replaced.entry)
        return replaced.entry
    }

    /// Drops the instance of `entry`, just replaced, if no key of this container leads to it any
    /// longer: an entry replaced under its own key keeps its instance while a key forwarded to it
    /// (`implements`) still reaches it, as in Swinject. The caller holds the lock.
    private func discardUnreachable(_ entry: any AnyServiceEntry, into dropped: inout [Disposal]) {
        if !table.references(entry) {
            drop(entry, into: &dropped)
        }
    }

    /// Drops the instances `entry` holds, adding those with disposal handlers to `dropped`, for the
    /// caller to run once it has left the lock (``Disposal/runDropped(_:)``). An entry of another
    /// container, reached here through a key forwarded to it, is left alone: its own container holds
    /// its instances. The caller holds the lock.
    func drop(_ entry: any AnyServiceEntry, into dropped: inout [Disposal]) {
        guard entry.owner === token || entry.isOrphaned else { return }
        // A child may still forward a key to it: it is that child's to end from now on.
        entry.isOrphaned = true
        entry.takeForDisposal(into: &dropped)
        entry.discardInstance()
        hierarchy.state.noteDropped(entry)
    }

    @usableFromInline
    func notify<Type, Service>(
        _ behaviors: [any Behavior],
        of type: Type.Type,
        registeredTo entry: ServiceEntry<Service>,
        name: String?
    ) {
        for behavior in behaviors {
            behavior.container(self, didRegisterType: type, toService: entry, withName: name)
        }
    }

    /// Makes `type` resolve through `service`: the same factory, scope, instances and
    /// `initCompleted` actions, for the same runtime arguments.
    ///
    /// ```swift
    /// let dog = container.register(Dog.self) { _ in Dog() }
    /// container.forward(Animal.self, to: dog)
    /// ```
    ///
    /// Resolving `type` fails with ``DIError/typeMismatch(key:actualType:)`` if the instance is not
    /// a `type`. ``ServiceEntry/implements(_:name:)`` does the same from the entry.
    ///
    /// - Parameters:
    ///   - type: The type to resolve through `service`.
    ///   - name: The registration name `type` is resolved under.
    ///   - service: The registration to forward to.
    public func forward<Forwarded, Service>(
        _ type: Forwarded.Type,
        name: String? = nil,
        to service: ServiceEntry<Service>
    ) {
        let slot = Slot(
            key: service.key.with(serviceType: Forwarded.self, name: name),
            entry: service,
            isForwarded: true
        )
        let (told, dropped) = withHierarchyLock { () -> ([any Behavior], [Disposal]) in
            var dropped: [Disposal] = []
            if let replaced = insert(slot) {
                discardUnreachable(replaced, into: &dropped)
            }
            return (self.behaviors, dropped)
        }
        Disposal.runDropped(dropped)
        notify(told, of: Forwarded.self, registeredTo: service, name: name)
    }

    /// Adds a behavior, told about every registration made from now on.
    public func addBehavior(_ behavior: any Behavior) {
        withHierarchyLock { behaviors.append(behavior) }
    }

    // MARK: - Removing and resetting

    /// Removes every registration of this container (not of its parent) and the instances they hold,
    /// running the synchronous disposal handlers of those instances (see ``dispose()``) once the
    /// registrations are gone.
    public func removeAll() {
        let dropped = withHierarchyLock { () -> [Disposal] in
            let removed = entries { _ in true }
            // The table is empty before any instance goes: a deinitializer may register again.
            let storage = table.removeAll()
            var dropped: [Disposal] = []
            for entry in removed {
                hierarchy.state.retire(entry)
                drop(entry, into: &dropped)
            }
            withExtendedLifetime(storage) {}
            return dropped
        }
        Disposal.runDropped(dropped)
    }

    /// Discards the instances held by registrations in `objectScope`, in this container and its
    /// ancestors; the next resolve creates new ones.
    ///
    /// ```swift
    /// container.resetObjectScope(.container)
    /// ```
    ///
    /// The synchronous disposal handlers (``ServiceEntry/onDispose(_:)``) of the `.container` and
    /// `.multiton` instances it drops run once the reset is done, newest completion first, as
    /// ``dispose()`` runs them; an error they throw goes to ``logHandler``.
    public func resetObjectScope(_ objectScope: ObjectScope) {
        resetObjectScope(objectScope as any ObjectScopeProtocol)
    }

    /// Discards the instances held by registrations in a scope of your own, in this container and its
    /// ancestors.
    public func resetObjectScope(_ objectScope: any ObjectScopeProtocol) {
        let dropped = withHierarchyLock { () -> [Disposal] in
            var dropped: [Disposal] = []
            var container: Container? = self
            while let current = container {
                current.discardInstances(of: current.entries { $0.entry.objectScope === objectScope }, into: &dropped)
                container = current.parent
            }
            return dropped
        }
        Disposal.runDropped(dropped)
    }

    /// Discards the instances of `serviceType` held by registrations in `objectScope`, in this
    /// container and its ancestors, as Swinject does: keys forwarded to a registration count as its
    /// service type, and a container with no key of `serviceType` leaves its ancestors alone.
    ///
    /// ```swift
    /// container.resetObjectScope(.container, serviceType: Session.self)
    /// ```
    public func resetObjectScope(_ objectScope: ObjectScope, serviceType: Any.Type) {
        resetObjectScope(objectScope as any ObjectScopeProtocol, serviceType: serviceType)
    }

    /// Discards the instances of `serviceType` held by registrations in a scope of your own, in this
    /// container and its ancestors, by the same rules as the `ObjectScope` overload.
    public func resetObjectScope(_ objectScope: any ObjectScopeProtocol, serviceType: Any.Type) {
        let dropped = withHierarchyLock { () -> [Disposal] in
            var dropped: [Disposal] = []
            var container: Container? = self
            while let current = container {
                let matching = current.entries { $0.key.serviceType == serviceType }
                guard !matching.isEmpty else { break }
                current.discardInstances(of: matching.filter { $0.objectScope === objectScope }, into: &dropped)
                container = current.parent
            }
            return dropped
        }
        Disposal.runDropped(dropped)
    }

    /// The distinct entries of this container that a slot accepted by `matches` leads to, forwarded
    /// slots included. The caller holds the lock.
    private func entries(where matches: (Slot) -> Bool) -> [any AnyServiceEntry] {
        var found: [any AnyServiceEntry] = []
        var seen: Set<ObjectIdentifier> = []
        table.forEach { slot in
            if matches(slot), seen.insert(ObjectIdentifier(slot.entry)).inserted {
                found.append(slot.entry)
            }
        }
        return found
    }

    /// Discards the instances `entries` hold, after the table walk that found them, adding those with
    /// disposal handlers to `dropped`. A reset reaches an entry through any key that leads to it, its
    /// own or forwarded, as in Swinject.
    private func discardInstances(of entries: [any AnyServiceEntry], into dropped: inout [Disposal]) {
        for entry in entries {
            entry.takeForDisposal(into: &dropped)
            entry.discardInstance()
            hierarchy.state.noteDropped(entry)
        }
    }

    /// Removes the registration `entry` if it is still the one registered under its key, with the keys
    /// forwarded to it: a release handler must not remove a registration that replaced the one it was
    /// made for.
    ///
    /// - Returns: Whether it was removed.
    @discardableResult
    func unregister(_ entry: any AnyServiceEntry) -> Bool {
        var dropped: [Disposal] = []
        defer { Disposal.runDropped(dropped) }
        return withHierarchyLock {
            guard let removed = table.remove(entry.key, if: { $0.entry === entry && !$0.isForwarded }) else {
                return false
            }
            var forwarded: [ServiceKey] = []
            table.forEach { slot in
                if slot.isForwarded, slot.entry === entry {
                    forwarded.append(slot.key)
                }
            }
            for key in forwarded {
                table.remove(key)
            }
            hierarchy.state.retire(removed.entry)
            drop(removed.entry, into: &dropped)
            return true
        }
    }

    // MARK: - Queries

    /// Whether `serviceType` is registered under `name` here or in an ancestor, with any argument types.
    ///
    /// ```swift
    /// if !container.hasAnyRegistration(of: Analytics.self) {
    ///     container.register(Analytics.self) { _ in NoAnalytics() }
    /// }
    /// ```
    public func hasAnyRegistration<Service>(of serviceType: Service.Type, name: String? = nil) -> Bool {
        withHierarchyLock {
            var container: Container? = self
            while let current = container {
                var found = false
                current.table.forEachKey(of: serviceType) { found = found || $0.name == name }
                if found {
                    return true
                }
                container = current.parent
            }
            return false
        }
    }

    /// Runs `body` under the hierarchy's lock, so that registering and resetting never race with the
    /// resolves of a synchronized view, nor with each other.
    func withHierarchyLock<Result>(_ body: () -> Result) -> Result {
        hierarchy.withLock(body)
    }
}

extension Container: CustomStringConvertible {
    /// The container's own registrations, one per line, sorted:
    /// `{ Service: Animal, Name: "cat", Factory: Resolver -> Animal, ObjectScope: graph }`.
    public var description: String {
        var lines: [String] = []
        withHierarchyLock {
            table.forEach { slot in
                lines.append("    { " + slot.entry.describe(as: slot.key) + " }")
            }
        }
        return "[" + lines.sorted().map { "\n" + $0 }.joined(separator: ",") + "\n]"
    }
}
