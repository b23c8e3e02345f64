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
/// To conform a type of your own (a test double, say), implement
/// ``resolveService(_:name:arguments:argumentCount:)``; every other call is built on it.
///
/// The `Optional`-returning `resolve` calls are requirements of the protocol, as in Swinject, with
/// default implementations: a requirement is preferred over a method of a protocol extension, so an app's
/// own extension that adds a non-optional `resolve` with the same base name can call them from inside:
///
/// ```swift
/// extension Resolver {
///     func resolve<Service>(_ serviceType: Service.Type = Service.self, name: String) -> Service {
///         guard let service = self.resolve(serviceType, name: name) else {
///             fatalError("\(Service.self) named \(name) is not registered")
///         }
///         return service
///     }
/// }
/// ```
public protocol Resolver {
    /// Resolves the unnamed registration of `serviceType` that takes no runtime arguments.
    ///
    /// ```swift
    /// let animal = container.resolve(Animal.self)
    /// ```
    ///
    /// There is no need to implement it: the default implementation is the one to use.
    ///
    /// - Parameter serviceType: The service type to resolve.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed
    ///   (``resolveThrows(_:name:)`` says why).
    func resolve<Service>(_ serviceType: Service.Type) -> Service?

    /// Resolves the registration of `serviceType` under `name` that takes no runtime arguments.
    ///
    /// ```swift
    /// let cat = container.resolve(Animal.self, name: "cat")
    /// ```
    ///
    /// There is no need to implement it: the default implementation is the one to use.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed
    ///   (``resolveThrows(_:name:)`` says why).
    func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service?

    /// Resolves the unnamed registration of `serviceType` whose factory takes one argument of this static
    /// type, passing it.
    ///
    /// ```swift
    /// container.register(Animal.self) { _, name in Horse(name: name) }
    /// let spirit = container.resolve(Animal.self, argument: "Spirit")
    /// ```
    ///
    /// The argument is declared as a parameter pack so that Swift passes it with its static type: a value
    /// typed `any Animal` finds the registration whose factory takes `Animal`. Pass exactly one; for
    /// several, write `arguments:`. There is no need to implement it.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - argument: The argument; its static type must be the registered one exactly.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    func resolve<Service, each Arg>(_ serviceType: Service.Type, argument: repeat each Arg) -> Service?

    /// Resolves the registration of `serviceType` under `name` whose factory takes one argument of this
    /// static type, passing it.
    ///
    /// ```swift
    /// let spirit = container.resolve(Animal.self, name: "horse", argument: "Spirit")
    /// ```
    ///
    /// Pass exactly one argument; for several, write `arguments:`. There is no need to implement it.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - argument: The argument; its static type must be the registered one exactly.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    func resolve<Service, each Arg>(
        _ serviceType: Service.Type,
        name: String?,
        argument: repeat each Arg
    ) -> Service?

    /// Resolves the unnamed registration of `serviceType` whose factory takes two or more arguments of
    /// these static types, in this order, passing them.
    ///
    /// ```swift
    /// container.register(Animal.self) { _, name, running in Horse(name: name, running: running) }
    /// let lucky = container.resolve(Animal.self, arguments: "Lucky", true)
    /// ```
    ///
    /// There is no need to implement it.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - arguments: The arguments, each with the static type the registration takes.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    func resolve<Service, each Arg>(_ serviceType: Service.Type, arguments: repeat each Arg) -> Service?

    /// Resolves the registration of `serviceType` under `name` whose factory takes two or more arguments
    /// of these static types, in this order, passing them.
    ///
    /// ```swift
    /// let lucky = container.resolve(Animal.self, name: "horse", arguments: "Lucky", true)
    /// ```
    ///
    /// There is no need to implement it.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arguments: The arguments, each with the static type the registration takes.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    func resolve<Service, each Arg>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Arg
    ) -> Service?

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
    ///   - argumentCount: How many runtime arguments the call passes: it tells one argument of tuple
    ///     type from several arguments, which are two different registrations.
    /// - Returns: The instance.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    func resolveService<Service, Arguments>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: Arguments,
        argumentCount: Int
    ) throws(DIError) -> Service

    /// Serves a resolve whose types are erased, if this resolver can; an implementation detail of
    /// Keystone's own resolvers.
    ///
    /// The `resolve` overloads try this first: it lets a resolve made through `any Resolver`, as in a
    /// factory, run code compiled for the concrete service type. The default returns `false`, and the
    /// overloads then call ``resolveService(_:name:arguments:argumentCount:)``. There is no need to implement it.
    func _resolve(_ request: _ResolutionRequest) throws(DIError) -> Bool

    /// The container behind this resolver, if it is one of Keystone's own; an implementation detail of
    /// `resolveAsync` and `resolveAll`.
    ///
    /// The default is `nil`: `resolveAsync` through a resolver of your own resolves synchronously, with
    /// ``resolveService(_:name:arguments:argumentCount:)``, and `resolveAll` finds nothing. There is no
    /// need to implement it.
    var _engine: Container? { get }
}

