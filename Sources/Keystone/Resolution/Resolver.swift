/// Something services are resolved from: a ``Container``, a ``SynchronizedResolver``, or the
/// resolver a factory is handed.
///
/// Every call comes in three styles, each with an optional registration name and 0 to 9 runtime
/// arguments:
///
/// ```swift
/// let animal = resolver.resolve(Animal.self)                        // Animal?  (nil on any failure)
/// let horse = try resolver.resolveThrows(Animal.self, argument: "Spirit") // throws DIError
/// let result = resolver.resolveResult(Animal.self, name: "cat")      // Result<Animal, DIError>
/// ```
///
/// An argument is matched by its static type at the call site, exactly: a value typed `any Animal`
/// finds a registration whose factory takes `Animal`, never one that takes the value's dynamic type.
///
/// To conform a type of your own (a test double, say), implement ``resolveService(_:name:arguments:)``;
/// every other call is built on it.
public protocol Resolver {
    /// Resolves the registration with the given service type, name and argument types, and calls
    /// its factory with `arguments` if it needs a new instance.
    ///
    /// Every `resolve`, `resolveThrows` and `resolveResult` overload calls this one. You rarely call it
    /// yourself; implement it to make a type of your own a `Resolver`.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil`.
    ///   - arguments: `()` for no runtime arguments, the argument for one, a tuple for several.
    /// - Returns: The instance.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    func resolveService<Service, Arguments>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: Arguments
    ) throws(DIError) -> Service
}

extension Resolver {
    /// Resolves the registration of `serviceType` under `name`.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, name: "cat")
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed
    ///   (``resolveThrows(_:name:)`` says why).
    public func resolve<Service>(_ serviceType: Service.Type, name: String? = nil) -> Service? {
        resolveOptional { () throws(DIError) in try resolveService(serviceType, name: name, arguments: ()) }
    }

    /// Resolves the registration of `serviceType` under `name`, or throws why it cannot.
    ///
    /// ```swift
    /// let database = try container.resolveThrows(Database.self)
    /// ```
    ///
    /// - Throws: ``DIError/notRegistered(key:path:candidates:)`` with the near misses,
    ///   ``DIError/circularDependency(path:)`` with the cycle, or
    ///   ``DIError/factoryFailed(key:path:underlying:)`` when a factory threw.
    public func resolveThrows<Service>(_ serviceType: Service.Type, name: String? = nil) throws(DIError) -> Service {
        try resolveService(serviceType, name: name, arguments: ())
    }

    /// Resolves the registration of `serviceType` under `name`, as a `Result`.
    ///
    /// ```swift
    /// switch container.resolveResult(Database.self) {
    /// case .success(let database): use(database)
    /// case .failure(let error): print(error)
    /// }
    /// ```
    public func resolveResult<Service>(_ serviceType: Service.Type, name: String? = nil) -> Result<Service, DIError> {
        resolveAsResult { () throws(DIError) in try resolveService(serviceType, name: name, arguments: ()) }
    }

    /// Runs a resolve for the `Optional`-returning style: a failure becomes `nil` and is logged
    /// (see ``Container/logHandler``).
    func resolveOptional<Service>(_ body: () throws(DIError) -> Service) -> Service? {
        do {
            return try body()
        } catch {
            Log.failure(error)
            return nil
        }
    }

    /// Runs a resolve for the `Result`-returning style.
    func resolveAsResult<Service>(_ body: () throws(DIError) -> Service) -> Result<Service, DIError> {
        do {
            return .success(try body())
        } catch {
            return .failure(error)
        }
    }
}
