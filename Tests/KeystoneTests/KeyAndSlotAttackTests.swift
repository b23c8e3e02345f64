import Foundation
import Testing

@testable import Keystone

// Attacks on three recent changes: the `.multiton` key (a single argument boxed with its own type, several
// arguments as an array of `AnyHashable`s, the same rule for synchronous and asynchronous resolves), the
// slots that let an instance go only once they hold the new value (deinitializers that come back to the
// container), and the end of dropped creations and of cancelled `disposeAsync()` calls.

/// A `.multiton` service, numbered by creation.
private final class Keyed: Sendable {
    let id: Int

    init(id: Int) {
        self.id = id
    }
}

/// An error a factory or an action throws on purpose.
private struct Refusal: Error {}

// MARK: - Resolving in code that does not know the argument types

/// Resolves `Keyed` with one argument, compiled once for every `Argument`.
@inline(never) @_semantics("optimize.sil.specialize.generic.never")
private func resolveUnspecialized<Argument>(_ resolver: any Resolver, _ argument: Argument) throws -> Keyed {
    try resolver.resolveThrows(Keyed.self, argument: argument)
}

/// Resolves `Keyed` asynchronously with one argument, compiled once for every `Argument`.
@inline(never) @_semantics("optimize.sil.specialize.generic.never")
private func resolveAsyncUnspecialized<Argument>(
    _ resolver: any Resolver,
    _ argument: Argument
) async throws -> Keyed {
    try await resolver.resolveAsync(Keyed.self, argument: argument)
}

/// Resolves `Keyed` with two arguments, compiled once for every pair of types.
@inline(never) @_semantics("optimize.sil.specialize.generic.never")
private func resolveUnspecialized<First, Second>(
    _ resolver: any Resolver,
    _ first: First,
    _ second: Second
) throws -> Keyed {
    try resolver.resolveThrows(Keyed.self, arguments: first, second)
}

/// Resolves `Keyed` asynchronously with two arguments, compiled once for every pair of types.
@inline(never) @_semantics("optimize.sil.specialize.generic.never")
private func resolveAsyncUnspecialized<First, Second>(
    _ resolver: any Resolver,
    _ first: First,
    _ second: Second
) async throws -> Keyed {
    try await resolver.resolveAsync(Keyed.self, arguments: first, second)
}

// MARK: - Argument types

/// An enum with payloads.
private enum Route: Hashable {
    case home
    case user(Int)
    case team(Int)
    case search(String, page: Int?)
}

/// A struct whose `==` ignores the sign of a distance.
private struct Distance: Hashable {
    let meters: Double

    static func == (lhs: Self, rhs: Self) -> Bool {
        abs(lhs.meters) == abs(rhs.meters)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(abs(meters))
    }
}

/// A class hierarchy whose base declares `Hashable` and whose subclass changes what equality means,
/// through a method the base's `==` calls.
private class Badge: Hashable {
    let number: Int

    init(number: Int) {
        self.number = number
    }

    func matches(_ other: Badge) -> Bool {
        number == other.number
    }

    static func == (lhs: Badge, rhs: Badge) -> Bool {
        lhs.matches(rhs) && rhs.matches(lhs)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(number)
    }
}

/// A badge that equals only badges of its own kind with the same number.
private final class GoldBadge: Badge {
    override func matches(_ other: Badge) -> Bool {
        other is GoldBadge && number == other.number
    }
}

/// A generic type, `Hashable` when its parameter is.
private struct Tagged<Value> {
    let tag: String
    let value: Value
}

extension Tagged: Equatable where Value: Equatable {}
extension Tagged: Hashable where Value: Hashable {}

/// A type that is not `Hashable`.
private struct Unhashable {
    let value: Int
}

// MARK: - Checks

/// Where a check failed, to say which pair and which way of resolving.
private func label(_ what: String, _ way: String) -> Comment {
    "\(what): \(way)"
}

/// Checks that a `.multiton` registration taking one argument of static type `Argument` shares an instance
/// between `a` and `b` exactly when `expected` (what `AnyHashable` says of them), whichever way the second
/// resolve goes: a specialized or unspecialized synchronous resolve, a child container, a synchronized
/// view, an async resolve of the synchronous registration; and for an async registration, async resolves
/// and a synchronous resolve that finds the async creation's instance.
private func expectSingleKeys<Argument>(
    _ a: Argument,
    _ b: Argument,
    equal expected: Bool,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let serial = Counter()
    let container = Container()
    container.register(Keyed.self) { (_, _: Argument) in Keyed(id: serial.next()) }.inObjectScope(.multiton)
    let first = try container.resolveThrows(Keyed.self, argument: a)
    var found: [(String, Keyed)] = []
    found.append(("resolveThrows", try container.resolveThrows(Keyed.self, argument: b)))
    found.append(("unspecialized", try resolveUnspecialized(container, b)))
    found.append(("child container", try resolveUnspecialized(Container(parent: container), b)))
    found.append(("synchronized view", try container.synchronize().resolveThrows(Keyed.self, argument: b)))
    found.append(("resolveAsync", try await container.resolveAsync(Keyed.self, argument: b)))
    found.append(("resolveAsync unspecialized", try await resolveAsyncUnspecialized(container, b)))
    for (way, instance) in found {
        #expect((instance === first) == expected, label(what, way), sourceLocation: sourceLocation)
    }

    // An async registration: created by resolveAsync with `a`, found with `b` by every kind of resolve.
    let asyncSerial = Counter()
    let asyncContainer = Container()
    asyncContainer.registerAsync(Keyed.self) { (_, _: Argument) in Keyed(id: asyncSerial.next()) }
        .inObjectScope(.multiton)
    nonisolated(unsafe) let a = a
    nonisolated(unsafe) let b = b
    let made = try await resolveAsyncUnspecialized(asyncContainer, a)
    // A synchronous resolve cannot run the async factory: it finds the instance or fails.
    let syncFound = try? asyncContainer.resolveThrows(Keyed.self, argument: b)
    #expect(
        (syncFound === made) == expected,
        label(what, "sync resolve of an async creation"),
        sourceLocation: sourceLocation
    )
    #expect(
        (syncFound != nil) == expected,
        label(what, "sync resolve fails iff unequal"),
        sourceLocation: sourceLocation
    )
    let syncUnspecialized = try? resolveUnspecialized(asyncContainer.synchronize(), b)
    #expect(
        (syncUnspecialized === made) == expected,
        label(what, "unspecialized sync resolve of an async creation"),
        sourceLocation: sourceLocation
    )
    let again = try await asyncContainer.resolveAsync(Keyed.self, argument: b)
    #expect(
        (again === made) == expected,
        label(what, "async registration, resolveAsync"),
        sourceLocation: sourceLocation
    )
}

/// ``expectSingleKeys(_:_:equal:_:sourceLocation:)`` for a `Hashable` static type, with what `AnyHashable`
/// says of the two values as the expectation.
private func expectSingleKeys<Argument: Hashable>(
    _ a: Argument,
    _ b: Argument,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    try await expectSingleKeys(a, b, equal: AnyHashable(a) == AnyHashable(b), what, sourceLocation: sourceLocation)
}

