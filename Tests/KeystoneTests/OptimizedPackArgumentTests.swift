import Keystone
import Testing

// A defect of optimized builds, recorded here until it is fixed: a registration taking arguments, made by
// code that is not specialized for the service type (a generic function the optimizer leaves generic, or
// one recursing over ever deeper generic types), crashes when it is resolved with its arguments (a bad
// pointer read in the argument-unpacking closure of `register<Service, each Arg>`), however the resolve is
// compiled. One argument or two, the same. Debug builds pass. Each test runs in a child process.

private class PackFloor<Inner> {
    let tag: Int
    init(tag: Int) { self.tag = tag }
}

private final class PackTower<Inner>: PackFloor<Inner> {}

/// Registers `PackTower<Inner>` and the `count - depth - 1` levels above it, each taking an `Int`.
private func registerPackTowers<Inner>(_: Inner.Type, from depth: Int, count: Int, in container: Container) {
    guard depth < count else { return }
    container.register(PackTower<Inner>.self) { (_: any Resolver, argument: Int) in PackTower<Inner>(tag: argument) }
    registerPackTowers(PackTower<Inner>.self, from: depth + 1, count: count, in: container)
}

/// How many of the levels resolve, with their argument, through `resolver`.
private func resolvedPackTowers<Inner>(_: Inner.Type, from depth: Int, count: Int, in resolver: any Resolver) -> Int {
    guard depth < count else { return 0 }
    func resolve<Service>(_: Service.Type) -> AnyObject? {
        let found: Service? = resolver.resolve(Service.self, argument: 41)
        return found.map { $0 as AnyObject }
    }
    let type: Any.Type = PackTower<Inner>.self
    let resolved = (resolve(type) as? PackTower<Inner>)?.tag == 41 ? 1 : 0
    return resolved + resolvedPackTowers(PackTower<Inner>.self, from: depth + 1, count: count, in: resolver)
}

private final class PackService<Inner> {
    let tag: Int
    init(tag: Int) { self.tag = tag }
}

/// Registers `Service` with a factory taking an `Int`, in code compiled once, generically.
@_semantics("optimize.sil.specialize.generic.never") @inline(never)
private func registerGenerically<Service>(_: Service.Type, in container: Container, make: @escaping (Int) -> Service) {
    container.register(Service.self) { (_: any Resolver, argument: Int) in make(argument) }
}

/// Whether the tests were compiled with optimization, where the defect above shows.
let isOptimizedBuild: Bool = {
    #if DEBUG
        false
    #else
        true
    #endif
}()

@Suite("Argument registrations made by generic code", .tags(.engine))
struct OptimizedPackArgumentTests {
    @Test("A registration taking an argument made by unspecialized generic code resolves with its argument")
    func argumentRegistrationFromGenericCode() async {
        await withKnownIssue("Optimized builds crash in the argument-unpacking closure", isIntermittent: true) {
            await #expect(processExitsWith: .success) {
                let container = Container()
                registerGenerically(PackService<Int>.self, in: container) { PackService<Int>(tag: $0) }
                precondition(container.resolve(PackService<Int>.self, argument: 41)?.tag == 41)
            }
        }
    }

    @Test("A hundred nested generic types taking an argument resolve through any Resolver")
    func deeplyNestedArgumentRegistrations() async {
        // In a child process: in an optimized build the defect crashes it. Intermittent: debug builds pass.
        await withKnownIssue("Optimized builds crash in the argument-unpacking closure", isIntermittent: true) {
            await #expect(processExitsWith: .success) {
                let container = Container()
                registerPackTowers(Double.self, from: 0, count: 100, in: container)
                precondition(resolvedPackTowers(Double.self, from: 0, count: 100, in: container) == 100)
            }
        }
    }
}
