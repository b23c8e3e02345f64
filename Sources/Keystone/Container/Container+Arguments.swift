// The registration that takes runtime arguments, one parameter-pack overload for every count from 1 up
// (the one without arguments is in `Container.swift`). It packs the arguments into one tuple and registers
// under the key (service type, name, tuple type); `Resolver+Arguments.swift` holds the matching resolves.
//
// Forced inline: specialized for a pack of two or more types, `register` is otherwise left out of line in
// a large caller, and the closure below then calls the user's factory through a pack-convention thunk on
// every resolve instead of having it inlined (`three-arguments` row: about 10% more instructions).

extension Container {
    /// Registers how to make `serviceType` from one or more runtime arguments, passed by
    /// ``Resolver/resolve(_:argument:)`` (one) or ``Resolver/resolve(_:arguments:)``
    /// (several).
    ///
    /// ```swift
    /// container.register(Animal.self) { _, name in Horse(name: name) }
    /// container.register(Animal.self) { _, name, running in Horse(name: name, running: running) }
    /// let spirit = container.resolve(Animal.self, argument: "Spirit")
    /// let lucky = container.resolve(Animal.self, arguments: "Lucky", true)
    /// ```
    ///
    /// The argument types, in order, are part of the registration's key and must match the resolve's
    /// static types exactly. One argument of tuple type `(A, B)` and two arguments `A, B` are two
    /// registrations.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve the registration as.
    ///   - name: A name that tells apart registrations of the same service type.
    ///   - factory: Makes an instance from a resolver and the arguments.
    /// - Returns: The registration, to configure further.
    @inlinable @inline(__always)
    @discardableResult
    public func register<Service, each Arg>(
        _ serviceType: Service.Type,
        name: String? = nil,
        factory: @escaping (any Resolver, repeat each Arg) throws -> Service
    ) -> ServiceEntry<Service> {
        registerPacked(serviceType, name: name, argumentCount: packCount(repeat (each Arg).self)) {
            (resolver: any Resolver, arguments: (repeat each Arg)) in
            try factory(resolver, repeat each arguments)
        }
    }
}
