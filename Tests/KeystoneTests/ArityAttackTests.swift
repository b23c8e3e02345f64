import Keystone
import Testing

// Registrations taking one to nine runtime arguments, made by generic code that the optimizer keeps
// generic (the helpers below are never specialized) or by a recursion over ever deeper generic types,
// then resolved in every style and through every kind of resolver. They matter most in optimized builds:
// there, a closure over a parameter pack, partially applied without being specialized, once read an
// uninitialized list of argument types and crashed.

// MARK: - Fixtures

/// The error the factories below throw for a negative first argument.
private struct Refused: Error, Equatable {
    let value: Int
}

/// What most factories below make: the arguments they were handed, rendered in order. `Marker` keeps
/// the registrations of different tests apart.
private final class Echo<Marker>: Sendable {
    let values: [String]
    init(_ values: [String]) { self.values = values }
}

/// A service type larger than the eight words a resolve returns on the stack.
private struct WideEcho: Sendable {
    let values: [String]
    let padding: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
}

/// An argument type of twelve words.
private struct Wide: Hashable, Sendable, CustomStringConvertible {
    let a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int, j: Int, k: Int, l: Int
    init(_ seed: Int) {
        (a, b, c, d, e, f) = (seed, seed + 1, seed + 2, seed + 3, seed + 4, seed + 5)
        (g, h, i, j, k, l) = (seed + 6, seed + 7, seed + 8, seed + 9, seed + 10, seed + 11)
    }
    var description: String { "w\(a)-\(l)" }
}

private protocol Shape: Sendable {
    var sides: Int { get }
}

private struct Square: Shape {
    let sides = 4
}

private protocol Announcing: AnyObject {
    var values: [String] { get }
}

private final class Announcer: Announcing {
    let values: [String]
    init(_ values: [String]) { self.values = values }
}

/// The nine sample arguments as the factories below render them, the first `count`.
private func rendered(first: Int, count: Int) -> [String] {
    Array(["\(first)", "two", "3.5", "true", "5", "[6]", "nil", "8", "9"].prefix(count))
}

/// `first` rendered, or `Refused` for a negative one: how a factory below fails.
private func accepted(_ first: Int) throws -> String {
    if first < 0 { throw Refused(value: first) }
    return "\(first)"
}

/// The name of the registration taking `count` arguments under `prefix`, or none without a prefix.
private func arityName(_ prefix: String?, _ count: Int) -> String? {
    prefix.map { "\($0)\(count)" }
}
// MARK: - Generic helpers the optimizer leaves generic

/// Registers `Service` nine times, taking 1 to 9 arguments of concrete types (`Int`, `String`, `Double`,
/// `Bool`, `Int8`, `[Int]`, `Int?`, `UInt`, `Character`, the first `n`), unnamed without a prefix. Each
/// factory hands `make` its arguments rendered, and throws `Refused` for a negative first argument.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerEveryArity<Service>(
    _: Service.Type,
    prefix: String?,
    scope: ObjectScope = .graph,
    in container: Container,
    make: @escaping ([String]) -> Service
) {
    container.register(Service.self, name: arityName(prefix, 1)) { (_: any Resolver, a: Int) in
        make([try accepted(a)])
    }
    .inObjectScope(scope)
    container.register(Service.self, name: arityName(prefix, 2)) { (_: any Resolver, a: Int, b: String) in
        make([try accepted(a), b])
    }
    .inObjectScope(scope)
    container.register(Service.self, name: arityName(prefix, 3)) { (_: any Resolver, a: Int, b: String, c: Double) in
        make([try accepted(a), b, "\(c)"])
    }
    .inObjectScope(scope)
    container.register(Service.self, name: arityName(prefix, 4)) {
        (_: any Resolver, a: Int, b: String, c: Double, d: Bool) in
        make([try accepted(a), b, "\(c)", "\(d)"])
    }
    .inObjectScope(scope)
    container.register(Service.self, name: arityName(prefix, 5)) {
        (_: any Resolver, a: Int, b: String, c: Double, d: Bool, e: Int8) in
        make([try accepted(a), b, "\(c)", "\(d)", "\(e)"])
    }
    .inObjectScope(scope)
    container.register(Service.self, name: arityName(prefix, 6)) {
        (_: any Resolver, a: Int, b: String, c: Double, d: Bool, e: Int8, f: [Int]) in
        make([try accepted(a), b, "\(c)", "\(d)", "\(e)", "\(f)"])
    }
    .inObjectScope(scope)
    container.register(Service.self, name: arityName(prefix, 7)) {
        (_: any Resolver, a: Int, b: String, c: Double, d: Bool, e: Int8, f: [Int], g: Int?) in
        make([try accepted(a), b, "\(c)", "\(d)", "\(e)", "\(f)", String(describing: g)])
    }
    .inObjectScope(scope)
    container.register(Service.self, name: arityName(prefix, 8)) {
        (_: any Resolver, a: Int, b: String, c: Double, d: Bool, e: Int8, f: [Int], g: Int?, h: UInt) in
        make([try accepted(a), b, "\(c)", "\(d)", "\(e)", "\(f)", String(describing: g), "\(h)"])
    }
    .inObjectScope(scope)
    container.register(Service.self, name: arityName(prefix, 9)) {
        (_: any Resolver, a: Int, b: String, c: Double, d: Bool, e: Int8, f: [Int], g: Int?, h: UInt, i: Character) in
        make([try accepted(a), b, "\(c)", "\(d)", "\(e)", "\(f)", String(describing: g), "\(h)", "\(i)"])
    }
    .inObjectScope(scope)
}

/// Resolves the registrations of `registerEveryArity` through `resolver`, Optional style, with `first`.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func resolveEveryArity<R: Resolver, Service>(
    _: Service.Type,
    prefix: String?,
    from resolver: R,
    first: Int
) -> [Service?] {
    var resolved: [Service?] = []
    resolved.append(resolver.resolve(Service.self, name: arityName(prefix, 1), argument: first))
    resolved.append(resolver.resolve(Service.self, name: arityName(prefix, 2), arguments: first, "two"))
    resolved.append(resolver.resolve(Service.self, name: arityName(prefix, 3), arguments: first, "two", 3.5))
    resolved.append(resolver.resolve(Service.self, name: arityName(prefix, 4), arguments: first, "two", 3.5, true))
    resolved.append(
        resolver.resolve(Service.self, name: arityName(prefix, 5), arguments: first, "two", 3.5, true, Int8(5))
    )
    resolved.append(
        resolver.resolve(Service.self, name: arityName(prefix, 6), arguments: first, "two", 3.5, true, Int8(5), [6])
    )
    resolved.append(
        resolver.resolve(
            Service.self,
            name: arityName(prefix, 7),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none
        )
    )
    resolved.append(
        resolver.resolve(
            Service.self,
            name: arityName(prefix, 8),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8)
        )
    )
    resolved.append(
        resolver.resolve(
            Service.self,
            name: arityName(prefix, 9),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8),
            Character("9")
        )
    )
    return resolved
}

