// swift-format-ignore-file
// (The samples here mirror the articles' text line for line: see ArticleSamplesTests.)
import Foundation
import Keystone
import Testing

// The samples of AsyncAndMainActorServices.md, verbatim, each followed by the facts the article states
// about it. The article's own types are nested in the suite below.

@Suite("Article: Async and Main-Actor Services", .hangLimit)
struct AsyncAndMainActorServicesArticleTests {
    final class Database: Sendable {
        /// How many times "app.sqlite" was opened (the other test opens another file, in parallel).
        static let opened = Counter()
        let path: String
        private init(path: String) { self.path = path }
        static func open(path: String) async throws -> Database {
            if path == "app.sqlite" { opened.increment() }
            try await Task.sleep(nanoseconds: 2_000_000)
            return Database(path: path)
        }
    }
    protocol Clock: Sendable {}
    struct SystemClock: Clock {}
    final class Session: Sendable {
        let database: Database
        let clock: any Clock
        init(database: Database, clock: any Clock) {
            self.database = database
            self.clock = clock
        }
    }
    struct Profile: Sendable {
        let userID: Int
        static func load(userID: Int) async throws -> Profile { Profile(userID: userID) }
    }
    final class Repository: Sendable {
        let database: Database
        init(database: Database) { self.database = database }
    }
    @MainActor final class SettingsModel {
        let clock: any Clock
        init(clock: any Clock) { self.clock = clock }
    }
    protocol UserService: Sendable {}
    struct UserServiceImpl: UserService {}

    @Test("Async factories, one creation for a hundred tasks, warm-up, main-actor factories")
    func theWholeArticle() async throws {
        let before = Database.opened.count

        let container = Container()
        container.registerAsync(Database.self) { _ in
            try await Database.open(path: "app.sqlite")
        }
        .inObjectScope(.container)
        container.register(Clock.self) { _ in SystemClock() }
        container.registerAsync(Session.self) { r in
            Session(database: try await r.resolveAsync(Database.self), clock: try r.resolveThrows(Clock.self))
        }

        let session = try await container.resolveAsync(Session.self)
        #expect(session.database.path == "app.sqlite")

        container.registerAsync(Profile.self) { (_, userID: Int) in
            try await Profile.load(userID: userID)
        }
        let profile = try await container.resolveAsync(Profile.self, argument: 42)
        #expect(profile.userID == 42)

        let resolver = container.synchronize()
        let databases = try await withThrowingTaskGroup(of: Database.self) { group in
            for _ in 0..<100 {
                group.addTask { try await resolver.resolveAsync(Database.self) }
            }
            return try await group.reduce(into: [Database]()) { $0.append($1) }
        }
        // one Database, opened once, shared by the hundred tasks
        #expect(databases.count == 100)
        #expect(databases.allSatisfy { $0 === session.database })
        #expect(Database.opened.count - before == 1)

        container.register(Repository.self) { r in
            Repository(database: try r.resolveThrows(Database.self))
        }
        .inObjectScope(.container)

        try await container.warmUp()
        let repository = try container.resolveThrows(Repository.self)  // finds the Database made by warmUp()
        #expect(repository.database === session.database)

        container.register(SettingsModel.self, mainActorFactory: { r in
            SettingsModel(clock: r.resolve(Clock.self)!)
        })

        let model = try await Task.detached {
            try await resolver.resolveAsync(SettingsModel.self)  // the factory runs on the main actor
        }.value
        #expect(model.clock is SystemClock)
        await #expect(throws: DIError.mainActorRequired(key: ServiceKey(serviceType: SettingsModel.self), path: [])) {
            try await Task.detached { try resolver.resolveThrows(SettingsModel.self) }.value
        }
    }

    @Test("A fresh warm-up with a synchronous factory that needs the async one")
    func warmUpCreatesTheAsyncOneFirst() async throws {
        let container = Container()
        container.register(Repository.self) { r in
            Repository(database: try r.resolveThrows(Database.self))
        }
        .inObjectScope(.container)
        container.registerAsync(Database.self) { _ in try await Database.open(path: "warm.sqlite") }
            .inObjectScope(.container)
        #expect(container.resolve(Repository.self) == nil)
        try await container.warmUp()
        #expect(container.resolve(Repository.self)?.database.path == "warm.sqlite")
    }

    @Test("Bootstrap configures the container DIActor.shared fronts")
    func bootstrap() async {
        await Container.bootstrap { container in
            container.register(UserService.self) { UserServiceImpl() }
        }
        let service = await DIActor.shared.resolve(UserService.self)
        #expect(service is UserServiceImpl)
    }

    @Test("Bootstrap configures the container bound with withCurrent")
    func bootstrapInsideWithCurrent() async {
        let container = Container()
        await Container.withCurrent(container) {
            await Container.bootstrap { container in
                container.register(UserService.self) { UserServiceImpl() }
            }
            #expect(await DIActor.shared.resolve(UserService.self) is UserServiceImpl)
        }
        #expect(container.synchronize().resolve(UserService.self) is UserServiceImpl)
    }
}

extension AsyncAndMainActorServicesArticleTests {
    /// The article's check of a graph with main-actor services, from a `@MainActor` test.
    @Suite("Article: Async and Main-Actor Services, verify() on the main actor")
    struct MainActorVerification {
        let container = Self.settingsContainer()

        static func settingsContainer() -> Container {
            let container = Container()
            container.register(Clock.self) { _ in SystemClock() }
            container.register(SettingsModel.self, mainActorFactory: { r in
                SettingsModel(clock: r.resolve(Clock.self)!)
            })
            return container
        }

        @Test @MainActor func theSettingsScreenResolves() {
            #expect(container.verify() == [])   // runs SettingsModel's factory too
        }
    }
}
