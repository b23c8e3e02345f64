// The closest Swinject code to Keystone's fronts (see `FrontSuite`): Swinject has neither property
// wrappers nor an actor, so the property is initialized from a synchronized resolve, and the actor holds
// a synchronized resolver.

import Benchmark
import Swinject

enum SwinjectFronts: FrontSuite {
    static let name = "Swinject"

    struct Screen {
        let service: SendableService

        init(_ resolver: Resolver) {
            service = resolver.resolve(SendableService.self)!
        }
    }

    actor Front {
        private let resolver: Shared<Resolver>

        init(_ resolver: Resolver) {
            self.resolver = Shared(value: resolver)
        }

        func resolve<Service>(_ type: Service.Type) -> Service? {
            resolver.value.resolve(type)
        }
    }

    static func injectProperty() -> MeasuredLoop {
        let container = Container()
        container.register(SendableService.self) { _ in SendableService() }.inObjectScope(.container)
        let resolver = container.synchronize()
        check(Screen(resolver).service === Screen(resolver).service, "the shared instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(Screen(resolver))
            }
        }
    }

    static func actorResolve() async -> AsyncMeasuredLoop {
        let container = Container()
        container.register(SendableService.self) { _ in SendableService() }.inObjectScope(.container)
        let front = Front(container.synchronize())
        let first = await front.resolve(SendableService.self)
        let second = await front.resolve(SendableService.self)
        check(first != nil && first === second, "the shared instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await front.resolve(SendableService.self))
            }
        }
    }
}
