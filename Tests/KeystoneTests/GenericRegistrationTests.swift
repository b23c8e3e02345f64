import Keystone
import Testing

// Registrations taking runtime arguments, made by code the optimizer does not specialize for the service
// type: a generic helper of the app left generic, or a recursion over ever deeper generic types. When the
// argument registrations were one parameter-pack overload, optimized builds crashed resolving these (the
// closure unpacking the arguments was handed an uninitialized metadata pack); the CI's release run of the
// suite is what checks them.

private final class Tagged<Inner> {
    let tag: Int
    init(tag: Int) { self.tag = tag }
}

/// Registers `Service` with a factory taking an `Int`, in code compiled once, generically.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerGenerically<Service>(
    _: Service.Type,
    in container: Container,
    make: @escaping (Int) -> Service
) {
    container.register(Service.self) { (_: any Resolver, argument: Int) in make(argument) }
}

/// Registers `Service` with a factory taking an `Int` and a `String`, in code compiled once, generically.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerGenerically<Service>(
    _: Service.Type,
    named name: String,
    in container: Container,
    make: @escaping (Int, String) -> Service
) {
    container.register(Service.self, name: name) { (_: any Resolver, number: Int, text: String) in
        make(number, text)
    }
}

/// Registers `Service` with a factory taking nine arguments of as many types, in code compiled once,
/// generically; the factory hands them back in order.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerNineGenerically<Service>(
    _: Service.Type,
    in container: Container,
    make: @escaping ([String]) -> Service
) {
    container.register(Service.self) {
        (_: any Resolver, a: Int, b: String, c: Double, d: Bool, e: Int8, f: [Int], g: Int?, h: UInt, i: Character)
        in
        make(["\(a)", b, "\(c)", "\(d)", "\(e)", "\(f)", "\(String(describing: g))", "\(h)", "\(i)"])
    }
}

/// Registers `Service` on the main actor with a factory taking an `Int` and a `String`, generically.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerOnMainActorGenerically<Service>(
    _: Service.Type,
    in container: Container,
    make: @escaping @MainActor (Int, String) -> Service
) {
    container.register(
        Service.self,
        mainActorFactory: { (_: any Resolver, number: Int, text: String) in
            make(number, text)
        }
    )
}

/// Resolves `Service` with an `Int`, in code compiled once, generically.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func resolveGenerically<Service>(_: Service.Type, from resolver: any Resolver, argument: Int) -> Service? {
    resolver.resolve(Service.self, argument: argument)
}

private class Floor<Inner> {
    let tag: Int
    init(tag: Int) { self.tag = tag }
}

private final class Tower<Inner>: Floor<Inner> {}

/// Registers `Tower<Inner>` and the `count - depth - 1` levels above it, each taking an `Int`.
private func registerTowers<Inner>(_: Inner.Type, from depth: Int, count: Int, in container: Container) {
    guard depth < count else { return }
    container.register(Tower<Inner>.self) { (_: any Resolver, argument: Int) in Tower<Inner>(tag: argument + depth) }
    registerTowers(Tower<Inner>.self, from: depth + 1, count: count, in: container)
}

/// How many of the levels resolve through `resolver`, each to the instance its own factory makes.
private func resolvedTowers<Inner>(_: Inner.Type, from depth: Int, count: Int, in resolver: any Resolver) -> Int {
    guard depth < count else { return 0 }
    let resolved = resolver.resolve(Tower<Inner>.self, argument: 41)?.tag == 41 + depth ? 1 : 0
    return resolved + resolvedTowers(Tower<Inner>.self, from: depth + 1, count: count, in: resolver)
}

@Suite("Argument registrations made by generic code", .tags(.engine))
struct GenericRegistrationTests {
    @Test("A registration taking an argument, made by unspecialized generic code, resolves with it")
    func oneArgumentFromGenericCode() {
        let container = Container()
        registerGenerically(Tagged<Int>.self, in: container) { Tagged<Int>(tag: $0) }
        #expect(container.resolve(Tagged<Int>.self, argument: 41)?.tag == 41)
        #expect(resolveGenerically(Tagged<Int>.self, from: container, argument: 7)?.tag == 7)
        #expect(container.synchronize().resolve(Tagged<Int>.self, argument: 3)?.tag == 3)
    }

    @Test("A named registration taking two arguments, made by unspecialized generic code, resolves with them")
    func twoArgumentsFromGenericCode() {
        let container = Container()
        registerGenerically(Tagged<String>.self, named: "sum", in: container) { Tagged<String>(tag: $0 + $1.count) }
        #expect(container.resolve(Tagged<String>.self, name: "sum", arguments: 40, "ab")?.tag == 42)
        #expect(container.resolve(Tagged<String>.self, arguments: 40, "ab") == nil)
    }

    @Test("Nine arguments of nine types reach a factory registered by unspecialized generic code, in order")
    func nineArgumentsFromGenericCode() {
        final class Received {
            let values: [String]
            init(_ values: [String]) { self.values = values }
        }
        let container = Container()
        registerNineGenerically(Received.self, in: container) { Received($0) }
        let received = container.resolve(
            Received.self,
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
        #expect(received?.values == ["1", "two", "3.5", "true", "5", "[6]", "nil", "8", "9"])
    }

    @Test("A hundred nested generic types taking an argument resolve through any Resolver")
    func deeplyNestedArgumentRegistrations() {
        let container = Container()
        registerTowers(Double.self, from: 0, count: 100, in: container)
        #expect(resolvedTowers(Double.self, from: 0, count: 100, in: container) == 100)
        #expect(container.registeredCount() == 100)
    }

    @Test("A main-actor factory taking two arguments, registered by unspecialized generic code, resolves")
    @MainActor
    func mainActorArgumentsFromGenericCode() async throws {
        let container = Container()
        registerOnMainActorGenerically(Tagged<Bool>.self, in: container) { Tagged<Bool>(tag: $0 * $1.count) }
        let made = try await container.resolveAsync(Tagged<Bool>.self, arguments: 7, "abc")
        #expect(made.tag == 21)
        #expect(container.resolve(Tagged<Bool>.self, arguments: 2, "ab")?.tag == 4)
    }
}