/// Resolves the registrations of `registerEveryArity` through `resolver` with `resolveThrows`.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func resolveEveryArityThrowing<Service>(
    _: Service.Type,
    prefix: String?,
    from resolver: any Resolver,
    first: Int
) -> [Result<Service, DIError>] {
    var resolved: [Result<Service, DIError>] = []
    resolved.append(
        Result { () throws(DIError) in
            try resolver.resolveThrows(Service.self, name: arityName(prefix, 1), argument: first)
        }
    )
    resolved.append(
        Result { () throws(DIError) in
            try resolver.resolveThrows(Service.self, name: arityName(prefix, 2), arguments: first, "two")
        }
    )
    resolved.append(
        Result { () throws(DIError) in
            try resolver.resolveThrows(Service.self, name: arityName(prefix, 3), arguments: first, "two", 3.5)
        }
    )
    resolved.append(
        Result { () throws(DIError) in
            try resolver.resolveThrows(Service.self, name: arityName(prefix, 4), arguments: first, "two", 3.5, true)
        }
    )
    resolved.append(
        Result { () throws(DIError) in
            try resolver.resolveThrows(
                Service.self,
                name: arityName(prefix, 5),
                arguments: first,
                "two",
                3.5,
                true,
                Int8(5)
            )
        }
    )
    resolved.append(
        Result { () throws(DIError) in
            try resolver.resolveThrows(
                Service.self,
                name: arityName(prefix, 6),
                arguments: first,
                "two",
                3.5,
                true,
                Int8(5),
                [6]
            )
        }
    )
    resolved.append(
        Result { () throws(DIError) in
            try resolver.resolveThrows(
                Service.self,
                name: arityName(prefix, 7),
                arguments: first,
                "two",
                3.5,
                true,
                Int8(5),
                [6],
                Int?.none
            )
        }
    )
    resolved.append(
        Result { () throws(DIError) in
            try resolver.resolveThrows(
                Service.self,
                name: arityName(prefix, 8),
                arguments: first,
                "two",
                3.5,
                true,
                Int8(5),
                [6],
                Int?.none,
                UInt(8)
            )
        }
    )
    resolved.append(
        Result { () throws(DIError) in
            try resolver.resolveThrows(
                Service.self,
                name: arityName(prefix, 9),
                arguments: first,
                "two",
                3.5,
                true,
                Int8(5),
                [6],
                Int?.none,
                UInt(8),
                Character("9")
            )
        }
    )
    return resolved
}

/// Resolves the registrations of `registerEveryArity` through `resolver` with `resolveResult`.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func resolveEveryArityAsResults<R: Resolver, Service>(
    _: Service.Type,
    prefix: String?,
    from resolver: R,
    first: Int
) -> [Result<Service, DIError>] {
    var resolved: [Result<Service, DIError>] = []
    resolved.append(resolver.resolveResult(Service.self, name: arityName(prefix, 1), argument: first))
    resolved.append(resolver.resolveResult(Service.self, name: arityName(prefix, 2), arguments: first, "two"))
    resolved.append(resolver.resolveResult(Service.self, name: arityName(prefix, 3), arguments: first, "two", 3.5))
    resolved.append(
        resolver.resolveResult(Service.self, name: arityName(prefix, 4), arguments: first, "two", 3.5, true)
    )
    resolved.append(
        resolver.resolveResult(Service.self, name: arityName(prefix, 5), arguments: first, "two", 3.5, true, Int8(5))
    )
    resolved.append(
        resolver.resolveResult(
            Service.self,
            name: arityName(prefix, 6),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6]
        )
    )
    resolved.append(
        resolver.resolveResult(
            Service.self,
            name: arityName(prefix, 7),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none
        )
    )
    resolved.append(
        resolver.resolveResult(
            Service.self,
            name: arityName(prefix, 8),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8)
        )
    )
    resolved.append(
        resolver.resolveResult(
            Service.self,
            name: arityName(prefix, 9),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8),
            Character("9")
        )
    )
    return resolved
}

/// Resolves the registrations of `registerEveryArity` through `resolver` as `Lazy` and as `Provider`.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func resolveEveryArityDeferred<Service>(
    _: Service.Type,
    prefix: String?,
    from resolver: any Resolver,
    first: Int
) -> (lazies: [Lazy<Service>?], providers: [Provider<Service>?]) {
    var lazies: [Lazy<Service>?] = []
    var providers: [Provider<Service>?] = []
    lazies.append(resolver.resolve(Lazy<Service>.self, name: arityName(prefix, 1), argument: first))
    providers.append(resolver.resolve(Provider<Service>.self, name: arityName(prefix, 1), argument: first))
    lazies.append(resolver.resolve(Lazy<Service>.self, name: arityName(prefix, 2), arguments: first, "two"))
    providers.append(resolver.resolve(Provider<Service>.self, name: arityName(prefix, 2), arguments: first, "two"))
    lazies.append(resolver.resolve(Lazy<Service>.self, name: arityName(prefix, 3), arguments: first, "two", 3.5))
    providers.append(resolver.resolve(Provider<Service>.self, name: arityName(prefix, 3), arguments: first, "two", 3.5))
    lazies.append(resolver.resolve(Lazy<Service>.self, name: arityName(prefix, 4), arguments: first, "two", 3.5, true))
    providers.append(
        resolver.resolve(Provider<Service>.self, name: arityName(prefix, 4), arguments: first, "two", 3.5, true)
    )
    lazies.append(
        resolver.resolve(Lazy<Service>.self, name: arityName(prefix, 5), arguments: first, "two", 3.5, true, Int8(5))
    )
    providers.append(
        resolver.resolve(
            Provider<Service>.self,
            name: arityName(prefix, 5),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5)
        )
    )
    lazies.append(
        resolver.resolve(
            Lazy<Service>.self,
            name: arityName(prefix, 6),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6]
        )
    )
    providers.append(
        resolver.resolve(
            Provider<Service>.self,
            name: arityName(prefix, 6),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6]
        )
    )
    lazies.append(
        resolver.resolve(
            Lazy<Service>.self,
            name: arityName(prefix, 7),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none
        )
    )
    providers.append(
        resolver.resolve(
            Provider<Service>.self,
            name: arityName(prefix, 7),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none
        )
    )
    lazies.append(
        resolver.resolve(
            Lazy<Service>.self,
            name: arityName(prefix, 8),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8)
        )
    )
    providers.append(
        resolver.resolve(
            Provider<Service>.self,
            name: arityName(prefix, 8),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8)
        )
    )
    lazies.append(
        resolver.resolve(
            Lazy<Service>.self,
            name: arityName(prefix, 9),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8),
            Character("9")
        )
    )
    providers.append(
        resolver.resolve(
            Provider<Service>.self,
            name: arityName(prefix, 9),
            arguments: first,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8),
            Character("9")
        )
    )
    return (lazies, providers)
}

