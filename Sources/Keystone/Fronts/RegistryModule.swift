/// A group of service registrations that ``Registry`` starts and shuts down: it registers its services
/// in ``onStartup()``, may import other modules, and may clean up in ``onShutdown()``.
///
/// ```swift
/// enum NetworkModule: RegistryModule {
///     static func imports() -> [any RegistryModule.Type] {
///         [LoggingModule.self]
///     }
///
///     static func onStartup() {
///         register(HTTPClient.self) { URLSessionClient() }
///         lazy { ImageCache() }
///         eager { Reachability() }
///     }
///
///     static func onShutdown() {
///         Registry.resolve(HTTPClient.self).cancelAll()
///     }
/// }
///
/// extension Registry: RegistryModule {   // the root module: its functions are public
///     public static func imports() -> [any RegistryModule.Type] { [NetworkModule.self] }
///     public static func onStartup() {}
/// }
///
/// Registry.performStartup()
/// ```
///
/// Each registration call returns ``ServiceOptions``, whose ``ServiceOptions/lifecycle(_:)`` decides
/// when the service is realized: `.injection` (when an `@Inject` property or ``Registry/resolve(_:)``
/// first asks for it), `.lazy` (on first use of an `@Inject` property, not when the property is
/// initialized) or `.eager` (at the end of ``Registry/performStartup()``). A realized service is shared:
/// every injection gets the same instance.
///
/// > Warning: A module's imports are started before it, and each module once per startup, however many
/// > modules import it; importing one again prints a warning, once. Modules that import each other in a
/// > cycle are started once each, with a warning naming the cycle.
public protocol RegistryModule {
    /// The modules to start before this one. None, unless a module says otherwise.
    ///
    /// ```swift
    /// static func imports() -> [any RegistryModule.Type] {
    ///     [StorageModule.self, NetworkModule.self]
    /// }
    /// ```
    static func imports() -> [any RegistryModule.Type]

    /// Registers the module's services; called once by ``Registry/performStartup()``, after the
    /// imported modules' `onStartup`.
    ///
    /// ```swift
    /// static func onStartup() {
    ///     register { Database() }
    /// }
    /// ```
    static func onStartup()

    /// Cleans up; called once by ``Registry/performShutdown()``, in the reverse of the startup order,
    /// while the module's services can still be resolved. Does nothing unless a module says otherwise.
    ///
    /// ```swift
    /// static func onShutdown() {
    ///     Registry.resolve(Database.self).close()
    /// }
    /// ```
    static func onShutdown()
}

extension RegistryModule {
    /// Makes an instance of a service, for the registration calls of a module.
    ///
    /// ```swift
    /// let makeCache: Factory<ImageCache> = { ImageCache(limit: 100) }
    /// lazy(factory: makeCache)
    /// ```
    public typealias Factory<Service> = () -> Service

    /// No imports: a module that imports nothing need not declare `imports()`.
    ///
    /// ```swift
    /// enum LoggingModule: RegistryModule {
    ///     static func onStartup() { register { Logger() } }   // imports() is []
    /// }
    /// ```
    public static func imports() -> [any RegistryModule.Type] {
        []
    }

    /// Does nothing: a module with nothing to clean up need not declare `onShutdown()`.
    ///
    /// ```swift
    /// enum LoggingModule: RegistryModule {
    ///     static func onStartup() { register { Logger() } }   // onShutdown() does nothing
    /// }
    /// ```
    public static func onShutdown() {}

