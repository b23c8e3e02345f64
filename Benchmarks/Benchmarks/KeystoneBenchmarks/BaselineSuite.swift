// The hand-written baseline: the least a container must do for each scenario, so the table can say how
// far Keystone is from the floor. Factories live in plain dictionaries keyed by `ObjectIdentifier` of the
// service type (or by a small struct when a name or argument types are part of the key); a resolve is a
// lookup, a call and an `as!` cast back to the service type. No diagnostics, no cycle detection, no
// behaviors: a real container has more to do, and the ratio to this baseline shows what that costs.

import Benchmark
import Foundation

/// Factories by service type, with an optional parent, a cache for `.container`-style instances and a
/// lock for the synchronized scenarios.
final class BaselineContainer {
    private let parent: BaselineContainer?
    private var factories: [ObjectIdentifier: (BaselineContainer) -> Any] = [:]
    private var instances: [ObjectIdentifier: Any] = [:]
    private let lock = NSRecursiveLock()

    init(parent: BaselineContainer? = nil) {
        self.parent = parent
    }

    func register<Service>(_ type: Service.Type, factory: @escaping (BaselineContainer) -> Service) {
        factories[ObjectIdentifier(type)] = factory
    }

    /// Looks the factory up here, then in the parents; calls it and casts the result.
    func resolve<Service>(_ type: Service.Type) -> Service? {
        let key = ObjectIdentifier(type)
        var container = self
        while true {
            if let factory = container.factories[key] {
                return (factory(self) as! Service)
            }
            guard let parent = container.parent else { return nil }
            container = parent
        }
    }

    /// The `.container` scope: the instance made by the first resolve is kept, and every later resolve is
    /// one lookup in `instances` and a cast.
    func resolveCached<Service>(_ type: Service.Type) -> Service? {
        let key = ObjectIdentifier(type)
        if let instance = instances[key] {
            return (instance as! Service)
        }
        let instance = resolve(type)
        instances[key] = instance
        return instance
    }

    /// `resolve` under the lock, as a thread-safe view does it.
    func resolveLocked<Service>(_ type: Service.Type) -> Service? {
        lock.lock()
        defer { lock.unlock() }
        return resolve(type)
    }

    /// `resolveCached` under the lock, as a thread-safe view does it.
    func resolveCachedLocked<Service>(_ type: Service.Type) -> Service? {
        lock.lock()
        defer { lock.unlock() }
        return resolveCached(type)
    }
}

/// A key made of the service type and a registration name.
struct NamedKey: Hashable {
    let type: ObjectIdentifier
    let name: String?
}

/// Factories by service type and name.
final class BaselineNamedContainer {
    private var factories: [NamedKey: () -> Any] = [:]

    func register<Service>(_ type: Service.Type, name: String?, factory: @escaping () -> Service) {
        factories[NamedKey(type: ObjectIdentifier(type), name: name)] = factory
    }

    func resolve<Service>(_ type: Service.Type, name: String? = nil) -> Service? {
        guard let factory = factories[NamedKey(type: ObjectIdentifier(type), name: name)] else { return nil }
        return (factory() as! Service)
    }
}

/// A key made of the service type and the type of the factory's arguments (a tuple when several).
struct ArgumentsKey: Hashable {
    let type: ObjectIdentifier
    let arguments: ObjectIdentifier
}

/// Factories that take runtime arguments, stored type-erased and cast back to their exact function type.
final class BaselineArgumentsContainer {
    private var factories: [ArgumentsKey: Any] = [:]

    func register<Service, Arguments>(_ type: Service.Type, factory: @escaping (Arguments) -> Service) {
        factories[ArgumentsKey(type: ObjectIdentifier(type), arguments: ObjectIdentifier(Arguments.self))] = factory
    }

    func resolve<Service, Arguments>(_ type: Service.Type, arguments: Arguments) -> Service? {
        let key = ArgumentsKey(type: ObjectIdentifier(type), arguments: ObjectIdentifier(Arguments.self))
        guard let factory = factories[key] else { return nil }
        return (factory as! (Arguments) -> Service)(arguments)
    }
}

/// The `.graph` scope: the instances one resolve makes are remembered in a dictionary that lives as long as
/// that resolve, so that everything needing the same service gets the same instance.
final class BaselineGraphContainer {
    typealias Graph = [ObjectIdentifier: Any]
    private var factories: [ObjectIdentifier: (BaselineGraphContainer, inout Graph) -> Any] = [:]

