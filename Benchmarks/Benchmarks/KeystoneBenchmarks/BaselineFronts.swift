// The hand-written baseline of the fronts' scenarios (see `FrontSuite`): a property initialized from the
// process-wide container under its lock, and an actor that holds a dictionary.

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

    actor Front {
        private var entries: [ObjectIdentifier: AnyObject] = [
            ObjectIdentifier(SendableService.self): BaselineEntry<Void, SendableService> { SendableService() }
        ]

        /// The entry's instance, made by the first resolve (see `BaselineContainer.resolveCached`).
        func resolve<Service>(_ type: Service.Type) -> Service? {
            guard let object = entries[ObjectIdentifier(type)] else { return nil }
            let entry = unsafeDowncast(object, to: BaselineEntry<Void, Service>.self)
            if let instance = entry.instance {
                return instance
            }
            let instance = entry.make(())
            entry.instance = instance
            return instance
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
