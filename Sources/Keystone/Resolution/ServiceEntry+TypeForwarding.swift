extension ServiceEntry {
    /// Makes `type` resolve through this registration too: the same factory, scope, instances and
    /// `initCompleted` actions, for the same runtime arguments.
    ///
    /// ```swift
    /// container.register(Dog.self) { _ in Dog() }
    ///     .inObjectScope(.container)
    ///     .implements(Animal.self)
    /// container.resolve(Animal.self) === container.resolve(Dog.self) // true
    /// ```
    ///
    /// - Parameters:
    ///   - type: Another type the instance is resolved as; it must be one the instance conforms to.
    ///   - name: The registration name `type` is resolved under.
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func implements<T>(_ type: T.Type, name: String? = nil) -> ServiceEntry<Service> {
        owner?.container?.forward(type, name: name, to: self)
        return self
    }

    /// Makes each of two or more types resolve through this registration too, unnamed, as
    /// ``implements(_:name:)`` does for one.
    ///
    /// ```swift
    /// container.register(Dog.self) { _ in Dog() }
    ///     .implements(Animal.self, Pet.self, CustomStringConvertible.self)
    /// ```
    ///
    /// - Parameters:
    ///   - type1: The first type the instance is resolved as.
    ///   - type2: The second type the instance is resolved as.
    ///   - types: The further types, if any.
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func implements<T1, T2, each T>(
        _ type1: T1.Type,
        _ type2: T2.Type,
        _ types: repeat (each T).Type
    ) -> ServiceEntry<Service> {
        implements(type1, name: nil)
        implements(type2, name: nil)
        for type in repeat each types {
            implements(type, name: nil)
        }
        return self
    }
}
