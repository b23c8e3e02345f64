// swift-format-ignore-file
// (The samples here mirror the articles' text line for line: see ArticleSamplesTests.)
import Foundation
import Keystone
import Testing

// The samples of DisposalAndCollections.md, verbatim, each followed by the facts the article states about it. The
// article's own types are nested in the suite below, and record what happens to them in `events`.

@Suite("Article: Lifetimes")
struct LifetimesArticleTests {
    final class Events: @unchecked Sendable {
        // @unchecked: `list` is used only under `lock`.
        private let lock = NSLock()
        private var list: [String] = []
        func record(_ event: String) {
            lock.lock()
            list.append(event)
            lock.unlock()
        }
        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return list
        }
    }

    final class Database {
        let events: Events
        init(events: Events = LifetimesArticleTests.events) { self.events = events }
        func close() { events.record("database closed") }
    }
    final class Repository {
        let database: Database
        init(database: Database) { self.database = database }
        func flush() { database.events.record("repository flushed") }
    }
    final class Cart {
        private(set) var items: [String] = []
        func add(_ item: String) { items.append(item) }
        func save() { LifetimesArticleTests.events.record("cart saved: \(items)") }
    }
    final class ChatRoom {
        let name: String
        init(name: String) { self.name = name }
    }
    protocol AnalyticsSink: AnyObject {}
    final class ConsoleSink: AnalyticsSink {}
    final class FileSink: AnalyticsSink {}

    /// One log per test run; each test checks the events it adds after what was there.
    static let events = Events()

    @Test("Disposal handlers, a session as a child container, multiton and resolveAll")
    func theWholeArticle() throws {
        let before = Self.events.all.count
        func newEvents() -> [String] { Array(Self.events.all.dropFirst(before)) }

        let app = Container()
        app.register(Database.self) { _ in Database() }
            .inObjectScope(.container)
            .onDispose { database in database.close() }
        app.register(Repository.self) { r in Repository(database: try r.resolveThrows(Database.self)) }
            .inObjectScope(.container)
            .onDispose { repository in repository.flush() }

        _ = try app.resolveThrows(Repository.self)
        try app.dispose()  // flushes the repository, then closes the database
        #expect(newEvents() == ["repository flushed", "database closed"])

        let database = try app.resolveThrows(Database.self)
        let session = Container(parent: app)
        session.register(Cart.self) { _ in Cart() }
            .inObjectScope(.container)
            .onDispose { cart in cart.save() }

        let cart = try session.resolveThrows(Cart.self)
        cart.add("book")
        try session.dispose()  // the cart is saved; the app's database stays open
        #expect(newEvents() == ["repository flushed", "database closed", "cart saved: [\"book\"]"])
        #expect(try app.resolveThrows(Database.self) === database)

        app.register(ChatRoom.self) { _, name in ChatRoom(name: name) }
            .inObjectScope(.multiton)

        let general = app.resolve(ChatRoom.self, argument: "general")
        let again = app.resolve(ChatRoom.self, argument: "general")   // the same room
        let random = app.resolve(ChatRoom.self, argument: "random")   // another room
        #expect(general != nil && general === again)
        #expect(random?.name == "random" && random !== general)

        app.register(AnalyticsSink.self, name: "console") { _ in ConsoleSink() }
        app.register(AnalyticsSink.self, name: "file") { _ in FileSink() }
        let sinks = app.resolveAll(AnalyticsSink.self)  // [ConsoleSink, FileSink]
        #expect(sinks.count == 2)
        #expect(sinks[0] is ConsoleSink && sinks[1] is FileSink)
    }
}