/// Checks that a `.multiton` registration taking two arguments shares an instance between `(a1, a2)` and
/// `(b1, b2)` exactly when `expected`, in every way of resolving.
private func expectPairKeys<First, Second>(
    _ a: (First, Second),
    _ b: (First, Second),
    equal expected: Bool,
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let serial = Counter()
    let container = Container()
    container.register(Keyed.self) { (_, _: First, _: Second) in Keyed(id: serial.next()) }.inObjectScope(.multiton)
    let first = try container.resolveThrows(Keyed.self, arguments: a.0, a.1)
    var found: [(String, Keyed)] = []
    found.append(("resolveThrows", try container.resolveThrows(Keyed.self, arguments: b.0, b.1)))
    found.append(("unspecialized", try resolveUnspecialized(container, b.0, b.1)))
    found.append(("child container", try resolveUnspecialized(Container(parent: container), b.0, b.1)))
    found.append(("synchronized view", try resolveUnspecialized(container.synchronize(), b.0, b.1)))
    found.append(("resolveAsync", try await container.resolveAsync(Keyed.self, arguments: b.0, b.1)))
    found.append(("resolveAsync unspecialized", try await resolveAsyncUnspecialized(container, b.0, b.1)))
    for (way, instance) in found {
        #expect((instance === first) == expected, label(what, way), sourceLocation: sourceLocation)
    }
    let asyncSerial = Counter()
    let asyncContainer = Container()
    asyncContainer.registerAsync(Keyed.self) { (_, _: First, _: Second) in Keyed(id: asyncSerial.next()) }
        .inObjectScope(.multiton)
    nonisolated(unsafe) let a = a
    nonisolated(unsafe) let b = b
    let made = try await resolveAsyncUnspecialized(asyncContainer, a.0, a.1)
    let syncFound = try? asyncContainer.resolveThrows(Keyed.self, arguments: b.0, b.1)
    #expect(
        (syncFound === made) == expected,
        label(what, "sync resolve of an async creation"),
        sourceLocation: sourceLocation
    )
    let again = try await asyncContainer.resolveAsync(Keyed.self, arguments: b.0, b.1)
    #expect(
        (again === made) == expected,
        label(what, "async registration, resolveAsync"),
        sourceLocation: sourceLocation
    )
}

/// ``expectPairKeys(_:_:equal:_:sourceLocation:)`` for two `Hashable` static types, expecting what
/// `AnyHashable` says of each argument.
private func expectPairKeys<First: Hashable, Second: Hashable>(
    _ a: (First, Second),
    _ b: (First, Second),
    _ what: String,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let expected = AnyHashable(a.0) == AnyHashable(b.0) && AnyHashable(a.1) == AnyHashable(b.1)
    try await expectPairKeys(a, b, equal: expected, what, sourceLocation: sourceLocation)
}

/// Whether the message of `error` is an invalid usage naming `typeName` as not `Hashable`.
private func namesUnhashable(_ error: any Error, _ typeName: String) -> Bool {
    guard case .invalidUsage(let message) = error as? DIError else { return false }
    return message.contains("argument of type \(typeName) is not Hashable")
}

@Suite("Key and slot attack: .multiton keys compare as AnyHashable", .tags(.engine))
struct KeyAndSlotMultitonKeyTests {
    @Test("Floating-point arguments: signed zeros share, NaN never does, Float and Double alike")
    func floatingPoint() async throws {
        try await expectSingleKeys(0.0, -0.0, "Double 0.0 / -0.0")
        try await expectSingleKeys(Double.nan, Double.nan, "Double NaN / NaN")
        try await expectSingleKeys(1.5, 1.5, "Double 1.5 / 1.5")
        try await expectSingleKeys(1.5, 2.5, "Double 1.5 / 2.5")
        try await expectSingleKeys(Float(0), Float(-0.0), "Float 0 / -0")
        try await expectSingleKeys(Float.nan, Float.nan, "Float NaN / NaN")
        try await expectSingleKeys(Float(0.1), Float(0.1), "Float 0.1 / 0.1")
        // The truths the expectations rest on.
        #expect(AnyHashable(0.0) == AnyHashable(-0.0))
        #expect(AnyHashable(Double.nan) != AnyHashable(Double.nan))
        // NaN never finds a kept instance: each resolve makes one, and each is still disposed of once.
        let container = Container()
        let serial = Counter()
        let ended = SerialLog()
        container.register(Keyed.self) { (_, _: Double) in Keyed(id: serial.next()) }
            .inObjectScope(.multiton)
            .onDispose { ended.add($0.id) }
        for _ in 0..<3 {
            _ = try container.resolveThrows(Keyed.self, argument: Double.nan)
        }
        #expect(serial.count == 3)
        try container.dispose()
        #expect(ended.all.sorted() == [1, 2, 3])
    }

    @Test("Optional arguments, nested ones included: .some(nil) and .none are two keys")
    func optionals() async throws {
        try await expectSingleKeys(Int?.none, Int?.none, "Int? nil / nil")
        try await expectSingleKeys(Int?.none, Int?.some(0), "Int? nil / 0")
        try await expectSingleKeys(Int??.some(nil), Int??.none, "Int?? .some(nil) / .none")
        try await expectSingleKeys(Int??.some(1), Int??.some(.some(1)), "Int?? 1 / 1")
        try await expectSingleKeys(Int??.none, Int??.none, "Int?? .none / .none")
        try await expectSingleKeys(String?.some("é"), String?.some("e\u{301}"), "String? é / e+accent")
        #expect(AnyHashable(Int??.some(nil)) != AnyHashable(Int??.none))
    }

    @Test("Enums with payloads, structs with their own ==, class hierarchies and generic types")
    func userTypes() async throws {
        try await expectSingleKeys(Route.user(1), Route.user(1), "Route user(1) / user(1)")
        try await expectSingleKeys(Route.user(1), Route.team(1), "Route user(1) / team(1)")
        try await expectSingleKeys(Route.home, Route.home, "Route home / home")
        try await expectSingleKeys(
            Route.search("a", page: nil),
            Route.search("a", page: 0),
            "Route search nil page / 0"
        )
        try await expectSingleKeys(Distance(meters: 3), Distance(meters: -3), "Distance 3 / -3")
        try await expectSingleKeys(Distance(meters: 3), Distance(meters: 4), "Distance 3 / 4")
        try await expectSingleKeys(Badge(number: 1), Badge(number: 1), "Badge 1 / 1")
        try await expectSingleKeys(GoldBadge(number: 1) as Badge, Badge(number: 1), "GoldBadge 1 / Badge 1")
        try await expectSingleKeys(GoldBadge(number: 1) as Badge, GoldBadge(number: 1) as Badge, "GoldBadge 1 / 1")
        try await expectSingleKeys(Tagged(tag: "a", value: 1), Tagged(tag: "a", value: 1), "Tagged<Int> equal")
        try await expectSingleKeys(Tagged(tag: "a", value: 1), Tagged(tag: "b", value: 1), "Tagged<Int> tags differ")
        try await expectSingleKeys(
            Tagged(tag: "a", value: Double.nan),
            Tagged(tag: "a", value: Double.nan),
            "Tagged<Double> NaN"
        )
        try await expectSingleKeys(Set([1, 2, 3]), Set([3, 2, 1]), "Set in another order")
        try await expectSingleKeys(["k": 1], ["k": 1], "Dictionary")
        #expect(AnyHashable(GoldBadge(number: 1) as Badge) != AnyHashable(Badge(number: 1)))
    }