/// Adds samples for the registrations of `registerEveryArity`, with `first` as the first argument.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func addEverySample<Service>(
    to samples: inout SampleArguments,
    _: Service.Type,
    prefix: String?,
    first: Int
) {
    samples.add(Service.self, name: arityName(prefix, 1), arguments: first)
    samples.add(Service.self, name: arityName(prefix, 2), arguments: first, "two")
    samples.add(Service.self, name: arityName(prefix, 3), arguments: first, "two", 3.5)
    samples.add(Service.self, name: arityName(prefix, 4), arguments: first, "two", 3.5, true)
    samples.add(Service.self, name: arityName(prefix, 5), arguments: first, "two", 3.5, true, Int8(5))
    samples.add(Service.self, name: arityName(prefix, 6), arguments: first, "two", 3.5, true, Int8(5), [6])
    samples.add(Service.self, name: arityName(prefix, 7), arguments: first, "two", 3.5, true, Int8(5), [6], Int?.none)
    samples.add(
        Service.self,
        name: arityName(prefix, 8),
        arguments: first,
        "two",
        3.5,
        true,
        Int8(5),
        [6],
        Int?.none,
        UInt(8)
    )
    samples.add(
        Service.self,
        name: arityName(prefix, 9),
        arguments: first,
        "two",
        3.5,
        true,
        Int8(5),
        [6],
        Int?.none,
        UInt(8),
        Character("9")
    )
}

/// Registers `Echo<ArgumentsGeneric>` nine times, taking 1 to 9 arguments all of type `A`: the service
/// type is concrete, the argument types generic.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerEveryArity<A>(taking _: A.Type, in container: Container) {
    typealias Made = Echo<ArgumentsGeneric>
    container.register(Made.self) { (_: any Resolver, a: A) in
        Made([String(describing: a)])
    }
    container.register(Made.self) { (_: any Resolver, a: A, b: A) in
        Made([String(describing: a), String(describing: b)])
    }
    container.register(Made.self) { (_: any Resolver, a: A, b: A, c: A) in
        Made([String(describing: a), String(describing: b), String(describing: c)])
    }
    container.register(Made.self) { (_: any Resolver, a: A, b: A, c: A, d: A) in
        Made([String(describing: a), String(describing: b), String(describing: c), String(describing: d)])
    }
    container.register(Made.self) { (_: any Resolver, a: A, b: A, c: A, d: A, e: A) in
        Made([
            String(describing: a), String(describing: b), String(describing: c), String(describing: d),
            String(describing: e),
        ])
    }
    container.register(Made.self) { (_: any Resolver, a: A, b: A, c: A, d: A, e: A, f: A) in
        Made([
            String(describing: a), String(describing: b), String(describing: c), String(describing: d),
            String(describing: e), String(describing: f),
        ])
    }
    container.register(Made.self) { (_: any Resolver, a: A, b: A, c: A, d: A, e: A, f: A, g: A) in
        Made([
            String(describing: a), String(describing: b), String(describing: c), String(describing: d),
            String(describing: e), String(describing: f), String(describing: g),
        ])
    }
    container.register(Made.self) { (_: any Resolver, a: A, b: A, c: A, d: A, e: A, f: A, g: A, h: A) in
        Made([
            String(describing: a), String(describing: b), String(describing: c), String(describing: d),
            String(describing: e), String(describing: f), String(describing: g), String(describing: h),
        ])
    }
    container.register(Made.self) { (_: any Resolver, a: A, b: A, c: A, d: A, e: A, f: A, g: A, h: A, i: A) in
        Made([
            String(describing: a), String(describing: b), String(describing: c), String(describing: d),
            String(describing: e), String(describing: f), String(describing: g), String(describing: h),
            String(describing: i),
        ])
    }
}

/// Resolves the registrations of `registerEveryArity(taking:in:)` with the first `n` of `values`.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func resolveEveryArity<A>(passing values: [A], from resolver: any Resolver) -> [Echo<ArgumentsGeneric>?] {
    typealias Made = Echo<ArgumentsGeneric>
    let v = values
    var resolved: [Made?] = []
    resolved.append(resolver.resolve(Made.self, argument: v[0]))
    resolved.append(resolver.resolve(Made.self, arguments: v[0], v[1]))
    resolved.append(resolver.resolve(Made.self, arguments: v[0], v[1], v[2]))
    resolved.append(resolver.resolve(Made.self, arguments: v[0], v[1], v[2], v[3]))
    resolved.append(resolver.resolve(Made.self, arguments: v[0], v[1], v[2], v[3], v[4]))
    resolved.append(resolver.resolve(Made.self, arguments: v[0], v[1], v[2], v[3], v[4], v[5]))
    resolved.append(resolver.resolve(Made.self, arguments: v[0], v[1], v[2], v[3], v[4], v[5], v[6]))
    resolved.append(resolver.resolve(Made.self, arguments: v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]))
    resolved.append(resolver.resolve(Made.self, arguments: v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]))
    return resolved
}

/// Registers `Service` nine times, taking 1 to 9 arguments alternately of types `A` and `B`: the service
/// and argument types all generic.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerAlternating<Service, A, B>(
    _: Service.Type,
    _: A.Type,
    _: B.Type,
    in container: Container,
    make: @escaping ([String]) -> Service
) {
    container.register(Service.self) { (_: any Resolver, a: A) in
        make([String(describing: a)])
    }
    container.register(Service.self) { (_: any Resolver, a: A, b: B) in
        make([String(describing: a), String(describing: b)])
    }
    container.register(Service.self) { (_: any Resolver, a: A, b: B, c: A) in
        make([String(describing: a), String(describing: b), String(describing: c)])
    }
    container.register(Service.self) { (_: any Resolver, a: A, b: B, c: A, d: B) in
        make([String(describing: a), String(describing: b), String(describing: c), String(describing: d)])
    }
    container.register(Service.self) { (_: any Resolver, a: A, b: B, c: A, d: B, e: A) in
        make([
            String(describing: a), String(describing: b), String(describing: c), String(describing: d),
            String(describing: e),
        ])
    }
    container.register(Service.self) { (_: any Resolver, a: A, b: B, c: A, d: B, e: A, f: B) in
        make([
            String(describing: a), String(describing: b), String(describing: c), String(describing: d),
            String(describing: e), String(describing: f),
        ])
    }
    container.register(Service.self) { (_: any Resolver, a: A, b: B, c: A, d: B, e: A, f: B, g: A) in
        make([
            String(describing: a), String(describing: b), String(describing: c), String(describing: d),
            String(describing: e), String(describing: f), String(describing: g),
        ])
    }
    container.register(Service.self) { (_: any Resolver, a: A, b: B, c: A, d: B, e: A, f: B, g: A, h: B) in
        make([
            String(describing: a), String(describing: b), String(describing: c), String(describing: d),
            String(describing: e), String(describing: f), String(describing: g), String(describing: h),
        ])
    }
    container.register(Service.self) { (_: any Resolver, a: A, b: B, c: A, d: B, e: A, f: B, g: A, h: B, i: A) in
        make([
            String(describing: a), String(describing: b), String(describing: c), String(describing: d),
            String(describing: e), String(describing: f), String(describing: g), String(describing: h),
            String(describing: i),
        ])
    }
}

