import Dispatch
import Foundation
import Keystone
import Testing

extension ProcessWideContainerTests {
    /// The examples of the DIActor guide, run as written (with `import Keystone`), and the guarantees of
    /// `DIActorGlobalAPI` and `DIActorBridge`.
    ///
    /// These tests touch `DIActor.shared`, which fronts the process-wide default container. The examples
    /// use it as written, and one of them releases everything, so the suite runs its tests one at a
    /// time, each starting from an empty `DIActor.shared`, and is nested in `ProcessWideContainerTests`
    /// with every other suite that uses the default container, so that none of them runs beside another.
    /// The services the examples name are declared inside the suite, so they never clash with types of
    /// the same name elsewhere in the tests, and `print` is the suite's own, so a test can check what an
    /// example printed.
    @Suite("The DIActor guide's examples, on DIActor.shared", .serialized, .hangLimit)
    struct DIActorSeedExamplesTests {
        init() async {
            await DIActor.shared.releaseAll()
            Self.transcript.clear()
        }

        // MARK: - Basic usage

        @Test("Basic usage: a factory registered on the shared actor is resolved")
        func basicUsage() async {
            // Async/await pattern
            let diActor = DIActor.shared
            await diActor.register(ServiceProtocol.self) { ServiceImpl() }
            let service = await diActor.resolve(ServiceProtocol.self)

            #expect(service is ServiceImpl)
        }

        // MARK: - Registration patterns

        @Test("Basic factory registration: the resolved user service fetches users")
        func basicFactoryRegistration() async {
            // Register with factory closure
            await DIActor.shared.register(UserService.self) {
                UserServiceImpl()
            }
            // Resolve when needed
            if let service = await DIActor.shared.resolve(UserService.self) {
                await service.fetchUsers()
            }

            #expect(Self.transcript.events == ["UserServiceImpl.init", "fetchUsers"])
        }

        @Test("Instance registration: the registered config is what resolve returns")
        func instanceRegistration() async {
            // Register a Sendable instance directly
            let config = AppConfig(apiKey: "key123", timeout: 30)
            await DIActor.shared.register(AppConfig.self, instance: config)
            // Resolve the same instance
            let resolvedConfig = await DIActor.shared.resolve(AppConfig.self)
            print(resolvedConfig?.apiKey)  // "key123"

            #expect(resolvedConfig == config)
            #expect(Self.transcript.printed == [#"Optional("key123")"#])
        }

        @Test("Shared actor registration: both resolves return the one instance, until the handler releases it")
        func sharedActorRegistration() async {
            // Register as shared actor (singleton-like but thread-safe)
            let releaseHandler = await DIActor.shared.registerSharedActor(DatabaseService.self) {
                DatabaseService()
            }
            // All resolutions return the same instance (created once)
            let db1 = await DIActor.shared.resolve(DatabaseService.self)
            let db2 = await DIActor.shared.resolve(DatabaseService.self)
            // db1 and db2 are the same instance
            #expect(db1 != nil && db1 === db2)
            #expect(Self.transcript.events == ["DatabaseService.init"])
            // Release when done
            await releaseHandler()

            #expect(await DIActor.shared.resolve(DatabaseService.self) == nil)
        }

        // MARK: - Resolution patterns

        @Test("Optional resolution: says the service is not registered, then performs the action once it is")
        func optionalResolution() async {
            // Returns optional
            if let service = await DIActor.shared.resolve(UserService.self) {
                await service.performAction()
            } else {
                print("Service not registered")
            }
            await DIActor.shared.register(UserService.self) { UserServiceImpl() }
            if let service = await DIActor.shared.resolve(UserService.self) {
                await service.performAction()
            } else {
                print("Service not registered")
            }

            #expect(Self.transcript.printed == ["Service not registered"])
            #expect(Self.transcript.events == ["UserServiceImpl.init", "performAction"])
        }

