// The resolves that pass runtime arguments, in the three styles (Optional, throwing, Result).
// `Container+Arguments.swift` holds the matching registration, `Resolver+Packs.swift` the helpers.
//
// Arguments are plain parameters, evaluated left to right before the call, so `try` and `await` work
// inside them as in Swinject. Each keeps its static type, never opened to the value's dynamic type
// (SE-0352) even in Swift 6 mode: the `resolve` requirements take their arguments as one parameter pack,
// whose elements are never opened; `resolveThrows` and `resolveResult` take them after a defaulted
// `_StaticArgumentTypes` parameter that mentions their types, and Swift does not open an existential
// argument whose type parameter an earlier parameter already uses.

/// An implementation detail of the `resolveThrows` and `resolveResult` overloads that take runtime
/// arguments; never pass it.
///
/// Its only job is to mention the argument types in a parameter before the arguments, which stops Swift
/// from opening an existential argument to its dynamic type: a value typed `any Animal` then finds the
/// registration whose factory takes `Animal`.
///
/// ```swift
/// let animal: any Animal = Cat()
/// container.resolveThrows(Person.self, argument: animal)  // finds register(Person.self) { (_, pet: Animal) in ... }
/// ```
public struct _StaticArgumentTypes<T> {}

extension Resolver {
    /// Resolves the unnamed registration of `serviceType` whose factory takes one argument: the
    /// implementation every resolver uses.
    @inlinable @inline(__always)
    public func resolve<Service, each Arg>(_ serviceType: Service.Type, argument: repeat each Arg) -> Service? {
        resolveOptionalPacked(self, serviceType, name: nil, repeat each argument)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes one argument: the
    /// implementation every resolver uses.
    @inlinable @inline(__always)
    public func resolve<Service, each Arg>(
        _ serviceType: Service.Type,
        name: String?,
        argument: repeat each Arg
    ) -> Service? {
        resolveOptionalPacked(self, serviceType, name: name, repeat each argument)
    }

    /// Resolves the unnamed registration of `serviceType` whose factory takes two or more arguments: the
    /// implementation every resolver uses.
    @inlinable @inline(__always)
    public func resolve<Service, each Arg>(_ serviceType: Service.Type, arguments: repeat each Arg) -> Service? {
        resolveOptionalPacked(self, serviceType, name: nil, repeat each arguments)
    }

    /// Resolves the registration of `serviceType` under `name` whose factory takes two or more arguments:
    /// the implementation every resolver uses.
    @inlinable @inline(__always)
    public func resolve<Service, each Arg>(
        _ serviceType: Service.Type,
        name: String?,
        arguments: repeat each Arg
    ) -> Service? {
        resolveOptionalPacked(self, serviceType, name: name, repeat each arguments)
    }

    /// Resolves, or throws why it cannot, the registration of `serviceType` under `name` whose factory
    /// takes one argument of this static type, passing it.
    ///
    /// ```swift
    /// let spirit = try container.resolveThrows(Animal.self, name: "horse", argument: "Spirit")
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - staticTypes: Leave it out: it keeps an existential argument's static type.
    ///   - arg1: The argument; its static type must be the registered one exactly.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable @inline(__always)
    public func resolveThrows<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        _ staticTypes: _StaticArgumentTypes<Arg1>? = nil,
        argument arg1: Arg1
    ) throws(DIError) -> Service {
        try resolveFast(self, serviceType, name: name, arguments: arg1, argumentCount: 1)
    }

    /// Resolves, as a `Result`, the registration of `serviceType` under `name` whose factory takes one
    /// argument of this static type, passing it.
    ///
    /// ```swift
    /// let result = container.resolveResult(Animal.self, argument: "Spirit") // Result<Animal, DIError>
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - staticTypes: Leave it out: it keeps an existential argument's static type.
    ///   - arg1: The argument; its static type must be the registered one exactly.
    /// - Returns: The instance, or the ``DIError`` that says what failed.
    @inlinable @inline(__always)
    public func resolveResult<Service, Arg1>(
        _ serviceType: Service.Type,
        name: String? = nil,
        _ staticTypes: _StaticArgumentTypes<Arg1>? = nil,
        argument arg1: Arg1
    ) -> Result<Service, DIError> {
        resolveAsResult(self, serviceType, name: name, arguments: arg1, argumentCount: 1)
    }

    /// Resolves, or throws why it cannot, the registration of `serviceType` under `name` whose factory
    /// takes two or more arguments of these static types, in this order, passing them.
    ///
    /// ```swift
    /// let lucky = try container.resolveThrows(Animal.self, arguments: "Lucky", true)
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - staticTypes: Leave it out: it keeps an existential argument's static type.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - rest: The further arguments, if any.
    /// - Throws: A ``DIError`` that says what failed and how to fix it.
    @inlinable @inline(__always)
    public func resolveThrows<Service, Arg1, Arg2, each Rest>(
        _ serviceType: Service.Type,
        name: String? = nil,
        _ staticTypes: _StaticArgumentTypes<(Arg1, Arg2)>? = nil,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ rest: repeat each Rest
    ) throws(DIError) -> Service {
        try resolveFastPacked(self, serviceType, name: name, arg1, arg2, repeat each rest)
    }

    /// Resolves, as a `Result`, the registration of `serviceType` under `name` whose factory takes two or
    /// more arguments of these static types, in this order, passing them.
    ///
    /// ```swift
    /// let result = container.resolveResult(Animal.self, name: "horse", arguments: "Lucky", true)
    /// ```
    ///
    /// - Parameters:
    ///   - serviceType: The service type to resolve.
    ///   - name: The registration name, or `nil` for the unnamed registration.
    ///   - staticTypes: Leave it out: it keeps an existential argument's static type.
    ///   - arg1: The first argument.
    ///   - arg2: The second argument.
    ///   - rest: The further arguments, if any.
    /// - Returns: The instance, or the ``DIError`` that says what failed.
    @inlinable @inline(__always)
    public func resolveResult<Service, Arg1, Arg2, each Rest>(
        _ serviceType: Service.Type,
        name: String? = nil,
        _ staticTypes: _StaticArgumentTypes<(Arg1, Arg2)>? = nil,
        arguments arg1: Arg1,
        _ arg2: Arg2,
        _ rest: repeat each Rest
    ) -> Result<Service, DIError> {
        resolveAsResultPacked(self, serviceType, name: name, arg1, arg2, repeat each rest)
    }
}