/// Resolves the registrations of `registerAlternating` with `a` and `b` alternately.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func resolveAlternating<Service, A, B>(
    _: Service.Type,
    _ a: A,
    _ b: B,
    from resolver: any Resolver
) -> [Service?] {
    var resolved: [Service?] = []
    resolved.append(resolver.resolve(Service.self, argument: a))
    resolved.append(resolver.resolve(Service.self, arguments: a, b))
    resolved.append(resolver.resolve(Service.self, arguments: a, b, a))
    resolved.append(resolver.resolve(Service.self, arguments: a, b, a, b))
    resolved.append(resolver.resolve(Service.self, arguments: a, b, a, b, a))
    resolved.append(resolver.resolve(Service.self, arguments: a, b, a, b, a, b))
    resolved.append(resolver.resolve(Service.self, arguments: a, b, a, b, a, b, a))
    resolved.append(resolver.resolve(Service.self, arguments: a, b, a, b, a, b, a, b))
    resolved.append(resolver.resolve(Service.self, arguments: a, b, a, b, a, b, a, b, a))
    return resolved
}

/// Registers `Service` taking an `Int` and a `String` in `scope`, with an `initCompleted` action and a
/// forward to `Forwarded`, all from generic code.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerShared<Service, Forwarded>(
    _: Service.Type,
    forwardedAs _: Forwarded.Type,
    scope: ObjectScope,
    in container: Container,
    completed: @escaping (Service) -> Void,
    make: @escaping (Int, String) throws -> Service
) {
    container.register(Service.self) { (_: any Resolver, number: Int, text: String) in try make(number, text) }
        .inObjectScope(scope)
        .initCompleted { _, service in completed(service) }
        .implements(Forwarded.self)
}

/// Registers `Service` taking an existential, an existential and an optional, one tuple, and the tuple's
/// two elements as two arguments: keys that must all stay apart.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerAwkwardArguments<Service>(
    _: Service.Type,
    in container: Container,
    make: @escaping ([String]) -> Service
) {
    container.register(Service.self) { (_: any Resolver, shape: any Shape) in make(["shape", "\(shape.sides)"]) }
    container.register(Service.self) { (_: any Resolver, shape: any Shape, count: Int?) in
        make(["shape", "\(shape.sides)", String(describing: count)])
    }
    container.register(Service.self) { (_: any Resolver, optional: Int?) in
        make(["optional", String(describing: optional)])
    }
    container.register(Service.self) { (_: any Resolver, pair: (Int, String)) in
        make(["tuple", "\(pair.0)", pair.1])
    }
    container.register(Service.self) { (_: any Resolver, number: Int, text: String) in
        make(["two", "\(number)", text])
    }
}

/// A class nested once more at every level of the recursion below.
private final class Level<Inner>: Sendable {
    let values: [String]
    init(_ values: [String]) { self.values = values }
}

/// Registers `Level<Inner>` and the `count - depth - 1` deeper levels, each taking two arguments, nine
/// arguments, and (async) three arguments: past the specializer's depth limit, the deep ones are made by
/// generic code.
private func registerLevels<Inner>(_: Inner.Type, depth: Int, count: Int, in container: Container) {
    guard depth < count else { return }
    container.register(Level<Inner>.self) { (_: any Resolver, number: Int, text: String) in
        Level<Inner>(["\(number + depth)", text])
    }
    container.register(Level<Inner>.self) {
        (_: any Resolver, a: Int, b: String, _: Double, _: Bool, _: Int8, _: [Int], _: Int?, _: UInt, i: Character)
        in
        Level<Inner>(["\(a + depth)", b, "\(i)"])
    }
    container.registerAsync(Level<Inner>.self, name: "async") { (_: any Resolver, a: Int, b: String, c: Wide) in
        await Task.yield()
        return Level<Inner>(["\(a + depth)", b, "\(c)"])
    }
    registerLevels(Level<Inner>.self, depth: depth + 1, count: count, in: container)
}

/// How many of the levels resolve, through `resolver`, to what their own factories make.
private func resolvedLevels<Inner>(_: Inner.Type, depth: Int, count: Int, in resolver: any Resolver) -> Int {
    guard depth < count else { return 0 }
    let two = resolver.resolve(Level<Inner>.self, arguments: 1, "x")?.values == ["\(1 + depth)", "x"]
    let nine = resolver.resolve(
        Level<Inner>.self,
        arguments: 1,
        "y",
        2.5,
        false,
        Int8(3),
        [4],
        Int?.some(5),
        UInt(6),
        Character("z")
    )
    let thrown = try? resolver.resolveThrows(Level<Inner>.self, arguments: 2, "w")
    let matched = two && nine?.values == ["\(1 + depth)", "y", "z"] && thrown?.values == ["\(2 + depth)", "w"]
    return (matched ? 1 : 0) + resolvedLevels(Level<Inner>.self, depth: depth + 1, count: count, in: resolver)
}

/// How many of the levels resolve asynchronously, through `resolver`, to what their factories make.
nonisolated(nonsending) private func resolvedLevelsAsync<Inner>(
    _: Inner.Type,
    depth: Int,
    count: Int,
    in resolver: any Resolver
) async throws(DIError) -> Int {
    guard depth < count else { return 0 }
    let made = try await resolver.resolveAsync(Level<Inner>.self, name: "async", arguments: 3, "v", Wide(7))
    let matched = made.values == ["\(3 + depth)", "v", "\(Wide(7))"] ? 1 : 0
    return try await matched + resolvedLevelsAsync(Level<Inner>.self, depth: depth + 1, count: count, in: resolver)
}

/// Registers `Service` with async factories taking one to three arguments; each makes the service in a
/// task of its own (a child task for three), and throws `Refused` for a negative first argument.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerAsyncEveryArity<Service: Sendable>(
    _: Service.Type,
    name: String?,
    in container: Container,
    make: @escaping @Sendable ([String]) -> Service
) {
    container.registerAsync(Service.self, name: name) { (_: any Resolver, a: Int) in
        let made = Task { make([try accepted(a)]) }
        return try await made.value
    }
    container.registerAsync(Service.self, name: name) { (_: any Resolver, a: Int, b: String) in
        await Task.yield()
        let made = Task.detached { make([try accepted(a), b]) }
        return try await made.value
    }
    container.registerAsync(Service.self, name: name) { (_: any Resolver, a: Int, b: String, c: Wide) in
        async let made = make([try accepted(a), b, "\(c)"])
        return try await made
    }
}

/// Resolves the registrations of `registerAsyncEveryArity` through `resolver`, with `first`.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
nonisolated(nonsending) private func resolveAsyncEveryArity<Service>(
    _: Service.Type,
    name: String?,
    from resolver: any Resolver,
    first: Int
) async throws(DIError) -> [Service] {
    [
        try await resolver.resolveAsync(Service.self, name: name, argument: first),
        try await resolver.resolveAsync(Service.self, name: name, arguments: first, "two"),
        try await resolver.resolveAsync(Service.self, name: name, arguments: first, "two", Wide(3)),
    ]
}

/// Registers `Service` with main-actor factories taking one to three arguments, from generic code.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerOnMainActorEveryArity<Service>(
    _: Service.Type,
    in container: Container,
    make: @escaping @MainActor ([String]) -> Service
) {
    container.register(Service.self, mainActorFactory: { (_: any Resolver, a: Int) in make(["\(a)"]) })
    container.register(
        Service.self,
        mainActorFactory: { (_: any Resolver, a: Int, b: String) in make(["\(a)", b]) }
    )
    container.register(
        Service.self,
        mainActorFactory: { (_: any Resolver, a: Int, b: String, c: Wide) in make(["\(a)", b, "\(c)"]) }
    )
}

