// The registrations that take runtime arguments, one overload per argument count from 1 to 9.
// Each packs its arguments into one tuple and registers under the key (service type, name, tuple type);
// `Resolver+Arguments.swift` holds the matching resolves.

extension Container {
    /// Registers how to make `serviceType` from one runtime argument, passed by
    /// ``Resolver/resolve(_:name:argument:)``.
    ///
    /// ```swift
    /// container.register(Animal.self) { _, name in Horse(name: name) }
    /// let spirit = container.resolve(Animal.self, argument: "Spirit")
    /// ```
    ///
    /// The argument types are part of the registration's key and must match the resolve's exactly.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the argument.
    /// - Returns: The registration, to configure further.
    @inlinable
    @discardableResult
    public func register<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, Arg1) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: 1, factory: factory)
    }

    /// Registers how to make `serviceType` from two runtime arguments, passed by
    /// ``Resolver/resolve(_:name:arguments:_:)``.
    ///
    /// ```swift
    /// container.register(Animal.self) { _, name, running in Horse(name: name, running: running) }
    /// let lucky = container.resolve(Animal.self, arguments: "Lucky", true)
    /// ```
    ///
    /// The argument types are part of the registration's key and must match the resolve's exactly.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable
    @discardableResult
    public func register<Service, Arg1, Arg2>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, Arg1, Arg2) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: 2) { (resolver: any Resolver, arguments: (Arg1, Arg2)) in
            try factory(resolver, arguments.0, arguments.1)
        }
    }

    /// Registers how to make `serviceType` from three runtime arguments, passed by
    /// ``Resolver/resolve(_:name:arguments:_:_:)``.
    ///
    /// The argument types are part of the registration's key and must match the resolve's exactly.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable
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

    /// Registers how to make `serviceType` from four runtime arguments, passed by
    /// ``Resolver/resolve(_:name:arguments:_:_:_:)``.
    ///
    /// The argument types are part of the registration's key and must match the resolve's exactly.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable
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

    /// Registers how to make `serviceType` from five runtime arguments, passed by
    /// ``Resolver/resolve(_:name:arguments:_:_:_:_:)``.
    ///
    /// The argument types are part of the registration's key and must match the resolve's exactly.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable
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

    /// Registers how to make `serviceType` from six runtime arguments, passed by
    /// ``Resolver/resolve(_:name:arguments:_:_:_:_:_:)``.
    ///
    /// The argument types are part of the registration's key and must match the resolve's exactly.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable
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

    /// Registers how to make `serviceType` from seven runtime arguments, passed by
    /// ``Resolver/resolve(_:name:arguments:_:_:_:_:_:_:)``.
    ///
    /// The argument types are part of the registration's key and must match the resolve's exactly.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable
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

    /// Registers how to make `serviceType` from eight runtime arguments, passed by
    /// ``Resolver/resolve(_:name:arguments:_:_:_:_:_:_:_:)``.
    ///
    /// The argument types are part of the registration's key and must match the resolve's exactly.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable
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

    /// Registers how to make `serviceType` from nine runtime arguments, passed by
    /// ``Resolver/resolve(_:name:arguments:_:_:_:_:_:_:_:_:)``.
    ///
    /// The argument types are part of the registration's key and must match the resolve's exactly.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable
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
