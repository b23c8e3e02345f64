// The hand-written baseline of the fronts' scenarios (see `FrontSuite`): a property initialized from the
// locked, cached dictionary, and an actor that holds a dictionary.

import Benchmark

enum BaselineFronts: FrontSuite {
    static let name = "Baseline"

    struct Screen {
        let service: SendableService

        init(_ container: BaselineContainer) {
            service = container.resolveCachedLocked(SendableService.self)!
        }
    }

    actor Front {
        private var instances: [ObjectIdentifier: Any] = [ObjectIdentifier(SendableService.self): SendableService()]

        func resolve<Service>(_ type: Service.Type) -> Service? {
            instances[ObjectIdentifier(type)] as? Service
        }
    }

    static func injectProperty() -> MeasuredLoop {
        let container = BaselineContainer()
        container.register(SendableService.self) { _ in SendableService() }
        check(Screen(container).service === Screen(container).service, "the shared instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(Screen(container))
            }
        }
    }

    static func actorResolve() async -> AsyncMeasuredLoop {
        let front = Front()
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