/// Registers an async `.container` factory taking two arguments that waits on `gate`, counting its runs.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerGated<Service: Sendable>(
    _: Service.Type,
    gate: Gate,
    runs: Counter,
    in container: Container,
    make: @escaping @Sendable ([String]) -> Service
) {
    container.registerAsync(Service.self) { (_: any Resolver, a: Int, b: String) in
        runs.increment()
        await gate.wait()
        return make(["\(a)", b])
    }
    .inObjectScope(.container)
}

/// Resolves `Service` under `name` with whatever arguments it is handed, from code generic over them.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func resolveForwarding<Service, each Argument>(
    _: Service.Type,
    name: String?,
    from resolver: any Resolver,
    _ arguments: repeat each Argument
) -> Service? {
    resolver.resolve(Service.self, name: name, arguments: repeat each arguments)
}

/// `resolveThrows` with two or more arguments, from code generic over them.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func resolveThrowingForwarding<Service, First, Second, each Rest>(
    _: Service.Type,
    from resolver: any Resolver,
    _ first: First,
    _ second: Second,
    _ rest: repeat each Rest
) -> Result<Service, DIError> {
    Result { () throws(DIError) in try resolver.resolveThrows(Service.self, arguments: first, second, repeat each rest)
    }
}

/// Resolves `Service` synchronously inside an async function generic over the arguments, with suspensions
/// before and after: the arguments are packed into a tuple in an async frame.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
nonisolated(nonsending) private func resolveForwardingAcrossSuspensions<Service, each Argument>(
    _: Service.Type,
    name: String?,
    from resolver: any Resolver,
    _ arguments: repeat each Argument
) async -> Service? {
    await Task.yield()
    let resolved = resolver.resolve(Service.self, name: name, arguments: repeat each arguments)
    await Task.yield()
    return resolved
}

/// Adds a sample from code generic over the arguments.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func addSampleForwarding<Service, each Argument: Sendable>(
    to samples: inout SampleArguments,
    _: Service.Type,
    name: String?,
    _ arguments: repeat each Argument
) {
    samples.add(Service.self, name: name, arguments: repeat each arguments)
}

/// Whether `result` is a `factoryFailed` whose underlying error is `Refused(value)`.
private func refused<Service>(_ result: Result<Service, DIError>, _ value: Int) -> Bool {
    guard case .failure(.factoryFailed(_, _, let underlying)) = result else { return false }
    return (underlying as? Refused) == Refused(value: value)
}

/// The rendered values of every result that succeeded, `nil` for a failure.
private func values<Service: Echoing>(_ results: [Result<Service, DIError>]) -> [[String]?] {
    results.map { try? $0.get().values }
}

private protocol Echoing {
    var values: [String] { get }
}

extension Echo: Echoing {}
extension WideEcho: Echoing {}
extension Level: Echoing {}

/// What `registerEveryArity` renders for the first `count` arguments, for counts 1 to 9.
private func expectedEveryArity(first: Int) -> [[String]?] {
    (1...9).map { rendered(first: first, count: $0) }
}

private enum ServiceGeneric {}
private enum ArgumentsGeneric {}
private enum BothGeneric {}
private enum Deferred {}
private enum Verified {}
private enum Scoped {}
private enum Awkward {}
private enum Asynchronous {}
private enum OnMainActor {}
private enum Cancelled {}
private enum Forwarding {}
private enum CallSites {}

// MARK: - Tests

