// The resolves that pass runtime arguments, in the three styles (Optional, throwing, Result), one
// overload per argument count from 1 to 9. `Container+Arguments.swift` holds the matching registrations.
//
// Arguments are taken as autoclosures, evaluated once at the start of the call. Besides deferring
// nothing, this keeps each argument's static type: a plain generic parameter would open an existential
// argument (SE-0352) and look for a registration taking the value's dynamic type instead.

extension Resolver {
    /// Resolves the registration of `serviceType` under `name` whose factory takes one
    /// argument of this type, passing it.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The argument; its static type must be the registered one exactly.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        argument arg1: @autoclosure () -> Arg1
    ) -> Service? {
        let arguments = arg1()
        return resolveOptional(self, serviceType, name: name, arguments: arguments, argumentCount: 1)
    }

    /// Resolves, or throws why it cannot, the registration of `serviceType` under `name` whose factory takes one
    /// argument of this type, passing it.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The argument; its static type must be the registered one exactly.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable @inline(__always)
    public func resolveThrows<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        argument arg1: @autoclosure () -> Arg1
    ) throws(DIError) -> Service {
        try resolveFast(self, serviceType, name: name, arguments: arg1(), argumentCount: 1)
    }

    /// Resolves, as a `Result`, the registration of `serviceType` under `name` whose factory takes one
    /// argument of this type, passing it.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The argument; its static type must be the registered one exactly.
    /// - Returns: The instance, or the ``DIError`` that says what failed.
    @inlinable @inline(__always)
    public func resolveResult<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        argument arg1: @autoclosure () -> Arg1
    ) -> Result<Service, DIError> {
        let arguments = arg1()
        return resolveAsResult(self, serviceType, name: name, arguments: arguments, argumentCount: 1)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes two
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, Arg1, Arg2>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2
    ) -> Service? {
        let arguments = (arg1(), arg2())
        return resolveOptional(self, serviceType, name: name, arguments: arguments, argumentCount: 2)
    }

    /// Resolves, or throws why it cannot, the registration of `serviceType` under `name` whose factory takes two
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable @inline(__always)
    public func resolveThrows<Service, Arg1, Arg2>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2
    ) throws(DIError) -> Service {
        try resolveFast(self, serviceType, name: name, arguments: (arg1(), arg2()), argumentCount: 2)
    }

    /// Resolves, as a `Result`, the registration of `serviceType` under `name` whose factory takes two
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    /// - Returns: The instance, or the ``DIError`` that says what failed.
    @inlinable @inline(__always)
    public func resolveResult<Service, Arg1, Arg2>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2
    ) -> Result<Service, DIError> {
        let arguments = (arg1(), arg2())
        return resolveAsResult(self, serviceType, name: name, arguments: arguments, argumentCount: 2)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes three
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3
    ) -> Service? {
        let arguments = (arg1(), arg2(), arg3())
        return resolveOptional(self, serviceType, name: name, arguments: arguments, argumentCount: 3)
    }

    /// Resolves, or throws why it cannot, the registration of `serviceType` under `name` whose factory takes three
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable @inline(__always)
    public func resolveThrows<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3
    ) throws(DIError) -> Service {
        try resolveFast(self, serviceType, name: name, arguments: (arg1(), arg2(), arg3()), argumentCount: 3)
    }

    /// Resolves, as a `Result`, the registration of `serviceType` under `name` whose factory takes three
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    /// - Returns: The instance, or the ``DIError`` that says what failed.
    @inlinable @inline(__always)
    public func resolveResult<Service, Arg1, Arg2, Arg3>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3
    ) -> Result<Service, DIError> {
        let arguments = (arg1(), arg2(), arg3())
        return resolveAsResult(self, serviceType, name: name, arguments: arguments, argumentCount: 3)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes four
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4
    ) -> Service? {
        let arguments = (arg1(), arg2(), arg3(), arg4())
        return resolveOptional(self, serviceType, name: name, arguments: arguments, argumentCount: 4)
    }

    /// Resolves, or throws why it cannot, the registration of `serviceType` under `name` whose factory takes four
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable @inline(__always)
    public func resolveThrows<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4
    ) throws(DIError) -> Service {
        try resolveFast(self, serviceType, name: name, arguments: (arg1(), arg2(), arg3(), arg4()), argumentCount: 4)
    }

    /// Resolves, as a `Result`, the registration of `serviceType` under `name` whose factory takes four
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    /// - Returns: The instance, or the ``DIError`` that says what failed.
    @inlinable @inline(__always)
    public func resolveResult<Service, Arg1, Arg2, Arg3, Arg4>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4
    ) -> Result<Service, DIError> {
        let arguments = (arg1(), arg2(), arg3(), arg4())
        return resolveAsResult(self, serviceType, name: name, arguments: arguments, argumentCount: 4)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes five
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5
    ) -> Service? {
        let arguments = (arg1(), arg2(), arg3(), arg4(), arg5())
        return resolveOptional(self, serviceType, name: name, arguments: arguments, argumentCount: 5)
    }

    /// Resolves, or throws why it cannot, the registration of `serviceType` under `name` whose factory takes five
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable @inline(__always)
    public func resolveThrows<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5
    ) throws(DIError) -> Service {
        try resolveFast(
            self,
            serviceType,
            name: name,
            arguments: (arg1(), arg2(), arg3(), arg4(), arg5()),
            argumentCount: 5
        )
    }

    /// Resolves, as a `Result`, the registration of `serviceType` under `name` whose factory takes five
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    /// - Returns: The instance, or the ``DIError`` that says what failed.
    @inlinable @inline(__always)
    public func resolveResult<Service, Arg1, Arg2, Arg3, Arg4, Arg5>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5
    ) -> Result<Service, DIError> {
        let arguments = (arg1(), arg2(), arg3(), arg4(), arg5())
        return resolveAsResult(self, serviceType, name: name, arguments: arguments, argumentCount: 5)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes six
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6
    ) -> Service? {
        let arguments = (arg1(), arg2(), arg3(), arg4(), arg5(), arg6())
        return resolveOptional(self, serviceType, name: name, arguments: arguments, argumentCount: 6)
    }

    /// Resolves, or throws why it cannot, the registration of `serviceType` under `name` whose factory takes six
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable @inline(__always)
    public func resolveThrows<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6
    ) throws(DIError) -> Service {
        try resolveFast(
            self,
            serviceType,
            name: name,
            arguments: (arg1(), arg2(), arg3(), arg4(), arg5(), arg6()),
            argumentCount: 6
        )
    }

    /// Resolves, as a `Result`, the registration of `serviceType` under `name` whose factory takes six
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    /// - Returns: The instance, or the ``DIError`` that says what failed.
    @inlinable @inline(__always)
    public func resolveResult<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6
    ) -> Result<Service, DIError> {
        let arguments = (arg1(), arg2(), arg3(), arg4(), arg5(), arg6())
        return resolveAsResult(self, serviceType, name: name, arguments: arguments, argumentCount: 6)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes seven
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    ///   - arg7: The seventh argument.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6,
        _ arg7: @autoclosure () -> Arg7
    ) -> Service? {
        let arguments = (arg1(), arg2(), arg3(), arg4(), arg5(), arg6(), arg7())
        return resolveOptional(self, serviceType, name: name, arguments: arguments, argumentCount: 7)
    }

    /// Resolves, or throws why it cannot, the registration of `serviceType` under `name` whose factory takes seven
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    ///   - arg7: The seventh argument.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable @inline(__always)
    public func resolveThrows<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6,
        _ arg7: @autoclosure () -> Arg7
    ) throws(DIError) -> Service {
        try resolveFast(
            self,
            serviceType,
            name: name,
            arguments: (arg1(), arg2(), arg3(), arg4(), arg5(), arg6(), arg7()),
            argumentCount: 7
        )
    }

    /// Resolves, as a `Result`, the registration of `serviceType` under `name` whose factory takes seven
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    ///   - arg7: The seventh argument.
    /// - Returns: The instance, or the ``DIError`` that says what failed.
    @inlinable @inline(__always)
    public func resolveResult<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6,
        _ arg7: @autoclosure () -> Arg7
    ) -> Result<Service, DIError> {
        let arguments = (arg1(), arg2(), arg3(), arg4(), arg5(), arg6(), arg7())
        return resolveAsResult(self, serviceType, name: name, arguments: arguments, argumentCount: 7)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes eight
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    ///   - arg7: The seventh argument.
    ///   - arg8: The eighth argument.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6,
        _ arg7: @autoclosure () -> Arg7,
        _ arg8: @autoclosure () -> Arg8
    ) -> Service? {
        let arguments = (arg1(), arg2(), arg3(), arg4(), arg5(), arg6(), arg7(), arg8())
        return resolveOptional(self, serviceType, name: name, arguments: arguments, argumentCount: 8)
    }

    /// Resolves, or throws why it cannot, the registration of `serviceType` under `name` whose factory takes eight
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    ///   - arg7: The seventh argument.
    ///   - arg8: The eighth argument.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable @inline(__always)
    public func resolveThrows<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6,
        _ arg7: @autoclosure () -> Arg7,
        _ arg8: @autoclosure () -> Arg8
    ) throws(DIError) -> Service {
        try resolveFast(
            self,
            serviceType,
            name: name,
            arguments: (arg1(), arg2(), arg3(), arg4(), arg5(), arg6(), arg7(), arg8()),
            argumentCount: 8
        )
    }

    /// Resolves, as a `Result`, the registration of `serviceType` under `name` whose factory takes eight
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    ///   - arg7: The seventh argument.
    ///   - arg8: The eighth argument.
    /// - Returns: The instance, or the ``DIError`` that says what failed.
    @inlinable @inline(__always)
    public func resolveResult<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6,
        _ arg7: @autoclosure () -> Arg7,
        _ arg8: @autoclosure () -> Arg8
    ) -> Result<Service, DIError> {
        let arguments = (arg1(), arg2(), arg3(), arg4(), arg5(), arg6(), arg7(), arg8())
        return resolveAsResult(self, serviceType, name: name, arguments: arguments, argumentCount: 8)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes nine
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    ///   - arg7: The seventh argument.
    ///   - arg8: The eighth argument.
    ///   - arg9: The ninth argument.
    /// - Returns: The instance, or `nil` if nothing is registered under that key or resolving failed.
    @inlinable @inline(__always)
    public func resolve<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6,
        _ arg7: @autoclosure () -> Arg7,
        _ arg8: @autoclosure () -> Arg8,
        _ arg9: @autoclosure () -> Arg9
    ) -> Service? {
        let arguments = (arg1(), arg2(), arg3(), arg4(), arg5(), arg6(), arg7(), arg8(), arg9())
        return resolveOptional(self, serviceType, name: name, arguments: arguments, argumentCount: 9)
    }

    /// Resolves, or throws why it cannot, the registration of `serviceType` under `name` whose factory takes nine
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    ///   - arg7: The seventh argument.
    ///   - arg8: The eighth argument.
    ///   - arg9: The ninth argument.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable @inline(__always)
    public func resolveThrows<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6,
        _ arg7: @autoclosure () -> Arg7,
        _ arg8: @autoclosure () -> Arg8,
        _ arg9: @autoclosure () -> Arg9
    ) throws(DIError) -> Service {
        try resolveFast(
            self,
            serviceType,
            name: name,
            arguments: (arg1(), arg2(), arg3(), arg4(), arg5(), arg6(), arg7(), arg8(), arg9()),
            argumentCount: 9
        )
    }

    /// Resolves, as a `Result`, the registration of `serviceType` under `name` whose factory takes nine
    /// arguments of these types, passing them.
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - arg3: The third argument.
    ///   - arg4: The fourth argument.
    ///   - arg5: The fifth argument.
    ///   - arg6: The sixth argument.
    ///   - arg7: The seventh argument.
    ///   - arg8: The eighth argument.
    ///   - arg9: The ninth argument.
    /// - Returns: The instance, or the ``DIError`` that says what failed.
    @inlinable @inline(__always)
    public func resolveResult<Service, Arg1, Arg2, Arg3, Arg4, Arg5, Arg6, Arg7, Arg8, Arg9>(
        _ serviceType: Service.Type,
        name: String? = nil,
        arguments arg1: @autoclosure () -> Arg1,
        _ arg2: @autoclosure () -> Arg2,
        _ arg3: @autoclosure () -> Arg3,
        _ arg4: @autoclosure () -> Arg4,
        _ arg5: @autoclosure () -> Arg5,
        _ arg6: @autoclosure () -> Arg6,
        _ arg7: @autoclosure () -> Arg7,
        _ arg8: @autoclosure () -> Arg8,
        _ arg9: @autoclosure () -> Arg9
    ) -> Result<Service, DIError> {
        let arguments = (arg1(), arg2(), arg3(), arg4(), arg5(), arg6(), arg7(), arg8(), arg9())
        return resolveAsResult(self, serviceType, name: name, arguments: arguments, argumentCount: 9)
    }
}