    @Test("Strings in different Unicode normalizations, Characters, Substrings, and Foundation's bridged types")
    func stringsAndFoundation() async throws {
        try await expectSingleKeys("é", "e\u{301}", "String é / e+accent")
        try await expectSingleKeys("é", "e", "String é / e")
        try await expectSingleKeys(Character("é"), Character("e\u{301}"), "Character é / e+accent")
        try await expectSingleKeys("é"[...], "e\u{301}"[...], "Substring é / e+accent")
        // Foundation on Linux: NSString compares "é" and "e\u{301}" equal but hashes them differently, and
        // AnyHashable(NSNumber(value: 1)) equals AnyHashable(1) with another hash. No hashed key can honour
        // such pairs, AnyHashable's own dictionaries included: they are left out.
        try await expectSingleKeys(NSString(string: "é"), NSString(string: "é"), "NSString é / é")
        try await expectSingleKeys(NSString(string: "é"), NSString(string: "e"), "NSString é / e")
        try await expectSingleKeys(NSNumber(value: 1), NSNumber(value: 1.0), "NSNumber 1 / 1.0")
        try await expectSingleKeys(NSNumber(value: 1), NSNumber(value: true), "NSNumber 1 / true")
        try await expectSingleKeys(NSNumber(value: Float(0.1)), NSNumber(value: 0.1), "NSNumber 0.1f / 0.1")
        try await expectSingleKeys(
            NSNumber(value: 1) as NSObject,
            NSString(string: "1") as NSObject,
            "NSObject NSNumber 1 / NSString 1"
        )
        try await expectSingleKeys(Decimal(string: "1.0") ?? 0, Decimal(1), "Decimal 1.0 / 1")
    }

    @Test("AnyHashable arguments holding numbers of different types, optionals and Foundation numbers")
    func anyHashableArguments() async throws {
        try await expectSingleKeys(AnyHashable(1), AnyHashable(UInt8(1)), "AnyHashable Int 1 / UInt8 1")
        try await expectSingleKeys(AnyHashable(1), AnyHashable(1.0), "AnyHashable Int 1 / Double 1.0")
        try await expectSingleKeys(AnyHashable(1), AnyHashable(true), "AnyHashable Int 1 / true")
        try await expectSingleKeys(AnyHashable(1), AnyHashable(Int?.some(1)), "AnyHashable Int 1 / Int? 1")
        try await expectSingleKeys(AnyHashable(-0.0), AnyHashable(Float(0)), "AnyHashable -0.0 / Float 0")
        try await expectSingleKeys(AnyHashable("1"), AnyHashable(1), "AnyHashable \"1\" / 1")
    }

    @Test("Existential arguments (any Hashable, any Sendable, Any) compare as AnyHashable compares their values")
    func existentialArguments() async throws {
        try await expectSingleKeys(1 as any Hashable, UInt8(1) as any Hashable, equal: true, "any Hashable 1 / UInt8 1")
        try await expectSingleKeys(1 as any Hashable, "1" as any Hashable, equal: false, "any Hashable 1 / \"1\"")
        try await expectSingleKeys(
            Route.user(1) as any Hashable,
            Route.user(1) as any Hashable,
            equal: true,
            "any Hashable Route"
        )
        try await expectSingleKeys(
            Double.nan as any Hashable,
            Double.nan as any Hashable,
            equal: false,
            "any Hashable NaN"
        )
        try await expectSingleKeys(0.0 as any Sendable, -0.0 as any Sendable, equal: true, "any Sendable 0.0 / -0.0")
        try await expectSingleKeys(1 as any Sendable, 1.0 as any Sendable, equal: true, "any Sendable 1 / 1.0")
        try await expectSingleKeys(
            GoldBadge(number: 2) as Any,
            Badge(number: 2) as Any,
            equal: AnyHashable(GoldBadge(number: 2) as Badge) == AnyHashable(Badge(number: 2)),
            "Any GoldBadge / Badge"
        )
        try await expectSingleKeys("é" as Any, "e\u{301}" as Any, equal: true, "Any é / e+accent")
        try await expectSingleKeys(
            Optional(3) as any Sendable,
            3 as any Sendable,
            equal: AnyHashable(Optional(3)) == AnyHashable(3),
            "any Sendable Optional(3) / 3"
        )
    }

    @Test("An existential argument that is not Hashable fails, naming its dynamic type, in every way of resolving")
    func unhashableExistential() async throws {
        let container = Container()
        container.register(Keyed.self) { (_, _: Any) in Keyed(id: 0) }.inObjectScope(.multiton)
        container.registerAsync(Keyed.self, name: "async") { (_, _: Any) in Keyed(id: 0) }.inObjectScope(.multiton)
        let value = Unhashable(value: 1) as Any
        #expect(throws: DIError.self) { try container.resolveThrows(Keyed.self, argument: value) }
        do {
            // `as Any` keeps the existential closed: the generic function sees `Any`, the registered type.
            _ = try resolveUnspecialized(container, value as Any)
            Issue.record("an unhashable argument was accepted")
        } catch {
            #expect(namesUnhashable(error, "Unhashable"), "\(error)")
        }
        do {
            _ = try await container.resolveAsync(Keyed.self, argument: value)
            Issue.record("an unhashable argument was accepted")
        } catch {
            #expect(namesUnhashable(error, "Unhashable"), "\(error)")
        }
        do {
            _ = try await container.resolveAsync(Keyed.self, name: "async", argument: value)
            Issue.record("an unhashable argument was accepted by an async registration")
        } catch {
            #expect(namesUnhashable(error, "Unhashable"), "\(error)")
        }
        // Among several arguments, the first that is not Hashable is named.
        container.register(Keyed.self) { (_, _: Int, _: Any, _: Any) in Keyed(id: 0) }.inObjectScope(.multiton)
        do {
            _ = try container.resolveThrows(Keyed.self, arguments: 1, { () in 2 } as Any, Unhashable(value: 3) as Any)
            Issue.record("unhashable arguments were accepted")
        } catch {
            #expect(namesUnhashable(error, "() -> Int"), "\(error)")
        }
        // A Hashable value in the same registration still works.
        #expect(try container.resolveThrows(Keyed.self, argument: 5 as Any).id == 0)
    }

    /// An optional argument among several, or inside an existential, reaches the key as an `Any`; an `Any`
    /// holding `nil` must still become `AnyHashable(Int?.none)`, not a "not Hashable" error.
    @Test("A nil optional among several arguments, or inside an existential, is a key like any other")
    func nilOptionalInsideAnyAndAmongSeveral() async throws {
        let container = Container()
        let serial = Counter()
        container.register(Keyed.self) { (_, _: Int?, _: String) in Keyed(id: serial.next()) }
            .inObjectScope(.multiton)
        container.register(Keyed.self) { (_, _: any Sendable) in Keyed(id: serial.next()) }
            .inObjectScope(.multiton)
        #expect(AnyHashable(Int?.none) == AnyHashable(Int?.none))
        let none = try container.resolveThrows(Keyed.self, arguments: Int?.none, "a")
        #expect(try container.resolveThrows(Keyed.self, arguments: Int?.none, "a") === none)
        #expect(try await container.resolveAsync(Keyed.self, arguments: Int?.none, "a") === none)
        #expect(try container.resolveThrows(Keyed.self, arguments: Int?.some(0), "a") !== none)
        let existentialNone = try container.resolveThrows(Keyed.self, argument: Int?.none as any Sendable)
        #expect(try container.resolveThrows(Keyed.self, argument: Int?.none as any Sendable) === existentialNone)
        #expect(try await container.resolveAsync(Keyed.self, argument: Int?.none as any Sendable) === existentialNone)
        #expect(try container.resolveThrows(Keyed.self, argument: 0 as any Sendable) !== existentialNone)
        // A non-nil optional among several arguments works.
        let some = try container.resolveThrows(Keyed.self, arguments: Int?.some(1), "a")
        #expect(try container.resolveThrows(Keyed.self, arguments: Int?.some(1), "a") === some)
    }