@Suite("Arity attack: argument registrations made by unspecialized generic code", .tags(.engine))
struct ArityAttackTests {
    @Test(
        "Every arity, registered with the service type generic, resolves in every style",
        arguments: [nil, "n"] as [String?]
    )
    func everyArityServiceGeneric(prefix: String?) {
        typealias Made = Echo<ServiceGeneric>
        let container = Container()
        registerEveryArity(Made.self, prefix: prefix, in: container) { Made($0) }
        let expected = expectedEveryArity(first: 41)

        #expect(resolveEveryArity(Made.self, prefix: prefix, from: container, first: 41).map { $0?.values } == expected)
        let existential: any Resolver = container
        #expect(
            resolveEveryArity(Made.self, prefix: prefix, from: existential, first: 41).map { $0?.values } == expected
        )
        let synchronized = container.synchronize()
        #expect(
            resolveEveryArity(Made.self, prefix: prefix, from: synchronized, first: 41).map { $0?.values } == expected
        )
        let child = Container(parent: container)
        #expect(resolveEveryArity(Made.self, prefix: prefix, from: child, first: 41).map { $0?.values } == expected)
        #expect(values(resolveEveryArityThrowing(Made.self, prefix: prefix, from: child, first: 41)) == expected)
        #expect(
            values(resolveEveryArityAsResults(Made.self, prefix: prefix, from: synchronized, first: 41)) == expected
        )
        #expect(values(resolveEveryArityAsResults(Made.self, prefix: prefix, from: existential, first: 41)) == expected)

        // The same resolves written at the call site, compiled for the concrete types.
        #expect(container.resolve(Made.self, name: arityName(prefix, 1), argument: 41)?.values == expected[0])
        #expect(
            container.resolve(
                Made.self,
                name: arityName(prefix, 9),
                arguments: 41,
                "two",
                3.5,
                true,
                Int8(5),
                [6],
                Int?.none,
                UInt(8),
                Character("9")
            )?.values == expected[8]
        )
        let thrown = try? container.resolveThrows(
            Made.self,
            name: arityName(prefix, 4),
            arguments: 41,
            "two",
            3.5,
            true
        )
        #expect(thrown?.values == expected[3])
        let result = synchronized.resolveResult(Made.self, name: arityName(prefix, 2), arguments: 41, "two")
        #expect((try? result.get())?.values == expected[1])
    }

    @Test("A factory's error, for every arity registered generically, reaches each style of resolve")
    func everyArityThrows() {
        typealias Made = Echo<ServiceGeneric>
        let container = Container()
        registerEveryArity(Made.self, prefix: "t", in: container) { Made($0) }
        let thrown = resolveEveryArityThrowing(Made.self, prefix: "t", from: container, first: -3)
        #expect(thrown.allSatisfy { refused($0, -3) })
        #expect(thrown.count == 9)
        let results = resolveEveryArityAsResults(Made.self, prefix: "t", from: container.synchronize(), first: -4)
        #expect(results.allSatisfy { refused($0, -4) })
        #expect(resolveEveryArity(Made.self, prefix: "t", from: container, first: -5).allSatisfy { $0 == nil })
        // Wrong arguments find nothing, and say so.
        #expect(container.resolve(Made.self, name: "t2", arguments: "two", 41) == nil)
        #expect(container.resolve(Made.self, name: "t2", argument: 41) == nil)
        let missing = Result { () throws(DIError) in try container.resolveThrows(Made.self, name: "t1", argument: 1.5) }
        guard case .failure(.notRegistered) = missing else {
            Issue.record("a resolve with a Double should not find the registration taking an Int: \(missing)")
            return
        }
    }

    @Test("Every arity, with the argument types generic and the service type concrete, resolves")
    func everyArityArgumentsGeneric() {
        let container = Container()
        registerEveryArity(taking: String.self, in: container)
        registerEveryArity(taking: Wide.self, in: container)
        let strings = (1...9).map { "s\($0)" }
        let wides = (1...9).map { Wide($0 * 100) }
        let resolvedStrings = resolveEveryArity(passing: strings, from: container.synchronize())
        let resolvedWides = resolveEveryArity(passing: wides, from: container)
        for count in 1...9 {
            #expect(resolvedStrings[count - 1]?.values == Array(strings.prefix(count)))
            #expect(resolvedWides[count - 1]?.values == wides.prefix(count).map(\.description))
        }
        // At the call site, with the concrete types.
        let three = container.resolve(Echo<ArgumentsGeneric>.self, arguments: Wide(1), Wide(2), Wide(3))
        #expect(three?.values == [Wide(1), Wide(2), Wide(3)].map(\.description))
        #expect(container.resolve(Echo<ArgumentsGeneric>.self, arguments: "a", Wide(2)) == nil)
    }

    @Test("Every arity, with the service and argument types all generic, resolves, value types included")
    func everyArityBothGeneric() {
        let container = Container()
        registerAlternating(Echo<BothGeneric>.self, Int.self, String?.self, in: container) { Echo($0) }
        registerAlternating(WideEcho.self, Wide.self, (any Shape).self, in: container) { WideEcho(values: $0) }
        let small = resolveAlternating(Echo<BothGeneric>.self, 7, String?.none, from: container)
        let shape: any Shape = Square()
        // `as any Shape` keeps `B` the existential: passed bare, the value would be opened to `Square`.
        let wide = resolveAlternating(WideEcho.self, Wide(1), shape as any Shape, from: container.synchronize())
        for count in 1...9 {
            #expect(small[count - 1]?.values == (0..<count).map { $0 % 2 == 0 ? "7" : "nil" })
            #expect(
                wide[count - 1]?.values == (0..<count).map { $0 % 2 == 0 ? "\(Wide(1))" : String(describing: Square()) }
            )
        }
        // The static type of a value passed where the registration takes `any Shape` must be `any Shape`.
        #expect(container.resolve(WideEcho.self, arguments: Wide(1), Square()) == nil)
        #expect(container.resolve(WideEcho.self, arguments: Wide(1), shape)?.values.count == 2)
        #expect((try? container.resolveThrows(WideEcho.self, arguments: Wide(1), shape, Wide(2)))?.values.count == 3)
    }

    @Test("Lazy and Provider resolve every arity registered generically, with its arguments")
    func deferredEveryArity() {
        typealias Made = Echo<Deferred>
        let container = Container()
        registerEveryArity(Made.self, prefix: "d", in: container) { Made($0) }
        let existential: any Resolver = container
        let (lazies, providers) = resolveEveryArityDeferred(Made.self, prefix: "d", from: existential, first: 9)
        let expected = expectedEveryArity(first: 9)
        #expect(lazies.map { $0?.instance.values } == expected)
        #expect(providers.map { $0?.instance.values } == expected)
        let (failing, _) = resolveEveryArityDeferred(Made.self, prefix: "d", from: container.synchronize(), first: -1)
        #expect(failing.count == 9)
        for case let lazy? in failing {
            #expect(refused(Result { () throws(DIError) in try lazy.get() }, -1))
        }
    }

    @Test("verify(samples:) resolves every arity registered generically, with samples added generically")
    func verifyEveryArity() {
        typealias Made = Echo<Verified>
        let container = Container()
        registerEveryArity(Made.self, prefix: "v", in: container) { Made($0) }
        #expect(container.verify().isEmpty)

        var passing = SampleArguments()
        addEverySample(to: &passing, Made.self, prefix: "v", first: 1)
        #expect(container.verify(samples: passing).isEmpty)

        var failing = SampleArguments()
        addEverySample(to: &failing, Made.self, prefix: "v", first: -2)
        let problems = container.verify(samples: failing)
        #expect(problems.count == 9)
        #expect(problems.allSatisfy { refused(Result<Made, DIError>.failure($0), -2) })

        // Samples added by code generic over the arguments' types.
        var forwarded = SampleArguments()
        addSampleForwarding(to: &forwarded, Made.self, name: "v1", -6)
        addSampleForwarding(to: &forwarded, Made.self, name: "v3", -7, "two", 3.5)
        addSampleForwarding(
            to: &forwarded,
            Made.self,
            name: "v9",
            -8,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8),
            Character("9")
        )
        let forwardedProblems = container.verify(samples: forwarded)
        #expect(forwardedProblems.count == 3)
        for value in [-6, -7, -8] {
            #expect(forwardedProblems.contains { refused(Result<Made, DIError>.failure($0), value) })
        }
        #expect(container.dependencyGraph(samples: passing).mermaid.isEmpty == false)
    }

    @Test("Scopes, initCompleted and implements on a registration with arguments made generically")
    func scopesWithArguments() throws {
        typealias Made = Echo<Scoped>
        let container = Container()
        let completions = Counter()
        registerShared(Made.self, forwardedAs: (any Echoing).self, scope: .multiton, in: container) { _ in
            completions.increment()
        } make: {
            Made([try accepted($0), $1])
        }
        let first = try #require(container.resolve(Made.self, arguments: 1, "a"))
        #expect(container.resolve(Made.self, arguments: 1, "a") === first)
        #expect(container.resolve(Made.self, arguments: 2, "a") !== first)
        #expect(container.resolve(Made.self, arguments: 1, "b")?.values == ["1", "b"])
        #expect(completions.count == 3)
        // Through the forwarded type: the same instances, for the same arguments.
        let forwarded = try #require(container.resolve((any Echoing).self, arguments: 1, "a"))
        #expect((forwarded as? Made) === first)
        #expect((resolveForwarding((any Echoing).self, name: nil, from: container, 1, "a") as? Made) === first)
        #expect(refused(container.resolveResult((any Echoing).self, arguments: -1, "a"), -1))
        #expect(completions.count == 3)

        // Nine hashable arguments, in the multiton scope.
        let nine = Container()
        registerEveryArity(Made.self, prefix: nil, scope: .multiton, in: nine) { Made($0) }
        let once = resolveEveryArity(Made.self, prefix: nil, from: nine, first: 5)
        let again = resolveEveryArity(Made.self, prefix: nil, from: nine.synchronize(), first: 5)
        let other = resolveEveryArity(Made.self, prefix: nil, from: nine, first: 6)
        for index in 0..<9 {
            #expect(once[index] != nil)
            #expect(once[index] === again[index])
            #expect(once[index] !== other[index])
            #expect(other[index]?.values.first == "6")
        }

        // The container scope keeps the first instance, whatever the later arguments; a child shares it.
        let shared = Container()
        registerShared(Made.self, forwardedAs: AnyObject.self, scope: .container, in: shared) { _ in
        } make: {
            Made(["\($0)", $1])
        }
        let kept = try #require(shared.resolve(Made.self, arguments: 3, "c"))
        #expect(shared.resolve(Made.self, arguments: 4, "d") === kept)
        #expect(Container(parent: shared).resolve(Made.self, arguments: 5, "e") === kept)
        #expect(kept.values == ["3", "c"])
    }

    @Test("The weak scope with arguments keeps an instance while it is held, and only then")
    func weakScopeWithArguments() {
        typealias Made = Echo<Scoped>
        let container = Container()
        let completions = Counter()
        registerShared(Made.self, forwardedAs: AnyObject.self, scope: .weak, in: container) { _ in
            completions.increment()
        } make: {
            Made(["\($0)", $1])
        }
        var held = container.resolve(Made.self, arguments: 1, "a")
        #expect(held?.values == ["1", "a"])
        weak let watched = held
        #expect(container.resolve(Made.self, arguments: 1, "a") === held)
        #expect(completions.count == 1)
        held = nil
        #expect(watched == nil)
        let remade = container.resolve(Made.self, arguments: 2, "b")
        #expect(remade?.values == ["2", "b"])
        #expect(completions.count == 2)
    }

    @Test("Existentials, optionals and a tuple as one argument are keys of their own")
    func awkwardArguments() {
        typealias Made = Echo<Awkward>
        let container = Container()
        registerAwkwardArguments(Made.self, in: container) { Made($0) }
        let shape: any Shape = Square()
        #expect(container.resolve(Made.self, argument: shape)?.values == ["shape", "4"])
        #expect(container.resolve(Made.self, argument: Square()) == nil)
        #expect((try? container.resolveThrows(Made.self, argument: shape))?.values == ["shape", "4"])
        let concrete = Result { () throws(DIError) in try container.resolveThrows(Made.self, argument: Square()) }
        #expect((try? concrete.get()) == nil)
        #expect(container.resolve(Made.self, arguments: shape, Int?.some(2))?.values == ["shape", "4", "Optional(2)"])
        #expect(container.resolve(Made.self, arguments: shape, Int?.none)?.values == ["shape", "4", "nil"])
        #expect(container.resolve(Made.self, arguments: shape, 2) == nil)

        #expect(container.resolve(Made.self, argument: Int?.some(3))?.values == ["optional", "Optional(3)"])
        #expect(container.resolve(Made.self, argument: Int?.none)?.values == ["optional", "nil"])
        #expect(container.resolve(Made.self, argument: 3) == nil)

        let pair: (Int, String) = (1, "a")
        #expect(container.resolve(Made.self, argument: pair)?.values == ["tuple", "1", "a"])
        #expect(container.resolve(Made.self, arguments: 1, "a")?.values == ["two", "1", "a"])
        #expect((try? container.resolveThrows(Made.self, argument: (2, "b")))?.values == ["tuple", "2", "b"])
        #expect((try? container.resolveThrows(Made.self, arguments: 2, "b"))?.values == ["two", "2", "b"])
        #expect((try? container.resolveResult(Made.self, argument: pair).get())?.values == ["tuple", "1", "a"])
        let existential: any Resolver = container
        #expect(existential.resolve(Made.self, argument: pair)?.values == ["tuple", "1", "a"])
        #expect(existential.resolve(Made.self, arguments: 1, "a")?.values == ["two", "1", "a"])
        #expect(resolveForwarding(Made.self, name: nil, from: existential, pair)?.values == ["tuple", "1", "a"])
        #expect(resolveForwarding(Made.self, name: nil, from: existential, 1, "a")?.values == ["two", "1", "a"])
    }

    @Test("Resolves written generically over the arguments find the registrations made per arity")
    func packForwardingResolves() {
        typealias Made = Echo<Forwarding>
        let container = Container()
        container.register(Made.self) { _ in Made(["none"]) }
        registerEveryArity(Made.self, prefix: "f", in: container) { Made($0) }
        let resolver: any Resolver = container.synchronize()
        #expect(resolveForwarding(Made.self, name: nil, from: resolver)?.values == ["none"])
        #expect(resolveForwarding(Made.self, name: "f1", from: resolver, 1)?.values == ["1"])
        #expect(resolveForwarding(Made.self, name: "f2", from: resolver, 1, "two")?.values == ["1", "two"])
        let nine = resolveForwarding(
            Made.self,
            name: "f9",
            from: resolver,
            1,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8),
            Character("9")
        )
        #expect(nine?.values == rendered(first: 1, count: 9))
        #expect(resolveForwarding(Made.self, name: "f2", from: resolver, "two", 1) == nil)
        let thrown = resolveThrowingForwarding(Made.self, from: resolver, 2, "two", 3.5)
        guard case .failure(.notRegistered) = thrown else {
            Issue.record("the unnamed registration taking three arguments does not exist: \(thrown)")
            return
        }
        let named = Container()
        registerEveryArity(Made.self, prefix: nil, in: named) { Made($0) }
        let found = resolveThrowingForwarding(Made.self, from: named, 2, "two", 3.5, true, Int8(5))
        #expect((try? found.get())?.values == rendered(first: 2, count: 5))
        #expect(refused(resolveThrowingForwarding(Made.self, from: named, -2, "two"), -2))
    }

    @Test("Resolves with arguments in async code generic over them, inside an async factory too")
    func packForwardingAcrossSuspensions() async throws {
        typealias Made = Echo<Forwarding>
        let container = Container()
        registerEveryArity(Made.self, prefix: "s", in: container) { Made($0) }
        container.registerAsync(Echo<Asynchronous>.self) { (resolver: any Resolver, first: Int) in
            let inner = await resolveForwardingAcrossSuspensions(Made.self, name: "s2", from: resolver, first, "two")
            return Echo<Asynchronous>(inner?.values ?? ["none"])
        }
        let one = await resolveForwardingAcrossSuspensions(Made.self, name: "s1", from: container, 1)
        #expect(one?.values == ["1"])
        let nine = await resolveForwardingAcrossSuspensions(
            Made.self,
            name: "s9",
            from: container.synchronize(),
            1,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8),
            Character("9")
        )
        #expect(nine?.values == rendered(first: 1, count: 9))
        let outer = try await container.resolveAsync(Echo<Asynchronous>.self, argument: 4)
        #expect(outer.values == ["4", "two"])
        let concurrent = try await withThrowingTaskGroup(of: [String].self) { group in
            let resolver = container.synchronize()
            for first in 0..<8 {
                group.addTask { try await resolver.resolveAsync(Echo<Asynchronous>.self, argument: first).values }
            }
            return try await group.reduce(into: Set<[String]>()) { $0.insert($1) }
        }
        #expect(concurrent == Set((0..<8).map { ["\($0)", "two"] }))
    }

    @Test("Sixty nested generic types, each with argument registrations, resolve", .tags(.deepStack))
    func deeplyNestedArities() async throws {
        let container = Container()
        registerLevels(Int8.self, depth: 0, count: 60, in: container)
        #expect(resolvedLevels(Int8.self, depth: 0, count: 60, in: container) == 60)
        #expect(resolvedLevels(Int8.self, depth: 0, count: 60, in: container.synchronize()) == 60)
        #expect(try await resolvedLevelsAsync(Int8.self, depth: 0, count: 60, in: container) == 60)
        #expect(container.registeredCount() == 180)
    }

    @Test("Async factories taking one to three arguments, registered generically, resolve and fail")
    func asyncEveryArity() async throws {
        typealias Made = Echo<Asynchronous>
        for name in [nil, "a"] as [String?] {
            let container = Container()
            registerAsyncEveryArity(Made.self, name: name, in: container) { Made($0) }
            let made = try await resolveAsyncEveryArity(Made.self, name: name, from: container, first: 8)
            #expect(made.map(\.values) == [["8"], ["8", "two"], ["8", "two", "\(Wide(3))"]])
            let synchronized = try await resolveAsyncEveryArity(
                Made.self,
                name: name,
                from: container.synchronize(),
                first: 9
            )
            #expect(synchronized.map(\.values) == [["9"], ["9", "two"], ["9", "two", "\(Wide(3))"]])
            let child = Container(parent: container)
            let direct = try await child.resolveAsync(Made.self, name: name, arguments: 1, "b", Wide(2))
            #expect(direct.values == ["1", "b", "\(Wide(2))"])
            do {
                _ = try await resolveAsyncEveryArity(Made.self, name: name, from: container, first: -9)
                Issue.record("a factory refusing its argument should fail the resolve")
            } catch {
                #expect(refused(Result<Made, DIError>.failure(error), -9))
            }
            // A synchronous resolve cannot run an async factory.
            let sync = Result { () throws(DIError) in try container.resolveThrows(Made.self, name: name, argument: 1) }
            guard case .failure(.asyncResolutionRequired) = sync else {
                Issue.record("a synchronous resolve of an async factory should fail: \(sync)")
                return
            }
        }
    }

    @Test("A cancelled waiter on an async creation with arguments stops, and the creation goes on")
    func cancelledWaiterWithArguments() async throws {
        typealias Made = Echo<Cancelled>
        let container = Container()
        let gate = Gate()
        let runs = Counter()
        registerGated(Made.self, gate: gate, runs: runs, in: container) { Made($0) }
        let resolver = container.synchronize()
        let creator = Task { () throws(DIError) -> Made in try await resolver.resolveAsync(Made.self, arguments: 1, "a")
        }
        while runs.count == 0 {
            await Task.yield()
        }
        let waiter = Task { () -> Result<Made, DIError> in
            do throws(DIError) {
                return .success(try await resolver.resolveAsync(Made.self, arguments: 2, "b"))
            } catch {
                return .failure(error)
            }
        }
        waiter.cancel()
        let outcome = await waiter.value
        guard case .failure(.factoryFailed(_, _, let underlying)) = outcome else {
            Issue.record("the cancelled waiter should fail: \(outcome)")
            gate.open()
            return
        }
        #expect(underlying is CancellationError)
        gate.open()
        let made = try await creator.value
        #expect(made.values == ["1", "a"])
        #expect(try await resolver.resolveAsync(Made.self, arguments: 3, "c") === made)
        #expect(runs.count == 1)
    }

    @Test("Main-actor factories taking one to three arguments, registered generically, run on the main actor")
    @MainActor
    func mainActorEveryArity() async throws {
        typealias Made = Echo<OnMainActor>
        let container = Container()
        registerOnMainActorEveryArity(Made.self, in: container) { Made($0) }
        #expect(container.resolve(Made.self, argument: 1)?.values == ["1"])
        #expect(container.resolve(Made.self, arguments: 1, "b")?.values == ["1", "b"])
        #expect(container.resolve(Made.self, arguments: 1, "b", Wide(4))?.values == ["1", "b", "\(Wide(4))"])
        let made = try await resolveAsyncEveryArity(Made.self, name: nil, from: container, first: 2)
        #expect(made.map(\.values) == [["2"], ["2", "two"], ["2", "two", "\(Wide(3))"]])
    }

    @Test("Main-actor factories with arguments, registered generically, are reached from off the main actor")
    func mainActorEveryArityFromElsewhere() async throws {
        typealias Made = Echo<OnMainActor>
        let container = Container()
        let onMain = Counter()
        registerOnMainActorEveryArity(Made.self, in: container) {
            MainActor.assertIsolated()
            onMain.increment()
            return Made($0)
        }
        let made = try await resolveAsyncEveryArity(Made.self, name: nil, from: container, first: 3)
        #expect(made.map(\.values) == [["3"], ["3", "two"], ["3", "two", "\(Wide(3))"]])
        #expect(onMain.count == 3)
        let synchronized = container.synchronize()
        let viaTask = try await Task.detached {
            try await synchronized.resolveAsync(Made.self, arguments: 4, "d", Wide(5))
        }
        .value
        #expect(viaTask.values == ["4", "d", "\(Wide(5))"])
        let sync = Result { () throws(DIError) in try container.resolveThrows(Made.self, arguments: 1, "b") }
        guard case .failure(.mainActorRequired) = sync else {
            Issue.record("off the main actor, a synchronous resolve should not run a main-actor factory: \(sync)")
            return
        }
    }

    @Test("Swinject-style call sites pick the overload for their closure's arity")
    func swinjectStyleCallSites() throws {
        typealias Made = Echo<CallSites>
        struct Nine {
            let values: [String]
            init(a: Int, b: String, c: Double, d: Bool, e: Int8, f: [Int], g: Int?, h: UInt, i: Character) {
                values =
                    ["\(a)", b, "\(c)", "\(d)", "\(e)", "\(f)", "\(String(describing: g))"]
                    + ["\(h)", "\(i)"]
            }
        }
        struct Single {
            let text: String
            init(text: String) { self.text = text }
        }
        let container = Container()
        // Parameter types inferred from the body.
        container.register(Single.self) { _, text in Single(text: text) }
        container.register(Nine.self) { _, a, b, c, d, e, f, g, h, i in
            Nine(a: a, b: b, c: c, d: d, e: e, f: f, g: g, h: h, i: i)
        }
        // Anonymous parameters.
        container.register(Made.self) { Made([$1, "\($2 as Int)"]) }
        // Written types, `_` for the unused, and the resolver used.
        container.register(Made.self) { (resolver: any Resolver, _: Int, text: String, flag: Bool) in
            Made([text, "\(flag)", resolver.resolve(Single.self, argument: "inner")?.text ?? "none"])
        }
        container.register(Made.self, name: "throws") { (_: any Resolver, value: Int) throws -> Made in
            Made([try accepted(value)])
        }

        #expect(container.resolve(Single.self, argument: "s")?.text == "s")
        let nine = container.resolve(
            Nine.self,
            arguments: 1,
            "two",
            3.5,
            true,
            Int8(5),
            [6],
            Int?.none,
            UInt(8),
            Character("9")
        )
        #expect(nine?.values == rendered(first: 1, count: 9))
        #expect(container.resolve(Made.self, arguments: "x", 5)?.values == ["x", "5"])
        #expect(container.resolve(Made.self, arguments: 0, "t", false)?.values == ["t", "false", "inner"])
        #expect(container.resolve(Made.self, name: "throws", argument: 3)?.values == ["3"])
        #expect(refused(container.resolveResult(Made.self, name: "throws", argument: -3), -3))
        #expect(container.registeredCount() == 5)
    }
}
