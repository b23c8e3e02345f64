// The scenarios against Swinject.
//
// KEEP THIS FILE IDENTICAL TO KeystoneSuite.swift apart from these comments, the library import and the
// suite's name, so that both libraries run exactly the same code; `diff KeystoneSuite.swift
// SwinjectSuite.swift` must show nothing else. This file imports only Swinject, so `Container` here is
// `Swinject.Container`. (Keystone's factories may throw and its arguments match by static type; neither
// difference shows in the code below.)

import Benchmark
import Swinject

/// Every scenario, run against `Swinject.Container`.
enum SwinjectSuite: Suite {
    static let name = "Swinject"

    static func appLaunch() -> MeasuredLoop {
        checkAppLaunch(name) { Assembler(appAssemblies()).resolver.resolve(AppRoot.self) }
        return { benchmark in
            for _ in benchmark.scaledIterations {
                let assembler = Assembler(appAssemblies())
                blackHole(assembler.resolver.resolve(AppRoot.self))
            }
        }
    }

    static func resolveTransient() -> MeasuredLoop {
        let container = Container()
        container.register(Service.self) { _ in PlainService() }.inObjectScope(.transient)
        check(container.resolve(Service.self) !== container.resolve(Service.self), "a new instance each time")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self))
            }
        }
    }

    static func resolveContainer() -> MeasuredLoop {
        let container = Container()
        container.register(Service.self) { _ in PlainService() }.inObjectScope(.container)
        check(container.resolve(Service.self) === container.resolve(Service.self), "the cached instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self))
            }
        }
    }

    static func resolveGraph() -> MeasuredLoop {
        let container = Container()
        container.register(Service.self) { _ in PlainService() }
        check(container.resolve(Service.self) != nil, "Service")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self))
            }
        }
    }

    static func resolveNamed() -> MeasuredLoop {
        let container = Container()
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

    static func resolveOneArgument() -> MeasuredLoop {
        let container = Container()
        container.register(Service.self) { _, id in ArgumentService(id: id) }
        check(container.resolve(Service.self, argument: 7) != nil, "Service with 1 argument")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self, argument: 7))
            }
        }
    }

    static func resolveThreeArguments() -> MeasuredLoop {
        let container = Container()
        container.register(Service.self) { _, id, label, weight in
            ArgumentService(id: id, label: label, weight: weight)
        }
        check(container.resolve(Service.self, arguments: 7, "seven", 7.5) != nil, "Service with 3 arguments")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self, arguments: 7, "seven", 7.5))
            }
        }
    }

    static func resolveFromChild() -> MeasuredLoop {
        let parent = Container()
        parent.register(Service.self) { _ in PlainService() }.inObjectScope(.transient)
        let child = Container(parent: parent)
        check(child.resolve(Service.self) != nil, "Service from the parent")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(child.resolve(Service.self))
            }
        }
    }

    static func resolveFromGreatGrandchild() -> MeasuredLoop {
        let root = Container()
        root.register(Service.self) { _ in PlainService() }.inObjectScope(.transient)
        let leaf = Container(parent: Container(parent: Container(parent: root)))
        check(leaf.resolve(Service.self) != nil, "Service from three levels up")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(leaf.resolve(Service.self))
            }
        }
    }

    static func resolveChain() -> MeasuredLoop {
        let container = Container()
        container.register(Chain9.self) { _ in Chain9() }.inObjectScope(.transient)
        container.register(Chain8.self) { r in Chain8(r.resolve(Chain9.self)!) }.inObjectScope(.transient)
        container.register(Chain7.self) { r in Chain7(r.resolve(Chain8.self)!) }.inObjectScope(.transient)
        container.register(Chain6.self) { r in Chain6(r.resolve(Chain7.self)!) }.inObjectScope(.transient)
        container.register(Chain5.self) { r in Chain5(r.resolve(Chain6.self)!) }.inObjectScope(.transient)
        container.register(Chain4.self) { r in Chain4(r.resolve(Chain5.self)!) }.inObjectScope(.transient)
        container.register(Chain3.self) { r in Chain3(r.resolve(Chain4.self)!) }.inObjectScope(.transient)
        container.register(Chain2.self) { r in Chain2(r.resolve(Chain3.self)!) }.inObjectScope(.transient)
        container.register(Chain1.self) { r in Chain1(r.resolve(Chain2.self)!) }.inObjectScope(.transient)
        container.register(Chain0.self) { r in Chain0(r.resolve(Chain1.self)!) }.inObjectScope(.transient)
        check(container.resolve(Chain0.self) != nil, "Chain0")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Chain0.self))
            }
        }
    }

    static func resolveFanOut() -> MeasuredLoop {
        let container = Container()
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

    static func resolveUnregistered() -> MeasuredLoop {
        let container = Container()
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

    static func synchronizedContainer() -> MeasuredLoop {
        let container = Container()
        container.register(Service.self) { _ in PlainService() }.inObjectScope(.container)
        let resolver = container.synchronize()
        check(resolver.resolve(Service.self) === resolver.resolve(Service.self), "the cached instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(resolver.resolve(Service.self))
            }
        }
    }

    static func synchronizedTransient() -> MeasuredLoop {
        let container = Container()
        container.register(Service.self) { _ in PlainService() }.inObjectScope(.transient)
        let resolver = container.synchronize()
        check(resolver.resolve(Service.self) !== resolver.resolve(Service.self), "a new instance each time")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(resolver.resolve(Service.self))
            }
        }
    }

    static func synchronizedContainerTwoThreads() -> MeasuredLoop {
        let container = Container()
        container.register(Service.self) { _ in PlainService() }.inObjectScope(.container)
        // The synchronized view is what may be shared between threads.
        let resolver = Shared(value: container.synchronize())
        check(resolver.value.resolve(Service.self) === resolver.value.resolve(Service.self), "the cached instance")
        return { benchmark in
            onTwoThreads(benchmark) { iterations in
                for _ in iterations {
                    blackHole(resolver.value.resolve(Service.self))
                }
            }
        }
    }

    static func synchronizedTransientTwoThreads() -> MeasuredLoop {
        let container = Container()
        container.register(Service.self) { _ in PlainService() }.inObjectScope(.transient)
        // The synchronized view is what may be shared between threads.
        let resolver = Shared(value: container.synchronize())
        check(resolver.value.resolve(Service.self) !== resolver.value.resolve(Service.self), "a new instance each time")
        return { benchmark in
            onTwoThreads(benchmark) { iterations in
                for _ in iterations {
                    blackHole(resolver.value.resolve(Service.self))
                }
            }
        }
    }

    static func registerThousand() -> MeasuredLoop {
        return { benchmark in
            // One container per sample, filled with `scaledIterations` (1,000) distinct names; its creation
            // and release are shared by the 1,000 registrations.
            check(benchmark.scaledIterations.count <= serviceNames.count, "a distinct name per registration")
            let container = Container()
            for index in benchmark.scaledIterations {
                container.register(Service.self, name: serviceNames[index]) { _ in PlainService() }
            }
            blackHole(container)
        }
    }

    static func startup() -> MeasuredLoop {
        return { benchmark in
            for _ in benchmark.scaledIterations {
                let container = Container()
                for name in serviceNames.prefix(20) {
                    container.register(Service.self, name: name) { _ in PlainService() }
                }
                for name in serviceNames.prefix(20) {
                    blackHole(container.resolve(Service.self, name: name))
                }
            }
        }
    }

    static func resolveTransientAmongMany() -> MeasuredLoop {
        let container = Container()
        var registration = FillerRegistration(container: container)
        visitFillerTypes(count: otherServiceTypeCount, &registration)
        container.register(Service.self) { _ in PlainService() }.inObjectScope(.transient)
        checkFillers(in: container)
        check(container.resolve(Service.self) !== container.resolve(Service.self), "a new instance each time")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self))
            }
        }
    }

    static func resolveContainerAmongMany() -> MeasuredLoop {
        let container = Container()
        var registration = FillerRegistration(container: container)
        visitFillerTypes(count: otherServiceTypeCount, &registration)
        container.register(Service.self) { _ in PlainService() }.inObjectScope(.container)
        checkFillers(in: container)
        check(container.resolve(Service.self) === container.resolve(Service.self), "the cached instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve(Service.self))
            }
        }
    }

    /// Registers every filler type it visits.
    struct FillerRegistration: FillerVisitor {
        let container: Container

        func visit<Tag>(_ type: Filler<Tag>.Type) {
            container.register(Filler<Tag>.self) { _ in Filler<Tag>() }
        }
    }

    /// Stops the run unless every filler type resolves from `container`.
    static func checkFillers(in container: Container) {
        struct Resolution: FillerVisitor {
            let container: Container
            var resolved = 0

            mutating func visit<Tag>(_ type: Filler<Tag>.Type) {
                if container.resolve(Filler<Tag>.self) != nil {
                    resolved += 1
                }
            }
        }
        var resolution = Resolution(container: container)
        visitFillerTypes(count: otherServiceTypeCount, &resolution)
        check(resolution.resolved == otherServiceTypeCount, "\(otherServiceTypeCount) filler types registered")
    }
}
