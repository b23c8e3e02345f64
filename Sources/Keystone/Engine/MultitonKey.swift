/// The key a `.multiton` registration keeps an instance under: its runtime arguments, compared as
/// `AnyHashable` compares them.
///
/// Within one registration every argument has the same static type, so a key compares with that type's
/// own `==` wherever it gives what `AnyHashable` gives:
/// - a single `Int` or `String` argument is kept as itself (a hit costs a hash and an integer or string
///   comparison);
/// - a single argument of any other `Hashable` static type, in a ``MultitonKeyBox`` of that type, compared
///   with that type's `==` (`multiton-hit-struct` row);
/// - a single argument of an existential static type, as an `AnyHashable` (its values may be of several
///   types, which only `AnyHashable` compares as it does);
/// - several arguments, as the array of their `AnyHashable`s, compared element by element.
///
/// The boxes keep the key one word plus its case: a key copies as a pointer (`multiton-hit` row).
@usableFromInline
enum MultitonKey: Hashable {
    /// No arguments.
    case none
    /// A single argument of static type `Int`.
    case int(Int)
    /// A single argument of static type `String`.
    case string(String)
    /// Any other argument, or the array of several arguments.
    case boxed(MultitonKeyBox)

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
        case .boxed(let left):
            if case .boxed(let right) = rhs { return left.isEqual(to: right) }
        }
        return false
    }

    @inlinable
    func hash(into hasher: inout Hasher) {
        switch self {
        case .none: hasher.combine(0 as UInt8)
        case .int(let value): hasher.combine(value)
        case .string(let value): hasher.combine(value)
        case .boxed(let box): box.hash(into: &hasher)
        }
    }

    // Dictionary hashes a key with `_rawHashValue(seed:)`. Each case hands it to its payload, so that an
    // `Int` key takes `Int`'s one-shot hash of a single word instead of a `Hasher` seeded, fed and
    // finalized (`multiton-hit` row: 812 instructions against 878; `multiton-hit-struct` 1,546 against
    // 1,599). A key of one case never equals one of another, so their hashes need not differ; equal keys
    // have equal payloads, and so equal hashes.
    @inlinable
    func _rawHashValue(seed: Int) -> Int {
        switch self {
        case .none: 0._rawHashValue(seed: seed)
        case .int(let value): value._rawHashValue(seed: seed)
        case .string(let value): value._rawHashValue(seed: seed)
        case .boxed(let box): box.rawHashValue(seed: seed)
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
        return .boxed(TypedKeyBox(try elements(of: arguments, key: key)))
    }

    /// This key as a creation keeps its instance or its flight under it: itself, unless its value does not
    /// equal itself (a `Double.nan` argument, or a type whose `==` is not reflexive). Such a key is never
    /// found again by value, so the instance made for it would be kept under a key that neither its own
    /// creation nor `dispose()` could find: its completion unnumbered, a half-made instance left kept, a
    /// dropped one disposed of twice, an async flight never removed. It becomes a key of its own identity
    /// instead, found by the creation that made it and equal to no later key, as `AnyHashable` says of
    /// such values. Checked when a creation starts, not on every lookup (`multiton-hit-struct` row: 1,733
    /// instructions with the check in ``of(_:key:)``, against 1,546); `Int` and `String` keys need none.
    @usableFromInline
    var storable: MultitonKey {
        guard case .boxed(let box) = self, !box.isEqual(to: box) else { return self }
        return .boxed(IdentityKeyBox())
    }

    /// The `AnyHashable`s of several packed arguments, in order, each the dynamic cast of its value to
    /// `any Hashable`. Up to four, one cast of the whole tuple to a tuple of `any Hashable` takes them:
    /// `multiton-hit-two-arguments` 8,291 instructions against 24,831 when reflecting on the tuple. That
    /// cast fails where an element is not `Hashable`; reflection then names it.
    @usableFromInline
    static func elements<Arguments>(of arguments: Arguments, key: ServiceKey) throws(DIError) -> [AnyHashable] {
        switch arguments {
        case let (first, second) as (any Hashable, any Hashable):
            return [AnyHashable(first), AnyHashable(second)]
        case let (first, second, third) as (any Hashable, any Hashable, any Hashable):
            return [AnyHashable(first), AnyHashable(second), AnyHashable(third)]
        case let (first, second, third, fourth) as (any Hashable, any Hashable, any Hashable, any Hashable):
            return [AnyHashable(first), AnyHashable(second), AnyHashable(third), AnyHashable(fourth)]
        default:
            var elements: [AnyHashable] = []
            for child in Mirror(reflecting: arguments).children {
                elements.append(try hashable(child.value, key: key))
            }
            return elements
        }
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
        if let type = Value.self as? any Hashable.Type {
            return .boxed(box(value, as: type))
        }
        return .boxed(TypedKeyBox(try hashable(value, key: key)))
    }

    /// `value`, whose static type `Value` is the `Hashable` type `Hashed`, in a box of that type.
    @inlinable
    static func box<Value, Hashed: Hashable>(_ value: Value, as _: Hashed.Type) -> MultitonKeyBox {
        TypedKeyBox(value as! Hashed)
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

/// A ``MultitonKey``'s value of a type other than `Int` and `String`, behind one reference.
@usableFromInline
class MultitonKeyBox {
    @usableFromInline
    init() {}

    /// Whether `other` holds a value of the same type, equal to this one.
    @usableFromInline
    func isEqual(to other: MultitonKeyBox) -> Bool {
        fatalError("MultitonKeyBox is abstract")
    }

    @usableFromInline
    func hash(into hasher: inout Hasher) {
        fatalError("MultitonKeyBox is abstract")
    }

    /// The value's own `_rawHashValue(seed:)`: see ``MultitonKey``'s.
    @usableFromInline
    func rawHashValue(seed: Int) -> Int {
        fatalError("MultitonKeyBox is abstract")
    }
}

/// A ``MultitonKeyBox`` of a `Hashable` type, compared with that type's `==`.
@usableFromInline
final class TypedKeyBox<Value: Hashable>: MultitonKeyBox {
    @usableFromInline let value: Value

    @usableFromInline
    init(_ value: Value) {
        self.value = value
    }

    @usableFromInline
    override func isEqual(to other: MultitonKeyBox) -> Bool {
        guard let other = other as? TypedKeyBox<Value> else { return false }
        return value == other.value
    }

    @usableFromInline
    override func hash(into hasher: inout Hasher) {
        hasher.combine(value)
    }

    @usableFromInline
    override func rawHashValue(seed: Int) -> Int {
        value._rawHashValue(seed: seed)
    }
}

/// The key of one creation whose arguments do not equal themselves (see ``MultitonKey/storable``):
/// equal only to itself.
final class IdentityKeyBox: MultitonKeyBox {
    override func isEqual(to other: MultitonKeyBox) -> Bool {
        other === self
    }

    override func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(self))
    }

    override func rawHashValue(seed: Int) -> Int {
        ObjectIdentifier(self)._rawHashValue(seed: seed)
    }
}
