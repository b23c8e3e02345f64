// The hand-written baseline of the fronts' scenarios (see `FrontSuite`): a property initialized from the
// process-wide container under its lock, and an actor that holds a dictionary (`BaselineActorFront`).

import Benchmark

enum BaselineFronts: FrontSuite {
    static let name = "Baseline"

    /// The process-wide default container, which `@Inject` reads as Keystone's reads its own: a global
    /// made once, reached through its lazy initialization check. Shared between threads only through its
    /// locking methods.
    static let defaultContainer: Shared<BaselineContainer> = {
        let container = BaselineContainer()
        container.register(SendableService.self) { _ in SendableService() }
        return Shared(value: container)
    }()

    struct Screen {
        let service: SendableService

        init() {
            service = defaultContainer.value.resolveCachedLocked(SendableService.self)!
        }
    }

    /// The global's initialization check, a recursive lock, one hashed lookup by type and a load of the
    /// instance kept in the entry.
    static func injectProperty() -> MeasuredLoop {
        check(Screen().service === Screen().service, "the shared instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(Screen())
            }
        }
    }

    /// A hop onto the actor, one hashed lookup by type and a load of the instance kept in the entry.
    static func actorResolve() async -> AsyncMeasuredLoop {
        let front = BaselineActorFront(entries: [
            ObjectIdentifier(SendableService.self): BaselineEntry<Void, SendableService> { SendableService() }
        ])
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
