import Foundation

/// The entry point of module-based registration: starts the app's root module and the modules it
/// imports, resolves their services, and shuts them down.
///
/// The app declares its root module by conforming `Registry` itself; Keystone declares no conformance
/// and finds the app's at run time:
///
/// ```swift
/// extension Registry: RegistryModule {
///     public static func imports() -> [any RegistryModule.Type] {
///         [StorageModule.self, NetworkModule.self]
///     }
///
///     public static func onStartup() {
///         register { AppSettings() }
///     }
/// }
///
/// Registry.performStartup()             // at launch
/// let settings: AppSettings = Registry.resolve()
/// Registry.performShutdown()            // at exit
/// ```
///
/// `Registry` and ``RegistryModule`` are both public, so Swift requires the root module's functions to be
/// `public` as well; other modules are the app's own types and need not be.
///
/// Services are registered in ``Container/current`` (the process-wide default container, or the one a
/// test binds with ``Container/withCurrent(_:operation:)``), as shared (`.container`-scoped)
/// registrations of the engine; startup state belongs to that container too, so parallel tests each
/// start their own registry. Every call takes the container's lock and may be made from any thread.
///
/// > Warning: ``performStartup()`` stops the program when the app declares no root module
/// > (`extension Registry: RegistryModule`). Calling it again before ``performShutdown()``, or
/// > `performShutdown()` without a completed startup, prints a warning and does nothing.
public enum Registry {
    /// Starts the root module: loads its imports first (each module once, depth first), runs every
    /// module's `onStartup`, then realizes the services whose lifecycle is `.eager`.
    ///
    /// ```swift
    /// @main
    /// struct MyApp: App {
    ///     init() {
    ///         Registry.performStartup()
    ///     }
    ///     // ...
    /// }
    /// ```
    ///
    /// Startup holds the current container's lock from start to end, so no other thread resolves from a
    /// half-started registry.
    ///
    /// > Warning: Stops the program, with the declaration to add, when the app has no
    /// > `extension Registry: RegistryModule`. A second call before ``performShutdown()`` (or a call from
    /// > inside a module's `onStartup`) prints a warning and does nothing. A module's `onStartup` must not
    /// > wait for another thread that resolves from the same container: that thread waits for the lock.
    public static func performStartup() {
        do {
            try startup(root: rootModule, in: .current)
        } catch {
            fatalError(error.description)
        }
    }

    /// Shuts the started modules down: runs each one's `onShutdown` once, in the reverse of the order
    /// they started, then removes the services the modules registered, with their instances.
    ///
    /// ```swift
    /// func applicationWillTerminate(_ application: UIApplication) {
    ///     Registry.performShutdown()
    /// }
    /// ```
    ///
    /// Afterwards the registry is stopped: ``performStartup()`` may start it again, from scratch.
    ///
    /// > Warning: Without a completed ``performStartup()`` in the current container (or from inside a
    /// > module's `onStartup` or `onShutdown`), it prints a warning and does nothing. Objects that still
    /// > hold services keep them; an `@Inject` of a `.lazy` service or a `@LazyInject` not read yet stops the program when read.
    public static func performShutdown() {
        shutdown(in: .current)
    }

    /// Resolves a registered service, realizing it if it does not exist yet.
    ///
    /// ```swift
    /// let settings = Registry.resolve(AppSettings.self)
    /// let storage: Storage = Registry.resolve()
    /// ```
    ///
    /// > Warning: Stops the program when the type is not registered, with a message that names it, the
    /// > registrations of the same type under other service ids, and how to fix it. To resolve a service
    /// > id, use `@Inject("id")` or `Container.current.synchronize().resolve(Type.self, name: "id")`.
    ///
    /// - Parameter type: The type the service is registered as; inferred from the call site if left out.
    /// - Returns: The service's shared instance.
    public static func resolve<Service>(_ type: Service.Type = Service.self) -> Service {
        FrontContext.current.resolveOrStop(type, name: nil, scope: .global, caller: "Registry.resolve()")
    }
}

// MARK: - Startup and shutdown

extension Registry {
    /// The app's root module: its `extension Registry: RegistryModule`, if it declares one.
    static var rootModule: (any RegistryModule.Type)? {
        (Registry.self as Any.Type) as? any RegistryModule.Type
    }