    @Test("Two arguments, mixed static types, existentials included")
    func twoArguments() async throws {
        try await expectPairKeys((0.0, "é"), (-0.0, "e\u{301}"), "Double and String, equal")
        try await expectPairKeys((Double.nan, "a"), (Double.nan, "a"), "NaN among two")
        try await expectPairKeys((Float(1), 1.0), (Float(1), 1.0), "Float and Double")
        try await expectPairKeys(
            (Route.user(1), Int??.some(nil)),
            (Route.user(1), Int??.none),
            "Int?? .some(nil) / .none"
        )
        try await expectPairKeys((Route.user(1), Int??.some(1)), (Route.user(1), Int??.some(1)), "Int?? 1 / 1")
        try await expectPairKeys((AnyHashable(1), 2), (AnyHashable(UInt8(1)), 2), "AnyHashable Int / UInt8")
        try await expectPairKeys((GoldBadge(number: 1) as Badge, 1), (Badge(number: 1), 1), "badge kinds")
        try await expectPairKeys((Distance(meters: 2), "x"), (Distance(meters: -2), "x"), "own ==")
        try await expectPairKeys(
            (1 as any Hashable, "a"),
            (UInt8(1) as any Hashable, "a"),
            equal: true,
            "any Hashable Int / UInt8 and String"
        )
        try await expectPairKeys(
            (1 as any Sendable, 2 as any Hashable),
            (1.0 as any Sendable, "2" as any Hashable),
            equal: false,
            "two existentials, the second unequal"
        )
        try await expectPairKeys(
            (NSNumber(value: 1) as Any, "é" as Any),
            (NSNumber(value: 1.0) as Any, "e\u{301}" as Any),
            equal: true,
            "Any NSNumber 1 / 1.0 and Strings"
        )
    }

    @Test("Three to nine arguments: equal iff every argument is equal as AnyHashable, synchronously and asynchronously")
    func threeToNineArguments() async throws {
        let container = Container()
        let serial = Counter()
        container.register(Keyed.self) { (_, _: Double, _: Int??, _: any Hashable) in Keyed(id: serial.next()) }
            .inObjectScope(.multiton)
        container.register(Keyed.self) {
            (_, _: Int, _: String, _: Double, _: Bool, _: Int8, _: [Int], _: Route, _: UInt, _: AnyHashable) in
            Keyed(id: serial.next())
        }
        .inObjectScope(.multiton)
        let three = try container.resolveThrows(Keyed.self, arguments: 0.0, Int??.some(2), 1 as any Hashable)
        #expect(
            try container.resolveThrows(Keyed.self, arguments: -0.0, Int??.some(2), UInt8(1) as any Hashable) === three
        )
        #expect(
            try await container.resolveAsync(Keyed.self, arguments: -0.0, Int??.some(2), 1.0 as any Hashable) === three
        )
        #expect(try container.resolveThrows(Keyed.self, arguments: 0.0, Int??.some(3), 1 as any Hashable) !== three)
        #expect(try container.resolveThrows(Keyed.self, arguments: 0.0, Int??.some(2), "1" as any Hashable) !== three)

        let nine = try container.resolveThrows(
            Keyed.self,
            arguments: 1,
            "é",
            0.0,
            true,
            Int8(5),
            [6],
            Route.user(7),
            UInt(8),
            AnyHashable(9)
        )
        #expect(
            try container.resolveThrows(
                Keyed.self,
                arguments: 1,
                "e\u{301}",
                -0.0,
                true,
                Int8(5),
                [6],
                Route.user(7),
                UInt(8),
                AnyHashable(UInt16(9))
            ) === nine
        )
        #expect(
            try container.resolveThrows(
                Keyed.self,
                arguments: 1,
                "é",
                0.0,
                true,
                Int8(5),
                [6],
                Route.team(7),
                UInt(8),
                AnyHashable(9)
            ) !== nine
        )
        #expect(
            try container.synchronize().resolveThrows(
                Keyed.self,
                arguments: 1,
                "é",
                0.0,
                true,
                Int8(5),
                [6],
                Route.user(7),
                UInt(8),
                AnyHashable(9.0)
            ) === nine
        )
        #expect(
            try container.resolveThrows(
                Keyed.self,
                arguments: 1,
                "é",
                Double.nan,
                true,
                Int8(5),
                [6],
                Route.user(7),
                UInt(8),
                AnyHashable(9)
            ) !== nine
        )
        // The async resolves with three arguments, and an async registration of three.
        container.registerAsync(Keyed.self, name: "async") { (_, _: Double, _: String, _: any Sendable) in
            Keyed(id: serial.next())
        }
        .inObjectScope(.multiton)
        let made = try await container.resolveAsync(Keyed.self, name: "async", arguments: 0.0, "é", 1 as any Sendable)
        #expect(
            try await container.resolveAsync(
                Keyed.self,
                name: "async",
                arguments: -0.0,
                "e\u{301}",
                1.0 as any Sendable
            )
                === made
        )
        #expect(
            try container.resolveThrows(Keyed.self, name: "async", arguments: -0.0, "e\u{301}", UInt(1) as any Sendable)
                === made
        )
        let unequal = try? container.resolveThrows(Keyed.self, name: "async", arguments: 0.0, "é", "1" as any Sendable)
        #expect(unequal == nil, "no instance kept under \"1\", and the async factory cannot run synchronously")
    }

    @Test("An async .multiton without arguments made by warmUp() is the instance every later resolve finds")
    func warmUpWithoutArguments() async throws {
        let container = Container()
        let serial = Counter()
        container.registerAsync(Keyed.self) { _ in Keyed(id: serial.next()) }.inObjectScope(.multiton)
        try await container.warmUp()
        let warmed = try container.resolveThrows(Keyed.self)
        #expect(warmed.id == 1)
        #expect(try await container.resolveAsync(Keyed.self) === warmed)
        #expect(try Container(parent: container).resolveThrows(Keyed.self) === warmed)
        #expect(try container.synchronize().resolveThrows(Keyed.self) === warmed)
        #expect(serial.count == 1)
    }

    @Test("Sync and async resolves racing for equal but differently typed keys share one instance per key")
    func racingEqualKeys() async throws {
        let container = Container()
        let serial = Counter()
        container.registerAsync(Keyed.self) { (_, _: AnyHashable) in
            await Task.yield()
            return Keyed(id: serial.next())
        }
        .inObjectScope(.multiton)
        let view = container.synchronize()
        let spellings: [@Sendable () -> AnyHashable] = [
            { AnyHashable(1) }, { AnyHashable(UInt8(1)) }, { AnyHashable(1.0) }, { AnyHashable(Int?.some(1)) },
            { AnyHashable(Float(1)) },
        ]
        let found = try await withThrowingTaskGroup(of: Keyed.self) { group in
            for index in 0..<20 {
                let key = spellings[index % spellings.count]
                group.addTask { try await view.resolveAsync(Keyed.self, argument: key()) }
            }
            var all: [Keyed] = []
            for try await instance in group {
                all.append(instance)
            }
            return all
        }
        #expect(Set(found.map(\.id)) == [1], "one creation for all the spellings of 1: \(Set(found.map(\.id)))")
        #expect(try view.resolveThrows(Keyed.self, argument: AnyHashable(Int16(1))).id == 1)
    }
}

