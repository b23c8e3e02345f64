// The `Optional`-returning resolves declared again on `Container` itself, with the shapes of the
// `Resolver` requirements they implement. A member of a concrete type is preferred over a member of a
// protocol extension, so an app that adds non-optional `resolve` methods to `Resolver` can still write
// `let animal = container.resolve(Animal.self)` for an `Animal?`, as with Swinject, whose `Container`
// declares them too. Each forwards to the same forced-inline path as the default implementations in
// `Resolver.swift` and `Resolver+Arguments.swift`, so a call on a `Container` is compiled for its types.

extension Container {
    /// Resolves the unnamed registration of `serviceType` that takes no runtime arguments.
    ///
    /// ```swift
    /// let animal = container.resolve(Animal.self)  // Animal?
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
    /// let cat = container.resolve(Animal.self, name: "cat")
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
    /// let spirit = container.resolve(Animal.self, argument: "Spirit")
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
    /// let spirit = container.resolve(Animal.self, name: "horse", argument: "Spirit")
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
    /// let lucky = container.resolve(Animal.self, arguments: "Lucky", true)
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
    /// let lucky = container.resolve(Animal.self, name: "horse", arguments: "Lucky", true)
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
