/// The key a `.multiton` registration keeps an instance under: its runtime arguments as one `AnyHashable`.
@usableFromInline
enum MultitonKey {
    /// `arguments` (the packed arguments of a resolve of `key`) as one `AnyHashable`: the argument itself
    /// for one, the array of them for several, one constant for none. Throws ``DIError/invalidUsage(message:)``
    /// naming the first argument whose type is not `Hashable`.
    @inlinable
    static func of<Arguments>(_ arguments: Arguments, key: ServiceKey) throws(DIError) -> AnyHashable {
        if !key.takesArguments {
            return AnyHashable(0)
        }
        if key.isSingleArgument {
            return try hashable(arguments, key: key)
        }
        var elements: [AnyHashable] = []
        for child in Mirror(reflecting: arguments).children {
            elements.append(try hashable(child.value, key: key))
        }
        return AnyHashable(elements)
    }

    @inlinable
    static func hashable<Value>(_ value: Value, key: ServiceKey) throws(DIError) -> AnyHashable {
        if let hashable = value as? AnyHashable {
            return hashable
        }
        throw notHashable(value, key: key)
    }

    @usableFromInline
    static func notHashable<Value>(_ value: Value, key: ServiceKey) -> DIError {
        .invalidUsage(
            message: """
                \(key) is registered in the .multiton scope, which keeps one instance per distinct arguments, \
                but an argument of type \(type(of: value as Any)) is not Hashable. \
                Fix: make \(type(of: value as Any)) Hashable, or register \(key.serviceType) in another scope.
                """
        )
    }
}
