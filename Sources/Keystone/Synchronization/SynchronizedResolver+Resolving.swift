// The `Optional`-returning resolves of `Container+Resolving.swift`, declared again on the synchronized
// view for the same reason: a member of a concrete type is preferred over an app's own `resolve` methods
// on `Resolver`, so `let animal = resolver.resolve(Animal.self)` still gives an `Animal?`. (Swinject's
// `synchronize()` returns a plain `Resolver`, whose requirements win there; Keystone's returns this
// concrete type.) Each forwards to the same forced-inline path, so a call on the view is compiled for its
// types.

extension SynchronizedResolver {
    /// Resolves the unnamed registration of `serviceType` that takes no runtime arguments.
    ///
    /// ```swift
    /// let animal = resolver.resolve(Animal.self)  // Animal?
    /// ```
    ///
    /// - Parameter serviceType: The service type to resolve.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed
    ///   (``Resolver/resolveThrows(_:name:)`` says why).
    @inlinable @inline(__always)
    public func resolve<Service>(_ serviceType: Service.Type) -> Service? {
        resolveOptional(self, serviceType, name: nil, arguments: (), argumentCount: 0)
    }

    /// Resolves the registration of `serviceType` under `name` that takes no runtime arguments.
    ///
    /// ```swift
    /// let cat = resolver.resolve(Animal.self, name: "cat")
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
        resolveOptional(self, serviceType, name: name, arguments: (), argumentCount: 0)
    }

    /// Resolves the unnamed registration of `serviceType` whose factory takes one argument of this static
    /// type, passing it.
    ///
    /// ```swift
    /// let spirit = resolver.resolve(Animal.self, argument: "Spirit")
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - argument: The argument; its static type must be the registered one exactly.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, each Arg>(_ serviceType: Service.Type, argument: repeat each Arg) -> Service? {
        resolveOptionalPacked(self, serviceType, name: nil, repeat each argument)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes one argument of this
    /// static type, passing it.
    ///
    /// ```swift
    /// let spirit = resolver.resolve(Animal.self, name: "horse", argument: "Spirit")
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - argument: The argument; its static type must be the registered one exactly.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, each Arg>(
        _ serviceType: Service.Type,
        name: String?,
        argument: repeat each Arg
    ) -> Service? {
        resolveOptionalPacked(self, serviceType, name: name, repeat each argument)
    }

    /// Resolves the unnamed registration of `serviceType` whose factory takes two or more arguments of
    /// these static types, in this order, passing them.
    ///
    /// ```swift
    /// let lucky = resolver.resolve(Animal.self, arguments: "Lucky", true)
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - arguments: The arguments, each with the static type the registration takes.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, each Arg>(_ serviceType: Service.Type, arguments: repeat each Arg) -> Service? {
        resolveOptionalPacked(self, serviceType, name: nil, repeat each arguments)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes two or more arguments
    /// of these static types, in this order, passing them.
    ///
    /// ```swift
    /// let lucky = resolver.resolve(Animal.self, name: "horse", arguments: "Lucky", true)
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arguments: The arguments, each with the static type the registration takes.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, each Arg>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Arg
    ) -> Service? {
        resolveOptionalPacked(self, serviceType, name: name, repeat each arguments)
    }
}