    func register<Service>(_ type: Service.Type, factory: @escaping (BaselineGraphContainer, inout Graph) -> Service) {
        factories[ObjectIdentifier(type)] = factory
    }

    /// Resolves in a new graph.
    func resolve<Service>(_ type: Service.Type) -> Service? {
        var graph: Graph = [:]
        return resolve(type, in: &graph)
    }

    /// Resolves in `graph`: its instance if it has one, else a new one that joins it.
    func resolve<Service>(_ type: Service.Type, in graph: inout Graph) -> Service? {
        let key = ObjectIdentifier(type)
        if let instance = graph[key] {
            return (instance as! Service)
        }
        guard let factory = factories[key] else { return nil }
        let instance = factory(self, &graph) as! Service
        graph[key] = instance
        return instance
    }
}

/// Every scenario, hand-written on the containers above.
enum BaselineSuite: Suite {
    static let name = "Baseline"

    static func resolveTransient() -> MeasuredLoop {
        let container = BaselineContainer()
        container.register(Service.self) { _ in PlainService() }
        check(container.resolve(Service.self) !== container.resolve(Service.self), "a new instance each time")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self))
            }
        }
    }

    static func resolveContainer() -> MeasuredLoop {
        let container = BaselineContainer()
        container.register(Service.self) { _ in PlainService() }
        check(container.resolveCached(Service.self) === container.resolveCached(Service.self), "the cached instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolveCached(Service.self))
            }
        }
    }

    /// In a graph of one instance there is nothing to share, so the baseline is the transient resolve.
    static func resolveGraph() -> MeasuredLoop {
        resolveTransient()
    }

    static func resolveNamed() -> MeasuredLoop {
        let container = BaselineNamedContainer()
        for name in serviceNames.prefix(100) {
            container.register(Service.self, name: name) { PlainService() }
        }
        check(container.resolve(Service.self, name: resolvedName) != nil, "Service named \(resolvedName)")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self, name: resolvedName))
            }
        }
    }

    static func resolveOneArgument() -> MeasuredLoop {
        let container = BaselineArgumentsContainer()
        container.register(Service.self) { (id: Int) in ArgumentService(id: id) }
        check(container.resolve(Service.self, arguments: 7) != nil, "Service with 1 argument")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self, arguments: 7))
            }
        }
    }

    static func resolveThreeArguments() -> MeasuredLoop {
        let container = BaselineArgumentsContainer()
        container.register(Service.self) { (arguments: (Int, String, Double)) in
            ArgumentService(id: arguments.0, label: arguments.1, weight: arguments.2)
        }
        check(container.resolve(Service.self, arguments: (7, "seven", 7.5)) != nil, "Service with 3 arguments")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self, arguments: (7, "seven", 7.5)))
            }
        }
    }

    static func resolveFromChild() -> MeasuredLoop {
        let parent = BaselineContainer()
        parent.register(Service.self) { _ in PlainService() }
        let child = BaselineContainer(parent: parent)
        check(child.resolve(Service.self) != nil, "Service from the parent")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(child.resolve(Service.self))
            }
        }
    }

    static func resolveFromGreatGrandchild() -> MeasuredLoop {
        let root = BaselineContainer()
        root.register(Service.self) { _ in PlainService() }
        let leaf = BaselineContainer(parent: BaselineContainer(parent: BaselineContainer(parent: root)))
        check(leaf.resolve(Service.self) != nil, "Service from three levels up")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(leaf.resolve(Service.self))
            }
        }
    }

    static func resolveChain() -> MeasuredLoop {
        let container = BaselineContainer()
        container.register(Chain9.self) { _ in Chain9() }
        container.register(Chain8.self) { r in Chain8(r.resolve(Chain9.self)!) }
        container.register(Chain7.self) { r in Chain7(r.resolve(Chain8.self)!) }
        container.register(Chain6.self) { r in Chain6(r.resolve(Chain7.self)!) }
        container.register(Chain5.self) { r in Chain5(r.resolve(Chain6.self)!) }
        container.register(Chain4.self) { r in Chain4(r.resolve(Chain5.self)!) }
        container.register(Chain3.self) { r in Chain3(r.resolve(Chain4.self)!) }
        container.register(Chain2.self) { r in Chain2(r.resolve(Chain3.self)!) }
        container.register(Chain1.self) { r in Chain1(r.resolve(Chain2.self)!) }
        container.register(Chain0.self) { r in Chain0(r.resolve(Chain1.self)!) }
        check(container.resolve(Chain0.self) != nil, "Chain0")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Chain0.self))
            }
        }
    }

    static func resolveFanOut() -> MeasuredLoop {
        let container = BaselineGraphContainer()
        container.register(FanLeaf.self) { _, _ in FanLeaf() }
        container.register(FanBranch1.self) { r, graph in FanBranch1(r.resolve(FanLeaf.self, in: &graph)!) }
        container.register(FanBranch2.self) { r, graph in FanBranch2(r.resolve(FanLeaf.self, in: &graph)!) }
        container.register(FanBranch3.self) { r, graph in FanBranch3(r.resolve(FanLeaf.self, in: &graph)!) }
        container.register(FanBranch4.self) { r, graph in FanBranch4(r.resolve(FanLeaf.self, in: &graph)!) }
        container.register(FanBranch5.self) { r, graph in FanBranch5(r.resolve(FanLeaf.self, in: &graph)!) }
        container.register(FanRoot.self) { r, graph in
            FanRoot(
                r.resolve(FanBranch1.self, in: &graph)!,
                r.resolve(FanBranch2.self, in: &graph)!,
                r.resolve(FanBranch3.self, in: &graph)!,
                r.resolve(FanBranch4.self, in: &graph)!,
                r.resolve(FanBranch5.self, in: &graph)!
            )
        }
        check(container.resolve(FanRoot.self)?.sharesLeaf == true, "FanRoot with one shared leaf")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(FanRoot.self))
            }
        }
    }

    static func resolveUnregistered() -> MeasuredLoop {
        let container = BaselineNamedContainer()
        for name in serviceNames.prefix(100) {
            container.register(Service.self, name: name) { PlainService() }
        }
        check(container.resolve(UnregisteredService.self) == nil, "nil for an unregistered type")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(UnregisteredService.self))
            }
        }
    }

    static func synchronizedContainer() -> MeasuredLoop {
        let container = BaselineContainer()
        container.register(Service.self) { _ in PlainService() }
        check(container.resolveCachedLocked(Service.self) === container.resolveCachedLocked(Service.self), "cached")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolveCachedLocked(Service.self))
            }
        }
    }

    static func synchronizedTransient() -> MeasuredLoop {
        let container = BaselineContainer()
        container.register(Service.self) { _ in PlainService() }
        check(container.resolveLocked(Service.self) !== container.resolveLocked(Service.self), "a new instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolveLocked(Service.self))
            }
        }
    }

    static func synchronizedContainerTwoThreads() -> MeasuredLoop {
        let container = BaselineContainer()
        container.register(Service.self) { _ in PlainService() }
        // Shared between threads, which use only its locking methods.
        let shared = Shared(value: container)
        check(container.resolveCachedLocked(Service.self) === container.resolveCachedLocked(Service.self), "cached")
        return { benchmark in
            onTwoThreads(benchmark) { iterations in
                for _ in iterations {
                    blackHole(shared.value.resolveCachedLocked(Service.self))
                }
            }
        }
    }

    static func synchronizedTransientTwoThreads() -> MeasuredLoop {
        let container = BaselineContainer()
        container.register(Service.self) { _ in PlainService() }
        // Shared between threads, which use only its locking methods.
        let shared = Shared(value: container)
        check(container.resolveLocked(Service.self) !== container.resolveLocked(Service.self), "a new instance")
        return { benchmark in
            onTwoThreads(benchmark) { iterations in
                for _ in iterations {
                    blackHole(shared.value.resolveLocked(Service.self))
                }
            }
        }
    }

    static func registerThousand() -> MeasuredLoop {
        return { benchmark in
            check(benchmark.scaledIterations.count <= serviceNames.count, "a distinct name per registration")
            let container = BaselineNamedContainer()
            for index in benchmark.scaledIterations {
                container.register(Service.self, name: serviceNames[index]) { PlainService() }
            }
            blackHole(container)
        }
    }

    static func startup() -> MeasuredLoop {
        return { benchmark in
            for _ in benchmark.scaledIterations {
                let container = BaselineNamedContainer()
                for name in serviceNames.prefix(20) {
                    container.register(Service.self, name: name) { PlainService() }
                }
                for name in serviceNames.prefix(20) {
                    blackHole(container.resolve(Service.self, name: name))
                }
            }
        }
    }
}
