// The async scenarios (issue: async factories): `resolveAsync` of a synchronous registration, of a cached
// async singleton, 100 concurrent first resolves of an async singleton, and the warm-up of 20 async
// singletons that each wait a millisecond. Swinject has no async factories; the baseline is the
// hand-written code an app writes instead: a lock-guarded dictionary of `Task`s, one per service, whose
// value every caller awaits, or, for the warm-up, a task group that stores what its tasks return.

import Benchmark
import Foundation
import Keystone

/// One implementation of every async scenario.
protocol AsyncSuite {
    static var name: String { get }
    /// 22. A synchronous `.transient` registration, resolved asynchronously.
    static func resolveAsyncOfSync() async -> AsyncMeasuredLoop
    /// 23. An async `.container` registration whose instance exists, resolved asynchronously.
    static func resolveAsyncCached() async -> AsyncMeasuredLoop
    /// 24. A new container with an async `.container` registration, resolved by 100 tasks at once; one
    /// operation is the whole batch (the factory runs once).
    static func concurrentFirstResolves() async -> AsyncMeasuredLoop
    /// 28. A new container with 20 independent async `.container` registrations whose factories each
    /// sleep 1 ms, warmed up; one operation is the whole launch (registrations included). The sleeps
    /// overlap, so an operation takes a little over a millisecond, not twenty.
    static func warmUpTwentyAwaiting() async -> AsyncMeasuredLoop
}

/// The name of scenario 28, whose operations last a millisecond each: it runs with fewer, longer
/// samples (see KeystoneBenchmarks.swift).
let warmUpAwaitingName = "28 warmUp of 20 async .container, each awaiting 1 ms"

/// How many services scenario 28 warms up, and how long each factory sleeps.
let warmUpServiceCount = 20
let warmUpSleep = Duration.milliseconds(1)

var asyncScenarios: [(name: String, loop: (any AsyncSuite.Type) async -> AsyncMeasuredLoop)] {
    [
        ("22 resolveAsync of a sync .transient", { await $0.resolveAsyncOfSync() }),
        ("23 resolveAsync of a cached async .container", { await $0.resolveAsyncCached() }),
        ("24 100 concurrent first resolveAsync of an async .container", { await $0.concurrentFirstResolves() }),
        (warmUpAwaitingName, { await $0.warmUpTwentyAwaiting() }),
    ]
}

var asyncSuites: [any AsyncSuite.Type] { [KeystoneAsync.self, BaselineAsync.self] }

enum KeystoneAsync: AsyncSuite {
    static let name = "Keystone"

    static func resolveAsyncOfSync() async -> AsyncMeasuredLoop {
        let container = Container()
        container.register(SendableService.self) { _ in SendableService() }.inObjectScope(.transient)
        let resolver = container.synchronize()
        let first = try? await resolver.resolveAsync(SendableService.self)
        check(first != nil, "the sync registration")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try? await resolver.resolveAsync(SendableService.self))
            }
        }
    }

    static func resolveAsyncCached() async -> AsyncMeasuredLoop {
        let container = Container()
        container.registerAsync(SendableService.self) { _ in SendableService() }.inObjectScope(.container)
        let resolver = container.synchronize()
        let first = try? await resolver.resolveAsync(SendableService.self)
        let second = try? await resolver.resolveAsync(SendableService.self)
        check(first != nil && first === second, "the shared instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try? await resolver.resolveAsync(SendableService.self))
            }
        }
    }

    static func concurrentFirstResolves() async -> AsyncMeasuredLoop {
        func batch() async -> Int {
            let container = Container()
            container.registerAsync(SendableService.self) { _ in
                await Task.yield()
                return SendableService()
            }
            .inObjectScope(.container)
            let resolver = container.synchronize()
            return await withTaskGroup(of: ObjectIdentifier?.self) { group in
                for _ in 0..<100 {
                    group.addTask { (try? await resolver.resolveAsync(SendableService.self)).map(ObjectIdentifier.init) }
                }
                var seen: Set<ObjectIdentifier?> = []
                for await identity in group {
                    seen.insert(identity)
                }
                return seen.count == 1 && seen.first! != nil ? 1 : seen.count + 1
            }
        }
        check(await batch() == 1, "one instance for the hundred tasks")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await batch())
            }
        }
    }

    static func warmUpTwentyAwaiting() async -> AsyncMeasuredLoop {
        let names = (0..<warmUpServiceCount).map { "service \($0)" }
        func launch() async -> Container {
            let container = Container()
            for name in names {
                container.registerAsync(SendableService.self, name: name) { _ in
                    try await Task.sleep(for: warmUpSleep)
                    return SendableService()
                }
                .inObjectScope(.container)
            }
            try? await container.warmUp()
            return container
        }
        let container = await launch()
        let resolver = container.synchronize()
        let made = names.compactMap { resolver.resolve(SendableService.self, name: $0) }
        check(Set(made.map(ObjectIdentifier.init)).count == warmUpServiceCount, "twenty services, kept")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await launch())
            }
        }
    }
}