        @Test("Result pattern: a failure names the missing service, a success performs the action")
        func resultPattern() async {
            for _ in 1...2 {
                // Returns Result<T, DIError>
                let result = await DIActor.shared.resolveResult(UserService.self)
                switch result {
                case .success(let service):
                    await service.performAction()
                case .failure(let error):
                    print("Resolution failed: \(error)")
                }
                await DIActor.shared.register(UserService.self) { UserServiceImpl() }
            }

            #expect(Self.transcript.printed.count == 1)
            #expect(
                Self.transcript.printed.first?.hasPrefix("Resolution failed: No registration for UserService.") == true
            )
            #expect(Self.transcript.events == ["UserServiceImpl.init", "performAction"])
        }

        @Test("Throwing pattern: a failure names the missing service, a success performs the action")
        func throwingPattern() async {
            for _ in 1...2 {
                // Throws DIError
                do {
                    let service = try await DIActor.shared.resolveThrows(UserService.self)
                    await service.performAction()
                } catch {
                    print("Resolution failed: \(error)")
                }
                await DIActor.shared.register(UserService.self) { UserServiceImpl() }
            }

            #expect(Self.transcript.printed.count == 1)
            #expect(
                Self.transcript.printed.first?.hasPrefix("Resolution failed: No registration for UserService.") == true
            )
            #expect(Self.transcript.events == ["UserServiceImpl.init", "performAction"])
        }

        // MARK: - Performance features

        @Test("Hot path: repeated resolves all succeed and are all counted, with no cache in between")
        func hotPath() async {
            await DIActor.shared.register(UserService.self) { UserServiceImpl() }

            // First resolution: normal speed
            let service1 = await DIActor.shared.resolve(UserService.self)
            // After 10+ resolutions: cached, much faster
            for _ in 1...20 {
                let service = await DIActor.shared.resolve(UserService.self)
                // Cached access after 10th resolution
                #expect(service != nil)
            }

            #expect(service1 != nil)
            // Each resolve ran the factory (a transient registration) and was counted.
            #expect(Self.transcript.events == Array(repeating: "UserServiceImpl.init", count: 21))
            #expect(await DIActor.shared.statusReport().contains("resolved 21 times"))
        }

        @Test("Usage tracking: the status counts every resolution of every type")
        func usageTracking() async {
            await DIActor.shared.register(UserService.self) { UserServiceImpl() }
            await DIActor.shared.registerSharedActor(DatabaseService.self) { DatabaseService() }
            for _ in 0..<23 {
                _ = await DIActor.shared.resolve(UserService.self)
            }
            for _ in 0..<15 {
                _ = await DIActor.shared.resolve(DatabaseService.self)
            }

            // DIActor tracks usage count for all types
            await DIActor.shared.printStatus()

            let report = await DIActor.shared.statusReport()
            #expect(report.contains("• UserService [transient]"))
            #expect(report.contains("resolved 23 times"))
            #expect(report.contains("• DatabaseService [container]"))
            #expect(report.contains("resolved 15 times, shared, instance held"))
        }

        // MARK: - Global API

        @Test("Global API: register and resolve through DIActorGlobalAPI")
        func globalAPI() async {
            // Register via global API
            await DIActorGlobalAPI.register(UserService.self) {
                UserServiceImpl()
            }
            // Resolve via global API
            let service = await DIActorGlobalAPI.resolve(UserService.self)

            #expect(service is UserServiceImpl)
            #expect(await DIActor.shared.resolve(UserService.self) is UserServiceImpl)
        }

        @Test("Every call of the Global API works on the shared actor")
        func globalAPICalls() async throws {
            let release: @Sendable () async -> Void = await DIActorGlobalAPI.register(UserService.self) {
                UserServiceImpl()
            }
            let result: Result<any UserService, DIError> = await DIActorGlobalAPI.resolveResult(UserService.self)
            let thrown: any UserService = try await DIActorGlobalAPI.resolveThrows(UserService.self)
            #expect((try? result.get()) is UserServiceImpl)
            #expect(thrown is UserServiceImpl)

            await release()
            #expect(await DIActorGlobalAPI.resolve(UserService.self) == nil)
            let missing = DIError.notRegistered(
                key: ServiceKey(serviceType: (any UserService).self),
                path: [],
                candidates: []
            )
            await #expect(throws: missing) {
                try await DIActorGlobalAPI.resolveThrows(UserService.self)
            }

            await DIActorGlobalAPI.register(ServiceProtocol.self) { ServiceImpl() }
            await DIActorGlobalAPI.register(Service.self) { ServiceImpl() }
            await DIActorGlobalAPI.release(ServiceProtocol.self)
            #expect(await DIActor.shared.allRegisteredTypes() == ["Service"])
            await DIActorGlobalAPI.releaseAll()
            #expect(await DIActor.shared.registeredCount() == 0)
        }

        // MARK: - Migration bridge

        @Test("Migration example, before: the synchronous calls, here through the bridge's sync wrappers")
        func migrationBefore() {
            // OLD (DispatchQueue-based):
            DI.register(Service.self) { ServiceImpl() }
            let service = DI.resolve(Service.self)

            #expect(service is ServiceImpl)
        }

        @Test("Migration example, after: the bridge registers and resolves with await")
        func migrationAfter() async {
            // NEW (Actor-based):
            await DIActorBridge.register(Service.self) { ServiceImpl() }
            let service = await DIActorBridge.resolve(Service.self)

            #expect(service is ServiceImpl)
        }

        @Test("The bridge's sync calls register and resolve from a plain synchronous function")
        func syncBridgeOutsideAnyActor() {
            DIActorBridge.registerSync(AppConfig.self) { AppConfig(apiKey: "sync", timeout: 5) }

            let config = DIActorBridge.resolveSync(AppConfig.self)

            #expect(config == AppConfig(apiKey: "sync", timeout: 5))
            #expect(DIActorBridge.resolveSync(DatabaseService.self) == nil)
        }

        @Test("A registration made through the sync bridge is resolved through the actor, and the other way round")
        func syncBridgeAndActorShareRegistrations() async {
            DIActorBridge.registerSync(Service.self) { ServiceImpl() }
            let releaseDatabase = await DIActor.shared.registerSharedActor(DatabaseService.self) { DatabaseService() }

            #expect(await DIActor.shared.resolve(Service.self) is ServiceImpl)
            let fromActor = await DIActor.shared.resolve(DatabaseService.self)
            let fromBridge = DIActorBridge.resolveSync(DatabaseService.self)
            #expect(fromActor != nil && fromActor === fromBridge)

            await releaseDatabase()
            #expect(DIActorBridge.resolveSync(DatabaseService.self) == nil)
        }

        @Test(
            "Threads resolving through the sync bridge and tasks resolving through the actor share one instance",
            .tags(.concurrency)
        )
        func syncBridgeAndActorUnderContention() async {
            await DIActor.shared.registerSharedActor(DatabaseService.self) {
                usleep(2_000)
                return DatabaseService()
            }

            async let fromThreads = Self.onWorkerThreads(count: 500) {
                DIActorBridge.resolveSync(DatabaseService.self).map(ObjectIdentifier.init)
            }
            async let fromTasks = withTaskGroup(of: ObjectIdentifier?.self) { group in
                for _ in 0..<500 {
                    group.addTask { await DIActor.shared.resolve(DatabaseService.self).map(ObjectIdentifier.init) }
                }
                var seen: [ObjectIdentifier?] = []
                for await identity in group {
                    seen.append(identity)
                }
                return seen
            }
            let identities = Set(await fromThreads + fromTasks)

            #expect(identities.count == 1)
            #expect(!identities.contains(nil))
            #expect(Self.transcript.events == ["DatabaseService.init"])
        }

        @Test("Registering through the sync bridge while tasks resolve the type never exposes a half-made registration")
        func syncRegistrationDuringResolves() async {
            DIActorBridge.registerSync(Service.self) { ServiceImpl() }

            async let registrations = Self.onWorkerThreads(count: 300) {
                DIActorBridge.registerSync(Service.self) { ServiceImpl() }
                return DIActorBridge.resolveSync(Service.self) != nil
            }
            async let resolves = withTaskGroup(of: Bool.self) { group in
                for _ in 0..<300 {
                    group.addTask { await DIActor.shared.resolve(Service.self) != nil }
                }
                var all: [Bool] = []
                for await resolved in group {
                    all.append(resolved)
                }
                return all
            }

            #expect(await registrations.allSatisfy { $0 })
            #expect(await resolves.allSatisfy { $0 })
            #expect(await DIActor.shared.registeredCount() == 1)
        }

        @Test("A factory may resolve what it needs through resolveSync")
        func factoryResolvesThroughTheBridge() async {
            let config = AppConfig(apiKey: "nested", timeout: 1)
            await DIActor.shared.register(AppConfig.self, instance: config)
            await DIActor.shared.register(UserService.self) {
                UserServiceImpl(config: DIActorBridge.resolveSync(AppConfig.self))
            }

            let service = await DIActor.shared.resolve(UserService.self) as? UserServiceImpl

            #expect(service?.config == config)
        }

        @Test("A factory that resolves its own type through resolveSync fails with a cycle instead of recursing")
        func factoryResolvingItselfIsACycle() async {
            await DIActor.shared.register(Service.self) {
                _ = DIActorBridge.resolveSync(Service.self)
                return ServiceImpl()
            }
            let key = ServiceKey(serviceType: (any Service).self)

            await #expect(throws: DIError.circularDependency(path: [key, key])) {
                try await DIActor.shared.resolveThrows(Service.self)
            }
            #expect(await DIActor.shared.resolve(Service.self) == nil)
        }

        // MARK: - Memory management

        @Test("Manual release: one type, all types, and through a release handler")
        func manualRelease() async {
            await DIActor.shared.register(UserService.self) { UserServiceImpl() }
            await DIActor.shared.register(AppConfig.self, instance: AppConfig(apiKey: "k", timeout: 1))

            // Release specific type
            await DIActor.shared.release(UserService.self)
            #expect(await DIActor.shared.allRegisteredTypes() == ["AppConfig"])
            // Release all types
            await DIActor.shared.releaseAll()
            #expect(await DIActor.shared.registeredCount() == 0)

            // Using release handler
            let releaseHandler = await DIActor.shared.register(Service.self) {
                ServiceImpl()
            }
            #expect(await DIActor.shared.resolve(Service.self) != nil)
            // Later, when you want to release
            await releaseHandler()
            #expect(await DIActor.shared.resolve(Service.self) == nil)
        }

        // MARK: - Inspection and debugging

        @Test("Print registration status: one line per registration, with its resolution count")
        func printRegistrationStatus() async {
            await DIActor.shared.register(UserService.self) { UserServiceImpl() }
            await DIActor.shared.registerSharedActor(DatabaseService.self) { DatabaseService() }
            _ = await DIActor.shared.resolve(UserService.self)

            await DIActor.shared.printStatus()

            let lines = await DIActor.shared.statusReport().split(separator: "\n")
            #expect(lines.count == 3)
            let userService = lines.first { $0.hasPrefix("• UserService [transient] registered ") }
            let database = lines.first { $0.hasPrefix("• DatabaseService [container] registered ") }
            #expect(userService?.hasSuffix("resolved 1 time") == true)
            #expect(database?.hasSuffix("resolved 0 times, shared") == true)  // marked shared, as in the guide
        }

        @Test("Count registered types: prints the number of registrations")
        func countRegisteredTypes() async {
            await DIActor.shared.register(UserService.self) { UserServiceImpl() }
            await DIActor.shared.register(Service.self) { ServiceImpl() }

            let count = await DIActor.shared.registeredCount()
            print("Total registered types: \(count)")

            #expect(Self.transcript.printed == ["Total registered types: 2"])
        }

        @Test("List all types: prints each registered type's name")
        func listAllTypes() async {
            await DIActor.shared.register(UserService.self) { UserServiceImpl() }
            await DIActor.shared.registerSharedActor(DatabaseService.self) { DatabaseService() }

            let types = await DIActor.shared.allRegisteredTypes()
            print("Registered types:")
            for typeName in types {
                print(" - \(typeName)")
            }

            #expect(Self.transcript.printed == ["Registered types:", " - DatabaseService", " - UserService"])
        }
    }
}

