/// The key a `.multiton` registration keeps an instance under: its runtime arguments, compared as
/// `AnyHashable` compares them.
///
/// A single `Int` or `String` argument is kept as itself: within one registration every argument has the
/// same static type, and an `Int` or `String` only ever equals another of its type, so comparing it
/// directly gives what `AnyHashable` gives, without boxing it and casting at each comparison (a hit then
/// costs a hash and an integer or string comparison). Any other argument is kept as an `AnyHashable`.
@usableFromInline
enum MultitonKey: Hashable {
    /// No arguments.
    case none
    /// A single argument of static type `Int`.
    case int(Int)
    /// A single argument of static type `String`.
    case string(String)
    /// Any other argument, or the array of several arguments.
    case hashable(HashableBox)

    // Written out rather than derived, and inlinable: a lookup of an `Int` key then tests the case and
    // compares two integers in place, with no copy of the other cases' payloads.
    @inlinable
    static func == (lhs: MultitonKey, rhs: MultitonKey) -> Bool {
        switch lhs {
        case .none:
            if case .none = rhs { return true }
        case .int(let left):
            if case .int(let right) = rhs { return left == right }
        case .string(let left):
            if case .string(let right) = rhs { return left == right }
        case .hashable(let left):
            if case .hashable(let right) = rhs { return left.value == right.value }
        }
        return false
    }

    @inlinable
    func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0 as UInt8)
        case .int(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .hashable(let box): hasher.combine(box.value)
        }
    }

    /// `arguments` (the packed arguments of a resolve of `key`) as a key: the argument itself for one,
    /// the array of them for several, one constant for none. Throws ``DIError/invalidUsage(message:)``
    /// naming the first argument whose type is not `Hashable`.
    @inlinable
    static func of<Arguments>(_ arguments: Arguments, key: ServiceKey) throws(DIError) -> MultitonKey {
        if !key.takesArguments {
            return .none
        }
        if key.isSingleArgument {
            return try single(arguments, key: key)
        }
        var elements: [AnyHashable] = []
        for child in Mirror(reflecting: arguments).children {
            elements.append(try hashable(child.value, key: key))
        }
        return .hashable(HashableBox(AnyHashable(elements)))
    }

    /// The key of a single argument. Where `Value` is known (the resolve compiled for the registration),
    /// the type tests below are decided at compile time and no dynamic cast runs.
    @inlinable
    static func single<Value>(_ value: Value, key: ServiceKey) throws(DIError) -> MultitonKey {
        if Value.self == Int.self, let value = value as? Int {
            return .int(value)
        }
        if Value.self == String.self, let value = value as? String {
            return .string(value)
        }
        return .hashable(HashableBox(try hashable(value, key: key)))
    }

    /// `value` as an `AnyHashable`. The cast to `any Hashable` of a value whose type is known is decided
    /// at compile time, where a cast to `AnyHashable` always asks the runtime.
    @inlinable
    static func hashable<Value>(_ value: Value, key: ServiceKey) throws(DIError) -> AnyHashable {
        if let hashable = value as? any Hashable {
            return AnyHashable(hashable)
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

/// An `AnyHashable` behind one reference: a ``MultitonKey`` holding it copies as a pointer, where the
/// existential inline would make every key five words, copied through the value witnesses on every
/// lookup (`multiton-hit` row).
@usableFromInline
final class HashableBox {
    @usableFromInline let value: AnyHashable

    @usableFromInline
    init(_ value: AnyHashable) {
        self.value = value
    }
}