    /// Registers a service realized on injection: created when an `@Inject` property (or
    /// ``Registry/resolve(_:)``) first asks for it, then shared.
    ///
    /// ```swift
    /// static func onStartup() {
    ///     register { Settings() }                                   // as Settings
    ///     register(Storage.self) { DiskStorage() }                  // as the protocol Storage
    ///     register(Storage.self, serviceId: "memory") { MemoryStorage() }
    /// }
    /// ```
    ///
    /// > Warning: Registering a type and service id that is already registered replaces the earlier
    /// > registration, drops its instance and prints a warning; use ``override(_:serviceId:factory:)`` to
    /// > replace on purpose.
    ///
    /// - Parameters:
    ///   - type: The type to inject the service as, usually a protocol; inferred from the factory if left out.
    ///   - serviceId: Tells apart registrations of the same type: `@Inject("memory") var storage: Storage`.
    ///   - factory: Makes the instance; it may resolve other services with `@Inject` or ``Registry/resolve(_:)``.
    /// - Returns: Options to change the registration's lifecycle.
    @discardableResult
    public static func register<Service>(
        _ type: Service.Type = Service.self,
        serviceId: String? = nil,
        factory: @escaping Factory<Service>
    ) -> ServiceOptions {
        Registry.record(type, serviceId: serviceId, lifecycle: .injection, replacing: false, factory: factory)
    }

    /// Registers a service realized on first use: an `@Inject` property of it resolves when it is first
    /// read, not when its owner is created.
    ///
    /// ```swift
    /// static func onStartup() {
    ///     lazy { ThumbnailRenderer() }
    /// }
    /// ```
    ///
    /// > Warning: Only the property wrappers (`@Inject`, `@OptionalInject`) defer to the first read;
    /// > ``Registry/resolve(_:)`` of a lazy service realizes it at once, since the call is its first use.
    ///
    /// - Parameters:
    ///   - type: The type to inject the service as; inferred from the factory if left out.
    ///   - serviceId: Tells apart registrations of the same type.
    ///   - factory: Makes the instance.
    /// - Returns: Options to change the registration's lifecycle.
    @discardableResult
    public static func lazy<Service>(
        _ type: Service.Type = Service.self,
        serviceId: String? = nil,
        factory: @escaping Factory<Service>
    ) -> ServiceOptions {
        Registry.record(type, serviceId: serviceId, lifecycle: .lazy, replacing: false, factory: factory)
    }

    /// Registers a service realized on startup: ``Registry/performStartup()`` creates it after every
    /// module's `onStartup` ran.
    ///
    /// ```swift
    /// static func onStartup() {
    ///     eager { CrashReporter() }
    /// }
    /// ```
    ///
    /// > Warning: An eager service registered after startup completed (outside `onStartup`) is created at
    /// > once.
    ///
    /// - Parameters:
    ///   - type: The type to inject the service as; inferred from the factory if left out.
    ///   - serviceId: Tells apart registrations of the same type.
    ///   - factory: Makes the instance.
    /// - Returns: Options to change the registration's lifecycle.
    @discardableResult
    public static func eager<Service>(
        _ type: Service.Type = Service.self,
        serviceId: String? = nil,
        factory: @escaping Factory<Service>
    ) -> ServiceOptions {
        Registry.record(type, serviceId: serviceId, lifecycle: .eager, replacing: false, factory: factory)
    }

    /// Replaces the registration of a type and service id on purpose, without the "registered again"
    /// warning; realized on injection unless ``ServiceOptions/lifecycle(_:)`` says otherwise.
    ///
    /// ```swift
    /// enum TestDoubles: RegistryModule {
    ///     static func imports() -> [any RegistryModule.Type] { [NetworkModule.self] }
    ///     static func onStartup() {
    ///         override(HTTPClient.self) { StubClient() }
    ///     }
    /// }
    /// ```
    ///
    /// > Warning: The replaced registration's instance is dropped; objects that already hold it keep it.
    ///
    /// - Parameters:
    ///   - type: The type to inject the service as; inferred from the factory if left out.
    ///   - serviceId: Tells apart registrations of the same type.
    ///   - factory: Makes the instance.
    /// - Returns: Options to change the registration's lifecycle.
    @discardableResult
    public static func override<Service>(
        _ type: Service.Type = Service.self,
        serviceId: String? = nil,
        factory: @escaping Factory<Service>
    ) -> ServiceOptions {
        Registry.record(type, serviceId: serviceId, lifecycle: .injection, replacing: true, factory: factory)
    }
}