extension Resolver {
    /// `nil`: this resolver resolves `resolveAsync` calls synchronously, and has no registrations to list.
    public var _engine: Container? { nil }

    /// Returns `false`: this resolver serves every resolve through
    /// ``resolveService(_:name:arguments:argumentCount:)``.
    public func _resolve(_ request: _ResolutionRequest) throws(DIError) -> Bool {
        false
    }
}

// The default implementations and the functions below are forced inline, down to the call to `_resolve`.
// On a resolver of concrete type (a `Container`, a `SynchronizedResolver`) a `resolve` requirement is
// devirtualized and the whole path is compiled for the concrete service and argument types. Through an
// `any Resolver` (as in every factory) a `resolve` requirement is reached through the witness table and
// runs the default implementation compiled generically over the service type; it has to be a requirement
// for apps' own `resolve` extensions to compile, as in Swinject. `resolveThrows` and `resolveResult`,
// which are not requirements, are inlined at every call site, `any Resolver` or not.

/// Resolves through ``Resolver/_resolve(_:)`` if `resolver` serves the request, else through
/// ``Resolver/resolveService(_:name:arguments:argumentCount:)``.
@inlinable @inline(__always)
func resolveFast<R: Resolver, Service, Arguments>(
    _ resolver: R,
    _ serviceType: Service.Type,
    name: String?,
    arguments: Arguments,
    argumentCount: Int
) throws(DIError) -> Service {
    // The result is written to uninitialized memory for one `Service` on the stack, and the pointers
    // are passed as `&` arguments rather than through `withUnsafeMutablePointer` and its kin: compiled
    // generically, as the witness of a `resolve` requirement called through `any Resolver` is, a local
    // `Service?` or `withUnsafeTemporaryAllocation` looks up the metadata of `Optional<Service>` or
    // `Result<Service, DIError>` on every call, and each closure adds a thunk. A service that does not
    // fit takes the typed path.
    var storage: ResultStorage = (0, 0, 0, 0, 0, 0, 0, 0)
    guard
        MemoryLayout<Service>.size <= MemoryLayout<ResultStorage>.size,
        MemoryLayout<Service>.alignment <= MemoryLayout<ResultStorage>.alignment
    else {
        return try resolver.resolveService(serviceType, name: name, arguments: arguments, argumentCount: argumentCount)
    }
    var passed = arguments
    let key = ServiceKey.of(Service.self, name: name, Arguments.self, argumentCount)
    if try serveErased(resolver, key, arguments: &passed, result: &storage) {
        return takeResult(&storage, as: Service.self)
    }
    return try resolver.resolveService(serviceType, name: name, arguments: arguments, argumentCount: argumentCount)
}

