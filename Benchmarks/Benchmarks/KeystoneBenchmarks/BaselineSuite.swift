// The hand-written baseline: the least a container must do for each scenario, so the table can say how
// far Keystone is from the floor. Factories live in plain dictionaries keyed by `ObjectIdentifier` of the
// service type (or by a small struct when a name or argument types are part of the key); a resolve is a
// lookup, an unchecked downcast of the entry found, and a call. No diagnostics, no cycle detection, no
// behaviors: a real container has more to do, and the ratio to this baseline shows what that costs.
//
// The entries are typed (`BaselineEntry<Input, Service>`), so the instance a factory returns needs no cast:
// the key an entry is found under fixes its `Service`, so `unsafeDowncast` of the entry is sound, as it is
// in Keystone's engine. (A checked `as!` of each instance to the service protocol, which these baselines
// did before, costs a conformance lookup per resolve that a container need not pay.)

import Benchmark
import Foundation

/// Every scenario, hand-written on the containers of `BaselineContainers.swift`. Each one's comment says the work it measures.
enum BaselineSuite: Suite {
    static let name = "Baseline"

    /// A new container of 300 factories keyed by type and name from 10 assemblies, then the root's graph.
    static func appLaunch() -> MeasuredLoop {
        checkAppLaunch(name) { launchApp().resolve(AppRoot.self) }
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(launchApp().resolve(AppRoot.self))
            }
        }
    }

    /// The container of a launch, filled by the app's assemblies (`Assembler` in the libraries' suites).
    private static func launchApp() -> BaselineLaunchContainer {
        let container = BaselineLaunchContainer()
        for assembly in appAssemblies() {
            assembly.assemble(container: container)
        }
        return container
    }

    /// One hashed lookup by type and a call of the factory.
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

    /// One hashed lookup by type and a load of the instance kept in the entry.
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

    /// One hashed lookup by type and a call, in a graph opened and closed around it (nothing to share).
    static func resolveGraph() -> MeasuredLoop {
        let container = BaselineGraphContainer()
        container.register(Service.self) { _ in PlainService() }
        check(container.resolve(Service.self) !== container.resolve(Service.self), "a new graph each time")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self))
            }
        }
    }

    /// One lookup in a dictionary keyed by type and name (the name hashed each time) and a call.
    static func resolveNamed() -> MeasuredLoop {
        let container = BaselineNamedContainer()
        for name in serviceNames.prefix(100) {
            container.register(Service.self, name: name) { _ in PlainService() }
        }
        check(container.resolve(Service.self, name: resolvedName) != nil, "Service named \(resolvedName)")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self, name: resolvedName))
            }
        }
    }

    /// One lookup keyed by type and argument type, and a call passing the argument.
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

    /// One lookup keyed by type and the arguments' tuple type, and a call passing the three.
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

    /// A miss in the child's empty dictionary, then the parent's hit and a call.
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

    /// A miss in each of three empty dictionaries on the way up, then the root's hit and a call.
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

    /// Ten transient resolves, each a lookup and a call, nested.
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

    /// Eleven lookups and seven calls; the graph's instances kept in their entries, dropped at the end.
    static func resolveFanOut() -> MeasuredLoop {
        let container = BaselineGraphContainer()
        container.register(FanLeaf.self) { _ in FanLeaf() }
        container.register(FanBranch1.self) { r in FanBranch1(r.resolve(FanLeaf.self)!) }
        container.register(FanBranch2.self) { r in FanBranch2(r.resolve(FanLeaf.self)!) }
        container.register(FanBranch3.self) { r in FanBranch3(r.resolve(FanLeaf.self)!) }
        container.register(FanBranch4.self) { r in FanBranch4(r.resolve(FanLeaf.self)!) }
        container.register(FanBranch5.self) { r in FanBranch5(r.resolve(FanLeaf.self)!) }
        container.register(FanRoot.self) { r in
            FanRoot(
                r.resolve(FanBranch1.self)!,
                r.resolve(FanBranch2.self)!,
                r.resolve(FanBranch3.self)!,
                r.resolve(FanBranch4.self)!,
                r.resolve(FanBranch5.self)!
            )
        }
        check(container.resolve(FanRoot.self)?.sharesLeaf == true, "FanRoot with one shared leaf")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(FanRoot.self))
            }
        }
    }

    /// One miss in a dictionary of 100 registrations keyed by type and name.
    static func resolveUnregistered() -> MeasuredLoop {
        let container = BaselineNamedContainer()
        for name in serviceNames.prefix(100) {
            container.register(Service.self, name: name) { _ in PlainService() }
        }
        check(container.resolve(UnregisteredService.self) == nil, "nil for an unregistered type")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(UnregisteredService.self))
            }
        }
    }

    /// 02 under a recursive lock.
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

    /// 01 under a recursive lock.
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

    /// 02 under a recursive lock, from two threads contending for it.
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

    /// 01 under a recursive lock, from two threads contending for it.
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

    /// One entry allocated and inserted under a new (type, name) key.
    static func registerThousand() -> MeasuredLoop {
        return { benchmark in
            check(benchmark.scaledIterations.count <= serviceNames.count, "a distinct name per registration")
            let container = BaselineNamedContainer()
            for index in benchmark.scaledIterations {
                container.register(Service.self, name: serviceNames[index]) { _ in PlainService() }
            }
            blackHole(container)
        }
    }

    /// A new dictionary container, 20 insertions by type and name, and 20 lookups and calls.
    static func startup() -> MeasuredLoop {
        return { benchmark in
            for _ in benchmark.scaledIterations {
                let container = BaselineNamedContainer()
                for name in serviceNames.prefix(20) {
                    container.register(Service.self, name: name) { _ in PlainService() }
                }
                for name in serviceNames.prefix(20) {
                    blackHole(container.resolve(Service.self, name: name))
                }
            }
        }
    }

    /// 01 in a dictionary of 10,001 entries.
    static func resolveTransientAmongMany() -> MeasuredLoop {
        let container = containerAmongMany()
        check(container.resolve(Service.self) !== container.resolve(Service.self), "a new instance each time")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self))
            }
        }
    }

    /// 02 in a dictionary of 10,001 entries.
    static func resolveContainerAmongMany() -> MeasuredLoop {
        let container = containerAmongMany()
        check(container.resolveCached(Service.self) === container.resolveCached(Service.self), "the cached instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolveCached(Service.self))
            }
        }
    }

    /// A container of the 10,000 filler types and `Service`, each filler checked to resolve.
    private static func containerAmongMany() -> BaselineContainer {
        struct Registration: FillerVisitor {
            let container: BaselineContainer

            func visit<Tag>(_ type: Filler<Tag>.Type) {
                container.register(Filler<Tag>.self) { _ in Filler<Tag>() }
            }
        }
        struct Resolution: FillerVisitor {
            let container: BaselineContainer
            var resolved = 0

            mutating func visit<Tag>(_ type: Filler<Tag>.Type) {
                if container.resolve(Filler<Tag>.self) != nil {
                    resolved += 1
                }
            }
        }
        let container = BaselineContainer()
        var registration = Registration(container: container)
        visitFillerTypes(count: otherServiceTypeCount, &registration)
        container.register(Service.self) { _ in PlainService() }
        var resolution = Resolution(container: container)
        visitFillerTypes(count: otherServiceTypeCount, &resolution)
        check(resolution.resolved == otherServiceTypeCount, "\(otherServiceTypeCount) filler types registered")
        return container
    }
}