    /// Starts `root` in `context`; throws ``DIError/invalidUsage(message:)`` without a root module.
    static func startup(root: (any RegistryModule.Type)?, in context: FrontContext) throws(DIError) {
        guard let root else {
            throw .invalidUsage(
                message: """
                    Keystone: Registry.performStartup() found no root module. Keystone declares none: the app \
                    declares it by conforming Registry, for example
                        extension Registry: RegistryModule {
                            public static func imports() -> [any RegistryModule.Type] { [MyModule.self] }
                            public static func onStartup() { register { MyService() } }
                        }
                    """
            )
        }
        context.withLock {
            let phase = context.withState { state in
                let phase = state.registry.phase
                if phase == .stopped {
                    state.registry.phase = .starting
                }
                return phase
            }
            guard phase == .stopped else {
                let advice = phase == .started ? " Call Registry.performShutdown() first to start again." : ""
                warn("Registry.performStartup() was called \(phase.situation); it does nothing.\(advice)", in: context)
                return
            }
            context.activated {
                load(root, chain: [], in: context)
            }
            realizeEagerServices(in: context)
            context.withState { state in
                state.registry.phase = .started
            }
        }
    }

    /// Realizes, in registration order, every service of the container that a module registered with
    /// the `.eager` lifecycle, until none is left unrealized: an eager service registered while another
    /// is being realized (by its factory or its `postConstruct`) is realized too. The caller holds the
    /// lock.
    private static func realizeEagerServices(in context: FrontContext) {
        // The entries realized so far, kept until startup ends so that their identities stay unique.
        var realized: [any AnyServiceEntry] = []
        var realizedIDs: Set<ObjectIdentifier> = []
        while true {
            let pending = context.container.frontEntries { $0.isRegistry && $0.lifecycle == .eager }
                .filter { !realizedIDs.contains(ObjectIdentifier($0)) }
            guard !pending.isEmpty else { return }
            for entry in pending {
                realized.append(entry)
                realizedIDs.insert(ObjectIdentifier(entry))
                // An earlier service's factory may have replaced this one, or changed its lifecycle.
                guard context.container.ownEntry(for: entry.key) === entry, let front = entry.front,
                    front.isRegistry, front.lifecycle == .eager
                else { continue }
                front.realize(context)
            }
        }
    }

    /// Starts `module` after its imports, unless it started already in this startup.
    private static func load(
        _ module: any RegistryModule.Type,
        chain: [any RegistryModule.Type],
        in context: FrontContext
    ) {
        let id = ObjectIdentifier(module)
        let isFirst = context.withState { state in
            state.registry.loaded.insert(id).inserted
        }
        guard isFirst else {
            let isNewWarning = context.withState { state in
                state.registry.warnedModules.insert(id).inserted
            }
            guard isNewWarning else { return }
            let importer = chain.last.map { "\($0)" } ?? "?"
            if chain.contains(where: { ObjectIdentifier($0) == id }) {
                let cycle = (chain.drop { ObjectIdentifier($0) != id } + [module]).map { "\($0)" }
                warn(
                    "modules import each other in a cycle: \(cycle.joined(separator: " -> ")). Each module is "
                        + "started once; \(importer) starts before \(module), which it imports.",
                    in: context
                )
            } else {
                warn(
                    "\(module) is imported more than once (again by \(importer)); it is registered once. "
                        + "This warning is printed once per module.",
                    in: context
                )
            }
            return
        }
        for imported in module.imports() {
            load(imported, chain: chain + [module], in: context)
        }
        module.onStartup()
        context.withState { state in
            state.registry.started.append(module)
        }
    }

    /// Shuts down the modules started in `context`.
    static func shutdown(in context: FrontContext) {
        context.withLock {
            let modules = context.withState { state -> [any RegistryModule.Type]? in
                guard state.registry.phase == .started else { return nil }
                state.registry.phase = .stopping
                return state.registry.started
            }
            guard let modules else {
                let phase = context.withState { $0.registry.phase }
                warn("Registry.performShutdown() was called \(phase.situation); it does nothing.", in: context)
                return
            }
            context.activated {
                for module in modules.reversed() {
                    module.onShutdown()
                }
            }
            // Collected before anything is removed; removed outside the bookkeeping's exclusive access,
            // since removing a registration may run the deinit of whatever its factory captured.
            let entries = context.container.frontEntries { $0.isRegistry }
            context.withState { state in
                state.registry = RegistryState(warnings: state.registry.warnings)
            }
            for entry in entries {
                context.container.unregister(entry)
            }
        }
    }

