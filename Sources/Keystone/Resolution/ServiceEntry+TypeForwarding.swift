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

    /// Makes each of two types resolve through this registration too, unnamed.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func implements<T1, T2>(_ type1: T1.Type, _ type2: T2.Type) -> ServiceEntry<Service> {
        implements(type1).implements(type2)
    }

    /// Makes each of three types resolve through this registration too, unnamed.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func implements<T1, T2, T3>(_ type1: T1.Type, _ type2: T2.Type, _ type3: T3.Type) -> ServiceEntry<Service> {
        implements(type1).implements(type2).implements(type3)
    }

    /// Makes each of four types resolve through this registration too, unnamed.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func implements<T1, T2, T3, T4>(_ type1: T1.Type, _ type2: T2.Type, _ type3: T3.Type, _ type4: T4.Type)
        -> ServiceEntry<Service>
    {
        implements(type1).implements(type2).implements(type3).implements(type4)
    }

    /// Makes each of five types resolve through this registration too, unnamed.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func implements<T1, T2, T3, T4, T5>(
        _ type1: T1.Type,
        _ type2: T2.Type,
        _ type3: T3.Type,
        _ type4: T4.Type,
        _ type5: T5.Type
    ) -> ServiceEntry<Service> {
        implements(type1).implements(type2).implements(type3).implements(type4).implements(type5)
    }

    /// Makes each of six types resolve through this registration too, unnamed.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func implements<T1, T2, T3, T4, T5, T6>(
        _ type1: T1.Type,
        _ type2: T2.Type,
        _ type3: T3.Type,
        _ type4: T4.Type,
        _ type5: T5.Type,
        _ type6: T6.Type
    ) -> ServiceEntry<Service> {
        implements(type1).implements(type2).implements(type3).implements(type4).implements(type5).implements(type6)
    }

    /// Makes each of seven types resolve through this registration too, unnamed.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func implements<T1, T2, T3, T4, T5, T6, T7>(
        _ type1: T1.Type,
        _ type2: T2.Type,
        _ type3: T3.Type,
        _ type4: T4.Type,
        _ type5: T5.Type,
        _ type6: T6.Type,
        _ type7: T7.Type
    ) -> ServiceEntry<Service> {
        implements(type1).implements(type2).implements(type3).implements(type4).implements(type5).implements(type6)
            .implements(type7)
    }

    /// Makes each of eight types resolve through this registration too, unnamed.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func implements<T1, T2, T3, T4, T5, T6, T7, T8>(
        _ type1: T1.Type,
        _ type2: T2.Type,
        _ type3: T3.Type,
        _ type4: T4.Type,
        _ type5: T5.Type,
        _ type6: T6.Type,
        _ type7: T7.Type,
        _ type8: T8.Type
    ) -> ServiceEntry<Service> {
        implements(type1).implements(type2).implements(type3).implements(type4).implements(type5).implements(type6)
            .implements(type7).implements(type8)
    }

    /// Makes each of nine types resolve through this registration too, unnamed.
    ///
    /// - Returns: The entry, for chaining.
    @discardableResult
    public func implements<T1, T2, T3, T4, T5, T6, T7, T8, T9>(
        _ type1: T1.Type,
        _ type2: T2.Type,
        _ type3: T3.Type,
        _ type4: T4.Type,
        _ type5: T5.Type,
        _ type6: T6.Type,
        _ type7: T7.Type,
        _ type8: T8.Type,
        _ type9: T9.Type
    ) -> ServiceEntry<Service> {
        implements(type1).implements(type2).implements(type3).implements(type4).implements(type5).implements(type6)
            .implements(type7).implements(type8).implements(type9)
    }
}
