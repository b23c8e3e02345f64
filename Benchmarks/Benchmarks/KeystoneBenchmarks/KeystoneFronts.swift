// The scenarios of Keystone's fronts (see `FrontSuite`).

import Benchmark
import Keystone

enum KeystoneFronts: FrontSuite {
    static let name = "Keystone"

    /// An object with an `@Inject` property, resolved from the process-wide default container.
    struct Screen {
        @Inject var service: SendableService
    }

    static func injectProperty() -> MeasuredLoop {
        DependencyRegistry.register { SendableService() }
        check(Screen().service === Screen().service, "the shared instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(Screen())
            }
        }
    }

    static func actorResolve() async -> AsyncMeasuredLoop {
        let actor = DIActor()
        await actor.registerSharedActor(SendableService.self) { SendableService() }
        let first = await actor.resolve(SendableService.self)
        let second = await actor.resolve(SendableService.self)
        check(first != nil && first === second, "the shared instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await actor.resolve(SendableService.self))
            }
        }
    }
}