    /// Prints a warning to standard error, and keeps it in the container's registry state.
    static func warn(_ message: String, in context: FrontContext) {
        context.withState { state in
            state.registry.warnings.append(message)
        }
        FileHandle.standardError.write(Data("Keystone: warning: \(message)\n".utf8))
    }
}

// MARK: - Registrations

extension Registry {
    /// Registers a module's service in the engine: a shared (`.container`) registration that
    /// post-constructs its instance, with a ``FrontRecord`` on its entry that says Registry made it and
    /// with which lifecycle.
    static func record<Service>(
        _ type: Service.Type,
        serviceId: String?,
        lifecycle: ServiceOptions.Lifecycle,
        replacing: Bool,
        factory: @escaping () -> Service
    ) -> ServiceOptions {
        let context = FrontContext.current
        return context.withLock {
            let container = context.container
            let key = ServiceKey(serviceType: Service.self, name: serviceId)
            let replaces = container.ownEntry(for: key) != nil
            let order = context.withState { $0.takeOrder() }
            // The registration it replaces is released here, outside the bookkeeping's exclusive access:
            // whatever its factory captured may have a deinit that uses a front.
            let entry = container.register(Service.self, name: serviceId) { _ in factory() }
                .inObjectScope(.container)
                .initCompleted(postConstructAction(for: Service.self))
            entry.front = FrontRecord(
                maker: .registry,
                lifecycle: lifecycle,
                order: order,
                realize: { context in
                    _ = context.resolveOrStop(
                        Service.self,
                        name: serviceId,
                        scope: .global,
                        caller: "Registry, creating an eager service,"
                    )
                }
            )
            if lifecycle == .lazy {
                container.hierarchy.hasLazyFrontServices = true
            }
            if replaces, !replacing {
                warn(
                    "\(key) is registered again; the new registration replaces the earlier one and drops its "
                        + "instance. Use override(...) to replace a registration on purpose.",
                    in: context
                )
            }
            if lifecycle == .eager, context.withState({ $0.registry.phase }) == .started {
                _ = context.resolveOrStop(Service.self, name: serviceId, scope: .global, caller: "Registry")
            }
            return ServiceOptions(context: context, key: key, entry: entry)
        }
    }

    /// Changes the lifecycle recorded on the entry whose identity is `identity`, if it is still the
    /// registration under `key`; realizes the service when it becomes `.eager` after startup completed.
    static func change(
        _ key: ServiceKey,
        identity: UInt64,
        to lifecycle: ServiceOptions.Lifecycle,
        in context: FrontContext
    ) {
        context.withLock {
            guard let entry = context.container.ownEntry(for: key), entry.graphRecordKey == identity,
                var front = entry.front, front.isRegistry
            else { return }
            front.lifecycle = lifecycle
            entry.front = front
            if lifecycle == .lazy {
                context.container.hierarchy.hasLazyFrontServices = true
            }
            if lifecycle == .eager, context.withState({ $0.registry.phase }) == .started {
                front.realize(context)
            }
        }
    }

    /// Whether the registration a resolve of `serviceType` under `name` would reach from `context`, in
    /// its container or an ancestor, is a Registry service with the `.lazy` lifecycle. The caller holds
    /// the lock.
    static func isLazy(_ serviceType: Any.Type, name: String?, in context: FrontContext) -> Bool {
        guard context.container.hierarchy.hasLazyFrontServices else { return false }
        let key = ServiceKey(serviceType: serviceType, name: name)
        return context.container.slot(for: key)?.entry.front?.isLazyRegistryService == true
    }
}

/// What ``Registry`` remembers of one container: its startup phase and the modules started. What it
/// knows of each service (its lifecycle) is on the service's entry, as a ``FrontRecord``.
struct RegistryState {
    enum Phase {
        case stopped
        case starting
        case started
        case stopping

        /// When a call was made, for warnings: "while the registry is already started".
        var situation: String {
            switch self {
            case .stopped: "while the registry is not started in the current container"
            case .starting: "while Registry.performStartup() is running"
            case .started: "while the registry is already started"
            case .stopping: "while Registry.performShutdown() is running"
            }
        }
    }

    var phase = Phase.stopped
    /// The modules whose `onStartup` ran, in that order.
    var started: [any RegistryModule.Type] = []
    /// The modules reached in the current startup, started or being started.
    var loaded: Set<ObjectIdentifier> = []
    /// The modules already warned about being imported again.
    var warnedModules: Set<ObjectIdentifier> = []
    /// Every warning printed for this container, oldest first.
    var warnings: [String] = []
}