// MARK: - The examples' services

extension ProcessWideContainerTests.DIActorSeedExamplesTests {
    fileprivate protocol ServiceProtocol: Sendable {}

    fileprivate protocol Service: Sendable {}

    fileprivate final class ServiceImpl: ServiceProtocol, Service {}

    fileprivate protocol UserService: Sendable {
        func fetchUsers() async
        func performAction() async
    }

    fileprivate final class UserServiceImpl: UserService {
        let config: AppConfig?

        init(config: AppConfig? = nil) {
            self.config = config
            ProcessWideContainerTests.DIActorSeedExamplesTests.transcript.record("UserServiceImpl.init")
        }

        func fetchUsers() async {
            ProcessWideContainerTests.DIActorSeedExamplesTests.transcript.record("fetchUsers")
        }

        func performAction() async {
            ProcessWideContainerTests.DIActorSeedExamplesTests.transcript.record("performAction")
        }
    }

    fileprivate actor DatabaseService {
        init() {
            ProcessWideContainerTests.DIActorSeedExamplesTests.transcript.record("DatabaseService.init")
        }
    }

    fileprivate struct AppConfig: Sendable, Equatable {
        let apiKey: String
        let timeout: Int
    }

    /// The synchronous API the migration example starts from, standing in for code not migrated
    /// yet: it forwards to the bridge's transitional sync calls.
    fileprivate enum DI {
        static func register<T: Sendable>(_ type: T.Type, factory: @escaping @Sendable () -> T) {
            DIActorBridge.registerSync(type, factory: factory)
        }

        static func resolve<T: Sendable>(_ type: T.Type) -> T? {
            DIActorBridge.resolveSync(type)
        }
    }
}