// MARK: - Deinitializers that come back to the container while a scope lets their instance go

/// An object that runs `farewell` when it is deinitialized.
private final class Parting: @unchecked Sendable {
    // @unchecked: `farewell` is set once, at initialization.
    let id: Int
    let farewell: () -> Void

    init(id: Int, farewell: @escaping () -> Void) {
        self.id = id
        self.farewell = farewell
    }

    deinit {
        farewell()
    }
}

/// The ids that occur more than once.
private func repeatedIDs(_ values: [Int]) -> [Int] {
    values.reduce(into: [Int: Int]()) { $0[$1, default: 0] += 1 }.filter { $0.value > 1 }.keys.sorted()
}

/// Writes a line to standard error: how an exit test's child reports a broken rule without crashing, so
/// that the parent tells a crash from a violation.
private func report(_ line: String) {
    FileHandle.standardError.write(Data("violation: \(line)\n".utf8))
}

/// Writes to standard error which scenario an exit test's child starts: the last one named is where it
/// crashed.
private func announce(_ line: String) {
    FileHandle.standardError.write(Data("scenario: \(line)\n".utf8))
}

/// The violations an exit test's child wrote, and, if it crashed, the scenario and the lines it crashed in.
private func violations(_ result: ExitTest.Result?) -> [String] {
    let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    let lines = text.split(separator: "\n").map(String.init)
    var found = lines.filter { $0.hasPrefix("violation:") }
    if let result, result.exitStatus != .exitCode(0) {
        let scenario = lines.last { $0.hasPrefix("scenario:") } ?? "no scenario named"
        found.append("crashed in \(scenario): \(lines.suffix(4).joined(separator: " | "))")
    }
    return found
}

/// What a deinitializer does with the container when its instance is let go.
private enum Comeback: String, CaseIterable {
    case nothing, resolveOther, resolveOwn, register, registerOwnAgain, dispose, resetContainer, resetMultiton
    case changeOwnScope, removeAll
}

/// How the scope lets its instances go.
private enum Letting: CustomStringConvertible {
    case dispose, reset, removeAll, registerAgain
    case changeScope(to: ObjectScope)
    /// A `.graph` or `.weak` instance at the end of the resolve that made it.
    case endOfGraph
    /// A `.multiton` instance whose `initCompleted` action throws.
    case failedAction

    var disposes: Bool {
        switch self {
        case .dispose, .reset, .removeAll, .registerAgain: true
        case .changeScope, .endOfGraph, .failedAction: false
        }
    }

    var description: String {
        switch self {
        case .dispose: "dispose()"
        case .reset: "resetObjectScope"
        case .removeAll: "removeAll()"
        case .registerAgain: "registering again"
        case .changeScope(let to): "inObjectScope(\(to))"
        case .endOfGraph: "end of graph"
        case .failedAction: "failed initCompleted"
        }
    }
}

/// A service that resolves `Parting` twice in one graph and keeps neither.
private final class Visitor {
    let seen: Int

    init(seen: Int) {
        self.seen = seen
    }
}

/// One container whose `Parting` instances come back to it from their deinitializer, and the record of what
/// their disposal handlers ended.
private final class DeinitScenario {
    let container = Container()
    let ended = SerialLog()
    let serial = Counter()
    let scope: ObjectScope
    let comeback: Comeback
    let failing: Bool
    var armedUpTo = 0
    var entry: ServiceEntry<Parting>?
    var other: Tracked?
    var otherFound: [Bool] = []

    init(scope: ObjectScope, comeback: Comeback, failing: Bool = false) {
        self.scope = scope
        self.comeback = comeback
        self.failing = failing
        container.register(Tracked.self, name: "other") { _ in Tracked(id: 7) }.inObjectScope(.container)
        other = container.resolve(Tracked.self, name: "other")
        container.register(Visitor.self) { resolver in
            let first = resolver.resolve(Parting.self, argument: 1)
            let second = resolver.resolve(Parting.self, argument: 1)
            return Visitor(seen: (first?.id ?? 0) + (second?.id ?? 0))
        }
        registerOwn()
    }

    func registerOwn() {
        let registered = container.register(Parting.self) { [weak self] (_, _: Int) in
            let id = self?.serial.next() ?? -1
            return Parting(id: id) { [weak self] in
                guard let self, id <= armedUpTo else { return }
                comeBack()
            }
        }
        .inObjectScope(scope)
        .onDispose { [ended] in ended.add($0.id) }
        if failing {
            registered.initCompleted { _, made in
                if made.id == 1 {
                    throw Refusal()
                }
            }
        }
        entry = registered
    }

    func comeBack() {
        switch comeback {
        case .nothing:
            break
        case .resolveOther:
            otherFound.append(container.resolve(Tracked.self, name: "other") === other)
        case .resolveOwn:
            _ = container.resolve(Parting.self, argument: 100)
        case .register:
            container.register(Tracked.self, name: "late") { _ in Tracked(id: 8) }
        case .registerOwnAgain:
            registerOwn()
        case .dispose:
            try? container.dispose()
        case .resetContainer:
            container.resetObjectScope(.container)
        case .resetMultiton:
            container.resetObjectScope(.multiton)
        case .changeOwnScope:
            entry?.inObjectScope(.transient)
        case .removeAll:
            container.removeAll()
        }
    }

    /// Makes instances, lets the scope drop them, and reports what broke a rule.
    func run(_ letting: Letting) {
        let name = "\(scope) let go by \(letting), deinitializer: \(comeback)"
        switch letting {
        case .endOfGraph:
            armedUpTo = 1
            _ = container.resolve(Visitor.self)
        case .failedAction:
            armedUpTo = 1
            if container.resolve(Parting.self, argument: 1) != nil {
                report("\(name): the failed creation was handed out")
            }
        case .dispose, .reset, .removeAll, .registerAgain, .changeScope:
            for value in 1...3 {
                _ = container.resolve(Parting.self, argument: value)
            }
            armedUpTo = serial.count
            switch letting {
            case .dispose: try? container.dispose()
            case .reset: container.resetObjectScope(scope)
            case .removeAll: container.removeAll()
            case .registerAgain: registerOwn()
            case .changeScope(let to): entry?.inObjectScope(to)
            case .endOfGraph, .failedAction: break
            }
        }
        let made = 1...armedUpTo
        let endedNow = ended.all
        if !repeatedIDs(endedNow).isEmpty {
            report("\(name): ended twice \(repeatedIDs(endedNow)) in \(endedNow)")
        }
        for id in made {
            let count = endedNow.filter { $0 == id }.count
            if letting.disposes, count != 1 {
                report("\(name): instance \(id) ended \(count) times, expected once")
            }
            if case .changeScope = letting, count != 0 {
                report("\(name): instance \(id) ended by a scope change")
            }
        }
        let keepsOther: Bool
        switch letting {
        case .changeScope, .endOfGraph, .failedAction, .registerAgain: keepsOther = true
        case .reset: keepsOther = scope !== ObjectScope.container
        case .dispose, .removeAll: keepsOther = false
        }
        if keepsOther, comeback == .resolveOther, otherFound.contains(false) {
            report("\(name): the deinitializer did not find the kept instance of another service")
        }
        // Everything still kept ends once more at most.
        try? container.dispose()
        let all = ended.all
        if !repeatedIDs(all).isEmpty {
            report("\(name): after a last dispose(), ended twice \(repeatedIDs(all))")
        }
        armedUpTo = 0
    }

