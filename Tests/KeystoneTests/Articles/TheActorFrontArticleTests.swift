// swift-format-ignore-file
// (The samples here mirror the articles' text line for line: see ArticleSamplesTests.)
import Keystone
import Testing

// The samples of TheActorFront.md, verbatim, each followed by the facts the article states about it.
// Every sample but the bridge's uses a `DIActor()` of its own. The bridge always works on
// `DIActor.shared`, which fronts the process-wide default container and which the suite
// `DIActorSeedExamplesTests` empties before each of its tests and counts exactly. So the bridge's sample
// joins that suite (it is `.serialized`, nested in the serialized `ProcessWideContainerTests`, and its
// `init` empties `DIActor.shared` first), in an extension at the end of this file, and never runs beside
// another test that uses the shared actor or the default container.

@Suite("Article: The Actor Front", .hangLimit)
struct TheActorFrontArticleTests {
    @Test("The three ways to register, the lifetimes they give, and the inspection calls")
    func registerAndResolve() async throws {
        let dependencies = DIActor()
        await dependencies.register(Clock.self) { SystemClock() }
        await dependencies.register(ServerConfig.self, instance: ServerConfig(host: "example.com", port: 443))
        await dependencies.registerSharedActor(Database.self) { Database() }

        let clock = await dependencies.resolve(Clock.self)            // a new SystemClock
        let config = try await dependencies.resolveThrows(ServerConfig.self)
        let database = await dependencies.resolve(Database.self)      // created now, then shared

        let count = await dependencies.registeredCount()
        let types = await dependencies.allRegisteredTypes()   // sorted: ["Clock", "Database", "ServerConfig"]
        let report = await dependencies.statusReport()

        #expect(clock is SystemClock)
        #expect((await dependencies.resolve(Clock.self) as? SystemClock) !== (clock as? SystemClock))
        #expect(config == ServerConfig(host: "example.com", port: 443))
        #expect(database != nil)
        #expect(await dependencies.resolve(Database.self) === database)
        #expect(count == 3)
        #expect(types == ["Clock", "Database", "ServerConfig"])
        let lines = report.split(separator: "\n")
        #expect(lines.first == "Container with 3 registrations:")
        #expect(lines.contains { $0.hasPrefix("• Clock [transient] registered ") })
        #expect(lines.contains { $0.hasPrefix("• Database [container] registered ") && $0.hasSuffix(", instance held") })
        #expect(lines.contains { $0.hasPrefix("• ServerConfig [container] registered ") })

        let problems = await dependencies.verify()            // [] when every registration resolves
        let graph = await dependencies.dependencyGraph()      // graph.mermaid, graph.dot

        #expect(problems == [])
        #expect(graph.nodes.map(\.key.serviceType).contains { $0 == Database.self })
        #expect(graph.mermaid.hasPrefix("graph TD") && graph.dot.hasPrefix("digraph"))
    }

    @Test("A shared registration's factory runs once, however many tasks resolve at the same moment")
    func sharedFactoryRunsOnce() async {
        let dependencies = DIActor()
        let made = Counter()
        await dependencies.registerSharedActor(Database.self) {
            made.increment()
            return Database()
        }
        let identities = await withTaskGroup(of: ObjectIdentifier?.self) { group in
            for _ in 0..<100 {
                group.addTask { await dependencies.resolve(Database.self).map(ObjectIdentifier.init) }
            }
            return await group.reduce(into: Set<ObjectIdentifier?>()) { $0.insert($1) }
        }
        #expect(identities.count == 1)
        #expect(!identities.contains(nil))
        #expect(made.count == 1)
    }

    @Test("resolveThrows names the missing type")
    func handleFailures() async {
        let dependencies = DIActor()
        do {
            let database = try await dependencies.resolveThrows(Database.self)
            await database.open()
        } catch {
            // DIError.notRegistered: nothing is registered for Database
        }

        let missing = DIError.notRegistered(key: ServiceKey(serviceType: Database.self), path: [], candidates: [])
        await #expect(throws: missing) { try await dependencies.resolveThrows(Database.self) }
        #expect(await dependencies.resolveResult(Database.self).failure == missing)
        #expect(await dependencies.resolve(Database.self) == nil)
    }

    @Test("A release handler removes only its own registration, and a shared one with its instance")
    func releaseHandlers() async {
        let dependencies = DIActor()
        let releaseSystemClock = await dependencies.register(Clock.self) { SystemClock() }
        await dependencies.register(Clock.self) { FixedClock() }   // replaces the SystemClock registration

        await releaseSystemClock()                                 // does nothing: it was replaced
        let clock = await dependencies.resolve(Clock.self)         // a FixedClock

        let releaseDatabase = await dependencies.registerSharedActor(Database.self) { Database() }
        let database = await dependencies.resolve(Database.self)
        await releaseDatabase()
        let afterRelease = await dependencies.resolve(Database.self) // nil

        #expect(clock is FixedClock)
        #expect(database != nil)
        #expect(afterRelease == nil)
        await releaseDatabase()
        #expect(await dependencies.registeredCount() == 1, "calling a handler twice is harmless")
        await dependencies.release(Clock.self)
        #expect(await dependencies.resolve(Clock.self) == nil)
        #expect(await dependencies.registeredCount() == 0)

        await dependencies.register(Clock.self) { SystemClock() }
        await dependencies.registerSharedActor(Database.self) { Database() }
        await dependencies.releaseAll()
        #expect(await dependencies.registeredCount() == 0)
    }

    @Test("Registering a shared type again drops the instance of the earlier registration")
    func registeringAgainDropsTheInstance() async {
        let dependencies = DIActor()
        await dependencies.registerSharedActor(Database.self) { Database() }
        let old = await dependencies.resolve(Database.self)
        await dependencies.registerSharedActor(Database.self) { Database() }
        let new = await dependencies.resolve(Database.self)
        #expect(old != nil)
        #expect(new != nil)
        #expect(old !== new)
    }

    @Test("Inside withCurrent, DIActor.shared registers into and clears the bound container only")
    func sharedActorInsideWithCurrent() async {
        await Container.withCurrent(Container()) {
            await DIActor.shared.register(Clock.self) { FixedClock() }
            #expect(DIActorBridge.resolveSync(Clock.self) is FixedClock)   // this test's registration
            await DIActor.shared.releaseAll()                              // clears this test's container only
        }
    }
}

extension TheActorFrontArticleTests {
    protocol Clock: Sendable {}

    final class SystemClock: Clock {}

    final class FixedClock: Clock {}

    struct ServerConfig: Sendable, Equatable {
        var host: String
        var port: Int
    }

    actor Database {
        private(set) var isOpen = false
        func open() { isOpen = true }
    }
}

// MARK: - The bridge, on DIActor.shared

extension ProcessWideContainerTests.DIActorSeedExamplesTests {
    @Test("Article The Actor Front: the bridge's sync calls and the actor see one registration")
    func theActorFrontArticleBridgeSample() async {
        // Synchronous code, on any thread:
        DIActorBridge.registerSync(LegacyFormatter.self) { LegacyFormatter() }
        let formatter = DIActorBridge.resolveSync(LegacyFormatter.self)

        // Code that can await sees the same registration:
        let fromActor = await DIActor.shared.resolve(LegacyFormatter.self)

        #expect(formatter != nil)
        #expect(fromActor != nil)
        #expect(formatter !== fromActor, "registerSync makes a new instance on every resolve")
        await DIActor.shared.release(LegacyFormatter.self)
        #expect(DIActorBridge.resolveSync(LegacyFormatter.self) == nil)
    }

    fileprivate final class LegacyFormatter: Sendable {}
}