/// The hand-written async cache: a lock, a dictionary of `Task`s by type, and `await task.value`.
final class TaskCache: @unchecked Sendable {
    // @unchecked: `tasks` is used only under `lock`.
    private let lock = NSLock()
    private var tasks: [ObjectIdentifier: Task<SendableService, any Error>] = [:]
    private let make: @Sendable () async throws -> SendableService

    init(make: @escaping @Sendable () async throws -> SendableService) {
        self.make = make
    }

    func value() async throws -> SendableService {
        try await task().value
    }

    private func task() -> Task<SendableService, any Error> {
        lock.withLock {
            if let existing = tasks[ObjectIdentifier(SendableService.self)] {
                return existing
            }
            let make = make
            let task = Task { try await make() }
            tasks[ObjectIdentifier(SendableService.self)] = task
            return task
        }
    }
}

enum BaselineAsync: AsyncSuite {
    static let name = "Baseline"

    /// A lock and a dictionary of factories by type, called from an async function.
    static func resolveAsyncOfSync() async -> AsyncMeasuredLoop {
        let container = BaselineContainer()
        container.register(SendableService.self) { _ in SendableService() }
        let shared = Shared(value: container)
        @Sendable func resolve() async -> SendableService? {
            shared.value.resolveLocked(SendableService.self)
        }
        check(await resolve() != nil, "the registration")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await resolve())
            }
        }
    }

    static func resolveAsyncCached() async -> AsyncMeasuredLoop {
        let cache = TaskCache { SendableService() }
        let first = try? await cache.value()
        let second = try? await cache.value()
        check(first != nil && first === second, "the shared instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(try? await cache.value())
            }
        }
    }

    static func concurrentFirstResolves() async -> AsyncMeasuredLoop {
        func batch() async -> Int {
            let cache = TaskCache {
                await Task.yield()
                return SendableService()
            }
            return await withTaskGroup(of: ObjectIdentifier?.self) { group in
                for _ in 0..<100 {
                    group.addTask { (try? await cache.value()).map(ObjectIdentifier.init) }
                }
                var seen: Set<ObjectIdentifier?> = []
                for await identity in group {
                    seen.insert(identity)
                }
                return seen.count == 1 && seen.first! != nil ? 1 : seen.count + 1
            }
        }
        check(await batch() == 1, "one instance for the hundred tasks")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await batch())
            }
        }
    }

    /// A task group of 20 child tasks that sleep 1 ms and return a service, stored by index as they come.
    static func warmUpTwentyAwaiting() async -> AsyncMeasuredLoop {
        func launch() async -> [Int: SendableService] {
            await withTaskGroup(of: (Int, SendableService?).self) { group in
                for index in 0..<warmUpServiceCount {
                    group.addTask {
                        do {
                            try await Task.sleep(for: warmUpSleep)
                            return (index, SendableService())
                        } catch {
                            return (index, nil)
                        }
                    }
                }
                var services: [Int: SendableService] = [:]
                for await (index, service) in group {
                    services[index] = service
                }
                return services
            }
        }
        check(await launch().count == warmUpServiceCount, "twenty services, stored")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(await launch())
            }
        }
    }
}
