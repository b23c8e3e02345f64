// The registrations that take runtime arguments, one overload for every count from 1 to 9 (the one without
// arguments is in `Container.swift`). Each packs the arguments into one tuple and registers under the key
// (service type, name, tuple type); `Resolver+Arguments.swift` holds the matching resolves.
//
// Written out per arity rather than with a parameter pack: Swift 6.3's optimizer miscompiles an escaping
// closure over a pack that it partially applies with the pack's types known but not specialized for (in a
// generic helper of the app, or past the specializer's depth limit); see ARCHITECTURE.md ("Arities").
//
// Forced inline: otherwise, in a large caller, `register` is left out of line, and the closure calls the
// user's factory through a reabstraction thunk on every resolve instead of having it inlined
// (`three-arguments` row: about 10% more instructions).

extension Container {
    /// Registers how to make `serviceType` from one runtime argument, passed by
    /// ``Resolver/resolve(_:argument:)``.
    ///
    /// ```swift
    /// container.register(Animal.self) { _, name in Horse(name: name) }
    /// let spirit = container.resolve(Animal.self, argument: "Spirit")
    /// ```
    ///
    /// The argument types, in order, are part of the registration's key and must match the resolve's
    /// static types exactly. One argument of tuple type `(A, B)` and two arguments `A, B` are two
    /// registrations.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the argument.
    /// - Returns: The registration, to configure further.
    @inlinable @inline(__always)
    @discardableResult
    public func register<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, Arg1) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: 1) {
            (resolver: any Resolver, arguments: Arg1) in
            try factory(resolver, arguments)
        }
    }

    /// Registers how to make `serviceType` from two runtime arguments, passed in this order by
    /// ``Resolver/resolve(_:arguments:)``.
    ///
    /// ```swift
    /// container.register(Animal.self) { _, name, running in Horse(name: name, running: running) }
    /// let lucky = container.resolve(Animal.self, arguments: "Lucky", true)
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable @inline(__always)
    @discardableResult
    public func register<Service, Arg1, Arg2>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, Arg1, Arg2) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: 2) {
            (resolver: any Resolver, arguments: (Arg1, Arg2)) in
            try factory(resolver, arguments.0, arguments.1)
        }
    }

    /// Registers how to make `serviceType` from three runtime arguments, passed in this order by
    /// ``Resolver/resolve(_:arguments:)``.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable @inline(__always)
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, Arg1, Arg2, Arg3) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: 3) {
            (resolver: any Resolver, arguments: (Arg1, Arg2, Arg3)) in
            try factory(resolver, arguments.0, arguments.1, arguments.2)
        }
    }

    /// Registers how to make `serviceType` from four runtime arguments, passed in this order by
    /// ``Resolver/resolve(_:arguments:)``.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable @inline(__always)
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, Arg1, Arg2, Arg3, Arg4) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: 4) {
            (resolver: any Resolver, arguments: (Arg1, Arg2, Arg3, Arg4)) in
            try factory(resolver, arguments.0, arguments.1, arguments.2, arguments.3)
        }
    }

    /// Registers how to make `serviceType` from five runtime arguments, passed in this order by
    /// ``Resolver/resolve(_:arguments:)``.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable @inline(__always)
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: 5) {
            (resolver: any Resolver, arguments: (Arg1, Arg2, Arg3, Arg4, Arg5)) in
            try factory(resolver, arguments.0, arguments.1, arguments.2, arguments.3, arguments.4)
        }
    }

    /// Registers how to make `serviceType` from six runtime arguments, passed in this order by
    /// ``Resolver/resolve(_:arguments:)``.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable @inline(__always)
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: 6) {
            (resolver: any Resolver, arguments: (Arg1, Arg2, Arg3, Arg4, Arg5, Arg6)) in
            try factory(resolver, arguments.0, arguments.1, arguments.2, arguments.3, arguments.4, arguments.5)
        }
    }

    /// Registers how to make `serviceType` from seven runtime arguments, passed in this order by
    /// ``Resolver/resolve(_:arguments:)``.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable @inline(__always)
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: 7) {
            (resolver: any Resolver, arguments: (Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7)) in
            try factory(
                resolver,
                arguments.0,
                arguments.1,
                arguments.2,
                arguments.3,
                arguments.4,
                arguments.5,
                arguments.6
            )
        }
    }

    /// Registers how to make `serviceType` from eight runtime arguments, passed in this order by
    /// ``Resolver/resolve(_:arguments:)``.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable @inline(__always)
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: 8) {
            (resolver: any Resolver, arguments: (Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8)) in
            try factory(
                resolver,
                arguments.0,
                arguments.1,
                arguments.2,
                arguments.3,
                arguments.4,
                arguments.5,
                arguments.6,
                arguments.7
            )
        }
    }

    /// Registers how to make `serviceType` from nine runtime arguments, passed in this order by
    /// ``Resolver/resolve(_:arguments:)``.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable @inline(__always)
    @discardableResult
    public func register<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: 9) {
            (resolver: any Resolver, arguments: (Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9)) in
            try factory(
                resolver,
                arguments.0,
                arguments.1,
                arguments.2,
                arguments.3,
                arguments.4,
                arguments.5,
                arguments.6,
                arguments.7,
                arguments.8
            )
        }
    }
}