// MARK: - Recording what the examples do

extension ProcessWideContainerTests.DIActorSeedExamplesTests {
    /// What the examples printed, and what the services were asked to do, for the test running now
    /// (the suite runs one test at a time).
    fileprivate static let transcript = Transcript()

    /// Records a line the example prints, instead of writing it to standard output.
    fileprivate func print(_ line: String) {
        Self.transcript.print(line)
    }

    /// Records an optional the example prints, as the standard `print` would write it.
    fileprivate func print(_ value: String?) {
        Self.transcript.print(String(describing: value))
    }

    /// Runs `body` `count` times on threads outside Swift concurrency, all at once, and returns what
    /// each run returned.
    fileprivate static func onWorkerThreads<Value: Sendable>(
        count: Int,
        _ body: @escaping @Sendable () -> Value
    ) async -> [Value] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let results = Transcript.Collected<Value>()
                DispatchQueue.concurrentPerform(iterations: count) { _ in
                    results.append(body())
                }
                continuation.resume(returning: results.values)
            }
        }
    }

    fileprivate final class Transcript: @unchecked Sendable {
        // @unchecked: `printedLines` and `recordedEvents` are only touched under `lock`.
        private let lock = NSLock()
        private var printedLines: [String] = []
        private var recordedEvents: [String] = []

        var printed: [String] {
            lock.lock()
            defer { lock.unlock() }
            return printedLines
        }

        /// What the services did: initializers run and methods called, in order.
        var events: [String] {
            lock.lock()
            defer { lock.unlock() }
            return recordedEvents
        }

        func print(_ line: String) {
            lock.lock()
            defer { lock.unlock() }
            printedLines.append(line)
        }

        func record(_ event: String) {
            lock.lock()
            defer { lock.unlock() }
            recordedEvents.append(event)
        }

        func clear() {
            lock.lock()
            defer { lock.unlock() }
            printedLines.removeAll()
            recordedEvents.removeAll()
        }

        /// Values appended from many threads.
        final class Collected<Value>: @unchecked Sendable {
            // @unchecked: `storage` is only touched under `lock`.
            private let lock = NSLock()
            private var storage: [Value] = []

            func append(_ value: Value) {
                lock.lock()
                defer { lock.unlock() }
                storage.append(value)
            }

            var values: [Value] {
                lock.lock()
                defer { lock.unlock() }
                return storage
            }
        }
    }
}