/// Asks `resolver` to serve a resolve with erased types; `true` if it initialized `result`.
@inlinable @inline(__always)
func serveErased<R: Resolver, Arguments>(
    _ resolver: R,
    _ key: ServiceKey,
    arguments: UnsafePointer<Arguments>,
    result: UnsafeMutableRawPointer
) throws(DIError) -> Bool {
    try resolver._resolve(_ResolutionRequest(key: key, arguments: UnsafeRawPointer(arguments), result: result))
}

/// Moves the instance a served resolve left in `storage` out of it.
@inlinable @inline(__always)
func takeResult<Service>(_ storage: UnsafeMutableRawPointer, as _: Service.Type) -> Service {
    storage.assumingMemoryBound(to: Service.self).move()
}

/// Room on the stack for the instance a type-erased resolve returns: eight words, enough for a class
/// reference, an existential (five words) or a small struct.
@usableFromInline
typealias ResultStorage = (Int, Int, Int, Int, Int, Int, Int, Int)

/// A resolve in the `Optional`-returning style: a failure becomes `nil` and is logged (see
/// ``Container/logHandler``).
@inlinable @inline(__always)
func resolveOptional<R: Resolver, Service, Arguments>(
    _ resolver: R,
    _ serviceType: Service.Type,
    name: String?,
    arguments: Arguments,
    argumentCount: Int
) -> Service? {
    do {
        return try resolveFast(resolver, serviceType, name: name, arguments: arguments, argumentCount: argumentCount)
    } catch {
        Log.failure(error)
        return nil
    }
}

/// A resolve in the `Result`-returning style.
@inlinable @inline(__always)
func resolveAsResult<R: Resolver, Service, Arguments>(
    _ resolver: R,
    _ serviceType: Service.Type,
    name: String?,
    arguments: Arguments,
    argumentCount: Int
) -> Result<Service, DIError> {
    do {
        return .success(
            try resolveFast(resolver, serviceType, name: name, arguments: arguments, argumentCount: argumentCount)
        )
    } catch {
        return .failure(error)
    }
}

/// A resolve with its types erased: the key, a pointer to the arguments, and a pointer to uninitialized
/// memory for one instance of the service type, which a resolver that serves the request initializes.
/// An implementation detail of ``Resolver/_resolve(_:)``.
public struct _ResolutionRequest {
    @usableFromInline let key: ServiceKey
    @usableFromInline let arguments: UnsafeRawPointer
    @usableFromInline let result: UnsafeMutableRawPointer

    @inlinable
    init(key: ServiceKey, arguments: UnsafeRawPointer, result: UnsafeMutableRawPointer) {
        self.key = key
        self.arguments = arguments
        self.result = result
    }
}

extension Resolver {
    /// Resolves the unnamed registration of `serviceType`: the implementation every resolver uses.
    @inlinable @inline(__always)
    public func resolve<Service>(_ serviceType: Service.Type) -> Service? {
        resolveOptional(self, serviceType, name: nil, arguments: (), argumentCount: 0)
    }

    /// Resolves the registration of `serviceType` under `name`: the implementation every resolver uses.
    @inlinable @inline(__always)
    public func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        resolveOptional(self, serviceType, name: name, arguments: (), argumentCount: 0)
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
    @inlinable @inline(__always)
    public func resolveThrows<Service>(_ serviceType: Service.Type, name: String? = nil) throws(DIError) -> Service {
        try resolveFast(self, serviceType, name: name, arguments: (), argumentCount: 0)
    }

    /// Resolves the registration of `serviceType` under `name`, as a `Result`.
    ///
    /// ```swift
    /// switch container.resolveResult(Database.self) {
    /// case .success(let database): use(database)
    /// case .failure(let error): print(error)
    /// }
    /// ```
    @inlinable @inline(__always)
    public func resolveResult<Service>(_ serviceType: Service.Type, name: String? = nil) -> Result<Service, DIError> {
        resolveAsResult(self, serviceType, name: name, arguments: (), argumentCount: 0)
    }
}