    /// Runs every deinitializer against every way `group` lets instances go, each in a new container.
    static func runAll(_ group: String) {
        let keeping: [ObjectScope] = [.container, .multiton]
        let all: [ObjectScope] = [.transient, .graph, .container, .weak, .multiton]
        var cases: [(ObjectScope, Letting, Bool)] = []
        switch group {
        case "disposing":
            for scope in keeping {
                for letting in [Letting.dispose, .reset, .removeAll, .registerAgain] {
                    cases.append((scope, letting, false))
                }
            }
        case "scope change":
            for scope in keeping {
                for to in all where to !== scope {
                    cases.append((scope, .changeScope(to: to), false))
                }
            }
        default:
            cases = [(.graph, .endOfGraph, false), (.weak, .endOfGraph, false), (.multiton, .failedAction, true)]
        }
        for (scope, letting, failing) in cases {
            for comeback in Comeback.allCases {
                announce("\(scope) let go by \(letting), deinitializer: \(comeback)")
                let scenario = DeinitScenario(scope: scope, comeback: comeback, failing: failing)
                scenario.run(letting)
                withExtendedLifetime(scenario) {}
            }
        }
    }
}

@Suite("Key and slot attack: deinitializers that come back while a scope lets go", .tags(.engine))
struct KeyAndSlotDeinitTests {
    /// dispose(), resetObjectScope, removeAll() and a new registration of the key let go of `.container`
    /// and `.multiton` instances (three argument values) whose deinitializers resolve, register, dispose,
    /// reset, change their scope or remove everything. Each instance is ended exactly once, and a
    /// deinitializer finds the kept instance of another service where the drop left it.
    @Test("Disposing calls let go of instances whose deinitializers come back: no crash, each ended once")
    func disposingCalls() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            DeinitScenario.runAll("disposing")
        }
        #expect(violations(result).isEmpty, "\(violations(result))")
    }

    /// A scope change from `.container` and `.multiton` to every other scope drops instances without
    /// ending them; their deinitializers come back in every way.
    @Test("Scope changes between every pair of scopes let go of instances whose deinitializers come back")
    func scopeChanges() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            DeinitScenario.runAll("scope change")
        }
        #expect(violations(result).isEmpty, "\(violations(result))")
    }

    /// A `.graph` and a `.weak` instance let go when their graph ends, and a `.multiton` instance whose
    /// `initCompleted` action throws, with deinitializers that come back in every way.
    @Test("Graph ends and failed actions let go of instances whose deinitializers come back")
    func graphEndsAndFailures() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            DeinitScenario.runAll("graph")
        }
        #expect(violations(result).isEmpty, "\(violations(result))")
    }
}

// MARK: - Dropped creations whose initCompleted actions dispose, reset, change scope or register again

/// What drops a creation while its factory runs, or what its `initCompleted` action calls.
enum KeyAndSlotDropping: String, CaseIterable, Sendable {
    case nothing, dispose, reset, registerAgain, removeAll, changeScope, changeScopeToTransient

    var disposes: Bool {
        switch self {
        case .dispose, .reset, .registerAgain, .removeAll: true
        case .nothing, .changeScope, .changeScopeToTransient: false
        }
    }
}

/// A synchronous `.container` or `.multiton` registration whose first creation is dropped by its own
/// factory (`factoryDrop`) and whose `initCompleted` action then calls `action`.
private final class DroppedCreation {
    let container = Container()
    let ended = SerialLog()
    let serial = Counter()
    let scope: ObjectScope
    let factoryDrop: KeyAndSlotDropping
    let action: KeyAndSlotDropping
    var entry: ServiceEntry<Keyed>?

    init(scope: ObjectScope, factoryDrop: KeyAndSlotDropping, action: KeyAndSlotDropping) {
        self.scope = scope
        self.factoryDrop = factoryDrop
        self.action = action
        register()
    }

    func register() {
        entry = container.register(Keyed.self) { [weak self] (_, _: Int) in
            let id = self?.serial.next() ?? -1
            if id == 1, let self {
                call(factoryDrop)
            }
            return Keyed(id: id)
        }
        .inObjectScope(scope)
        .initCompleted { [weak self] _, made in
            if made.id == 1, let self {
                call(action)
            }
        }
        .onDispose { [ended] in ended.add($0.id) }
    }

    func call(_ dropping: KeyAndSlotDropping) {
        switch dropping {
        case .nothing: break
        case .dispose: try? container.dispose()
        case .reset: container.resetObjectScope(scope)
        case .registerAgain: register()
        case .removeAll: container.removeAll()
        case .changeScope: entry?.inObjectScope(scope === ObjectScope.container ? .multiton : .container)
        case .changeScopeToTransient: entry?.inObjectScope(.transient)
        }
    }

    func run() {
        let name = "\(scope), factory: \(factoryDrop), action: \(action)"
        let first = container.resolve(Keyed.self, argument: 1)
        if first?.id != 1 {
            report("\(name): the first resolve got \(String(describing: first?.id))")
        }
        let count = ended.all.filter { $0 == 1 }.count
        if factoryDrop.disposes, count != 1 {
            report("\(name): the dropped instance ended \(count) times, expected once")
        }
        if !factoryDrop.disposes, !action.disposes, count != 0 {
            report("\(name): an instance only a scope change dropped ended \(count) times")
        }
        if count > 1 {
            report("\(name): the dropped instance ended \(count) times")
        }
        // A creation dropped while its factory ran keeps nothing.
        if factoryDrop != .nothing, factoryDrop != .removeAll {
            let second = container.resolve(Keyed.self, argument: 1)
            if let second, second === first {
                report("\(name): the dropped creation's instance was kept")
            }
        }
        try? container.dispose()
        if !repeatedIDs(ended.all).isEmpty {
            report("\(name): ended twice \(repeatedIDs(ended.all))")
        }
    }

    static func runAll(
        _ drops: [KeyAndSlotDropping],
        actions: [KeyAndSlotDropping] = KeyAndSlotDropping.allCases,
        scopes: [ObjectScope] = [.container, .multiton]
    ) {
        for scope in scopes {
            for factoryDrop in drops {
                for action in actions {
                    announce("\(scope), factory: \(factoryDrop), action: \(action)")
                    let scenario = DroppedCreation(scope: scope, factoryDrop: factoryDrop, action: action)
                    scenario.run()
                    withExtendedLifetime(scenario) {}
                }
            }
        }
    }
}

@Suite("Key and slot attack: dropped synchronous creations and their actions", .tags(.engine))
struct KeyAndSlotDroppedCreationTests {
    /// A factory that disposes, resets, registers its key again or removes everything drops its own
    /// creation; its `initCompleted` action then calls each of those, or changes the scope. The instance is
    /// ended exactly once, whichever call ends it, and is not kept.
    @Test("A creation dropped by a disposing call, whose action disposes, resets, changes scope or registers")
    func droppedByDisposingCalls() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            DroppedCreation.runAll([.nothing, .dispose, .reset, .registerAgain, .removeAll])
        }
        #expect(violations(result).isEmpty, "\(violations(result))")
    }

    /// A factory that moves its own registration to `.transient` drops its creation without ending it; its
    /// action then calls each kind of drop. (Moves between `.container` and `.multiton`: the tests below.)
    @Test("A creation whose factory changes its scope, whose action disposes, resets, changes scope or registers")
    func droppedByScopeChanges() async {
        let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
            DroppedCreation.runAll([.changeScopeToTransient])
        }
        #expect(violations(result).isEmpty, "\(violations(result))")
    }

    /// An `initCompleted` action of a `.container` creation moves its registration to `.multiton`. The
    /// creation used to number its completion by the entry's scope now, `.multiton`, reading the arguments
    /// of a `.multiton` creation in flight (`multitonKeys`), of which there was none: the process stopped on
    /// "Index out of range" (`numberMultitonCompletion`). A scope change now leaves the creation keeping
    /// nothing (`Frame.keepsNothing`).
    @Test("A .container creation whose initCompleted action moves its registration to .multiton")
    func actionMovesContainerToMultiton() async {
        await #expect(processExitsWith: .success) {
            let container = Container()
            nonisolated(unsafe) var entry: ServiceEntry<Keyed>?
            entry = container.register(Keyed.self) { (_, _: Int) in Keyed(id: 1) }
                .inObjectScope(.container)
                .initCompleted { _, _ in entry?.inObjectScope(.multiton) }
            _ = container.resolve(Keyed.self, argument: 1)
        }
    }

    /// The factory of a `.container` creation moves its registration to `.multiton`: the creation was not
    /// marked dropped, and stored its instance by the entry's scope now, under the arguments of a
    /// `.multiton` creation in flight, of which there was none: "Index out of range" in `storeByArguments`.
    @Test("A .container creation whose factory moves its registration to .multiton")
    func factoryMovesContainerToMultiton() async {
        await #expect(processExitsWith: .success) {
            let container = Container()
            nonisolated(unsafe) var entry: ServiceEntry<Keyed>?
            entry = container.register(Keyed.self) { (_, _: Int) in
                entry?.inObjectScope(.multiton)
                return Keyed(id: 1)
            }
            .inObjectScope(.container)
            _ = container.resolve(Keyed.self, argument: 1)
        }
    }

    /// The scope rules: a scope change drops instances "held or in flight". A synchronous `.multiton`
    /// creation whose factory moves its registration to `.container` was not marked dropped, and its
    /// instance became the `.container` instance.
    @Test("A .multiton creation whose factory moves its registration to .container keeps nothing")
    func factoryMovesMultitonToContainer() throws {
        let container = Container()
        let serial = Counter()
        nonisolated(unsafe) var entry: ServiceEntry<Keyed>?
        entry = container.register(Keyed.self) { (_, _: Int) in
            let id = serial.next()
            if id == 1 {
                entry?.inObjectScope(.container)
            }
            return Keyed(id: id)
        }
        .inObjectScope(.multiton)
        let first = try container.resolveThrows(Keyed.self, argument: 1)
        #expect(first.id == 1)
        let second = try container.resolveThrows(Keyed.self, argument: 2)
        #expect(second !== first, "a creation dropped by a scope change keeps nothing")
        #expect(try container.resolveThrows(Keyed.self, argument: 3) === second)
    }
}

// MARK: - Async creations dropped while in flight, and cancelled disposeAsync() calls

/// Waits, yielding, until `condition` holds or about two seconds have passed; returns whether it held.
private func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<2_000 {
        if condition() {
            return true
        }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}

/// An async registration whose first creation waits for `release`, with handlers that record what ended.
private final class AsyncDropScenario: @unchecked Sendable {
    // @unchecked: the container and `entry` are used by the test task and by the creation it waits for,
    // one after the other (the test waits for `entered` before it touches them).
    let container = Container()
    let serial = Counter()
    let ended = SerialLog()
    let endedAsync = SerialLog()
    let entered = Gate()
    let release = Gate()
    let scope: ObjectScope
    let action: KeyAndSlotDropping
    var entry: ServiceEntry<Keyed>?

    init(scope: ObjectScope, action: KeyAndSlotDropping) {
        self.scope = scope
        self.action = action
        register()
    }

    func register() {
        let entered = entered
        let release = release
        let serial = serial
        entry = container.registerAsync(Keyed.self) { (_, _: Int) in
            let id = serial.next()
            if id == 1 {
                entered.open()
                await release.wait()
            }
            return Keyed(id: id)
        }
        .inObjectScope(scope)
        .initCompleted { [weak self] _, made in
            if made.id == 1, let self {
                call(action)
            }
        }
        .onDispose { [ended] in ended.add($0.id) }
        .onDisposeAsync { [endedAsync] in endedAsync.add($0.id) }
    }

    func call(_ dropping: KeyAndSlotDropping) {
        switch dropping {
        case .nothing: break
        case .dispose: try? container.dispose()
        case .reset: container.resetObjectScope(scope)
        case .registerAgain: register()
        case .removeAll: container.removeAll()
        case .changeScope: entry?.inObjectScope(scope === ObjectScope.container ? .multiton : .container)
        case .changeScopeToTransient: entry?.inObjectScope(.transient)
        }
    }
}

@Suite(
    "Key and slot attack: async creations dropped in flight, cancelled disposeAsync()",
    .hangLimit,
    .tags(.engine, .concurrency)
)
struct KeyAndSlotAsyncDropTests {
    /// An async creation in flight is dropped by each disposing call or a scope change; its `initCompleted`
    /// action then calls each of them. The instance is ended at most once by each kind of handler, exactly
    /// once by the synchronous ones when a disposing call dropped it, never when only scope changes did.
    @Test(
        "An async creation dropped in flight whose action disposes, resets, changes scope or registers again",
        arguments: [ObjectScope.container, .multiton],
        [KeyAndSlotDropping.dispose, .reset, .registerAgain, .removeAll, .changeScope, .changeScopeToTransient]
    )
    func droppedInFlight(scope: ObjectScope, drop: KeyAndSlotDropping) async throws {
        for action in KeyAndSlotDropping.allCases {
            let scenario = AsyncDropScenario(scope: scope, action: action)
            let view = scenario.container.synchronize()
            let creator = Task { try await view.resolveAsync(Keyed.self, argument: 1) }
            await scenario.entered.wait()
            scenario.call(drop)
            scenario.release.open()
            let made = try await creator.value
            let name = "\(scope) dropped by \(drop), action: \(action)"
            #expect(made.id == 1, "\(name)")
            let count = scenario.ended.all.filter { $0 == 1 }.count
            if drop.disposes {
                #expect(count == 1, "\(name): ended \(count) times, expected once")
            } else if !action.disposes {
                #expect(count == 0, "\(name): ended \(count) times by scope changes alone")
            } else {
                #expect(count <= 1, "\(name): ended \(count) times")
            }
            // Whatever the scope is now, the dropped creation's instance is not what it keeps.
            if let next = try? await view.resolveAsync(Keyed.self, argument: 1) {
                #expect(next !== made, "\(name): the dropped creation's instance was kept")
            }
            try await scenario.container.disposeAsync()
            #expect(repeatedIDs(scenario.ended.all).isEmpty, "\(name): \(scenario.ended.all)")
            #expect(repeatedIDs(scenario.endedAsync.all).isEmpty, "\(name): \(scenario.endedAsync.all)")
            #expect(Set(scenario.endedAsync.all).isSubset(of: Set(scenario.ended.all)), "\(name)")
        }
    }

    /// An async `.container` creation dropped in flight by dispose() stores its instance for its actions; an
    /// action moves the registration to `.multiton`. The creation then takes its instance back by the
    /// entry's scope now, reading the arguments of a `.multiton` creation in flight, of which there was none:
    /// "Index out of range" in `takeBack` (Scopes.swift). The synchronous path stopped the same way.
    @Test("A dropped .container creation whose initCompleted action moves its registration to .multiton")
    func droppedContainerCreationMovedToMultiton() async {
        await #expect(processExitsWith: .success) {
            let scenario = AsyncDropScenario(scope: .container, action: .changeScope)
            let view = scenario.container.synchronize()
            let creator = Task { try await view.resolveAsync(Keyed.self, argument: 1) }
            await scenario.entered.wait()
            try? scenario.container.dispose()
            scenario.release.open()
            _ = await creator.result
        }
    }

    /// Starts `disposeAsync()` in a task cancelled before it runs, and returns it with a flag set when it
    /// returns.
    private static func cancelledDisposal(of container: Container) -> (Task<Void, any Error>, FinishFlag) {
        nonisolated(unsafe) let disposable = container
        let returned = FinishFlag()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            defer { returned.set() }
            try await disposable.disposeAsync()
        }
        return (task, returned)
    }

    @Test(
        "Cancelled disposeAsync() calls, several at once, wait for the creation they took and end it once",
        arguments: [ObjectScope.container, .multiton]
    )
    func severalCancelledDisposals(scope: ObjectScope) async throws {
        let scenario = AsyncDropScenario(scope: scope, action: .nothing)
        let view = scenario.container.synchronize()
        let creator = Task { try await view.resolveAsync(Keyed.self, argument: 1) }
        await scenario.entered.wait()
        let calls = (0..<3).map { _ in Self.cancelledDisposal(of: scenario.container) }
        try await Task.sleep(for: .milliseconds(50))
        // The first call took the creation and waits for it.
        #expect(calls.contains { !$0.1.isSet }, "every cancelled disposeAsync() returned before the creation ended")
        scenario.release.open()
        for (task, _) in calls {
            _ = await task.result
        }
        #expect(calls.allSatisfy { $0.1.isSet })
        #expect(try await creator.value.id == 1)
        #expect(scenario.ended.all == [1], "\(scenario.ended.all)")
        #expect(scenario.endedAsync.all == [1], "\(scenario.endedAsync.all)")
        try await scenario.container.disposeAsync()
        #expect(scenario.ended.all == [1] && scenario.endedAsync.all == [1])
        #expect(try await view.resolveAsync(Keyed.self, argument: 1).id == 2, "the taken creation was not kept")
    }

    @Test(
        "A cancelled disposeAsync() that took a creation whose factory throws returns once it failed, ending nothing",
        arguments: [ObjectScope.container, .multiton]
    )
    func cancelledDisposalOfAFailingCreation(scope: ObjectScope) async throws {
        let container = Container()
        let ended = SerialLog()
        let endedAsync = SerialLog()
        let entered = Gate()
        let release = Gate()
        let attempts = Counter()
        container.registerAsync(Keyed.self) { (_, _: Int) in
            let attempt = attempts.next()
            if attempt == 1 {
                entered.open()
                await release.wait()
                throw Refusal()
            }
            return Keyed(id: attempt)
        }
        .inObjectScope(scope)
        .onDispose { ended.add($0.id) }
        .onDisposeAsync { endedAsync.add($0.id) }
        let view = container.synchronize()
        let creator = Task { try await view.resolveAsync(Keyed.self, argument: 1) }
        await entered.wait()
        let (disposing, returned) = Self.cancelledDisposal(of: container)
        try await Task.sleep(for: .milliseconds(30))
        #expect(!returned.isSet, "the cancelled disposeAsync() returned before the creation it took ended")
        release.open()
        _ = await disposing.result
        let outcome = await creator.result
        #expect(throws: DIError.self) { try outcome.get() }
        #expect(ended.all.isEmpty && endedAsync.all.isEmpty)
        let retried = try await view.resolveAsync(Keyed.self, argument: 1)
        #expect(retried.id == 2)
        try await container.disposeAsync()
        #expect(ended.all == [2] && endedAsync.all == [2])
    }

    @Test(
        "A cancelled disposeAsync() that took a creation its own task cancels: both return, nothing ended",
        arguments: [ObjectScope.container, .multiton]
    )
    func cancelledDisposalOfACancelledCreation(scope: ObjectScope) async throws {
        let container = Container()
        let ended = SerialLog()
        let endedAsync = SerialLog()
        let entered = Gate()
        let release = Gate()
        let attempts = Counter()
        container.registerAsync(Keyed.self) { (_, _: Int) in
            let attempt = attempts.next()
            if attempt == 1 {
                entered.open()
                await release.wait()
                try Task.checkCancellation()
            }
            return Keyed(id: attempt)
        }
        .inObjectScope(scope)
        .onDispose { ended.add($0.id) }
        .onDisposeAsync { endedAsync.add($0.id) }
        // A plain container runs the creation in the resolving task, which is cancelled.
        nonisolated(unsafe) let plain = container
        let creator = Task { try await plain.resolveAsync(Keyed.self, argument: 1) }
        await entered.wait()
        let (disposing, returned) = Self.cancelledDisposal(of: container)
        try await Task.sleep(for: .milliseconds(30))
        #expect(!returned.isSet, "the cancelled disposeAsync() returned before the creation it took ended")
        creator.cancel()
        release.open()
        _ = await disposing.result
        #expect(returned.isSet)
        let outcome = await creator.result
        #expect(throws: (any Error).self) { try outcome.get() }
        #expect(ended.all.isEmpty && endedAsync.all.isEmpty)
        let next = try await container.resolveAsync(Keyed.self, argument: 1)
        #expect(next.id == 2)
        try await container.disposeAsync()
        #expect(ended.all == [2] && endedAsync.all == [2])
    }

    @Test("Cancelled disposeAsync() calls racing creations of several argument values: handlers once per instance")
    func cancelledDisposalsRacingCreations() async throws {
        let container = Container()
        let serial = Counter()
        let made = SerialLog()
        let ended = SerialLog()
        let endedAsync = SerialLog()
        container.registerAsync(Keyed.self) { (_, _: Int) in
            await Task.yield()
            let id = serial.next()
            made.add(id)
            return Keyed(id: id)
        }
        .inObjectScope(.multiton)
        .onDispose { ended.add($0.id) }
        .onDisposeAsync { endedAsync.add($0.id) }
        let view = container.synchronize()
        for round in 0..<40 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<3 {
                    group.addTask { _ = try await view.resolveAsync(Keyed.self, argument: (round + worker) % 4) }
                }
                let (first, _) = Self.cancelledDisposal(of: container)
                let (second, _) = Self.cancelledDisposal(of: container)
                group.addTask { _ = await first.result }
                group.addTask { _ = await second.result }
                try await group.waitForAll()
            }
        }
        try await container.disposeAsync()
        #expect(repeatedIDs(ended.all).isEmpty, "synchronous handlers twice for \(repeatedIDs(ended.all))")
        #expect(repeatedIDs(endedAsync.all).isEmpty, "asynchronous handlers twice for \(repeatedIDs(endedAsync.all))")
        #expect(Set(ended.all) == Set(made.all), "every instance ended")
        // Every disposing call here is a disposeAsync(), cancelled or not: every handler of each instance ran.
        #expect(Set(endedAsync.all) == Set(made.all), "every instance's asynchronous handlers ran")
    }
}
