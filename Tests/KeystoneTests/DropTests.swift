import Foundation
import Keystone
import Testing

// What a container drops is disposed (API §10): resetObjectScope, re-registration, removal and
// removeAll run the synchronous disposal handlers of the instances they drop, newest completion first,
// once the call has left the lock; a handler's error goes to the log handler. And a container ends only
// its own instances: a key forwarded to a parent's registration does not make the parent's instance the
// child's.

private final class Connection {
    let name: String
    var closed = false
    init(name: String) { self.name = name }
}

private final class Repository {
    let connection: Connection
    init(connection: Connection) { self.connection = connection }
}

private struct CloseFailed: Error {}

/// A `.container` Connection and a Repository made from it, each logging its disposal.
private func registerConnectionAndRepository(in container: Container, events: EventLog) {
    container.register(Connection.self) { _ in Connection(name: "db") }
        .inObjectScope(.container)
        .onDispose { connection in
            connection.closed = true
            events.record("close \(connection.name)")
        }
    container.register(Repository.self) { r in Repository(connection: try r.resolveThrows(Connection.self)) }
        .inObjectScope(.container)
        .onDispose { _ in events.record("release repository") }
}

@Suite("What a container drops is disposed")
struct DropTests {
    @Test("resetObjectScope runs the handlers of the instances it drops, dependents first")
    func resetDisposes() throws {
        let container = Container()
        let events = EventLog()
        registerConnectionAndRepository(in: container, events: events)
        let repository = try container.resolveThrows(Repository.self)
        container.resetObjectScope(.container)
        #expect(events.all == ["release repository", "close db"])
        #expect(repository.connection.closed)
        // Dropped: the next resolve makes new instances, and a second reset disposes only those.
        let next = try container.resolveThrows(Repository.self)
        #expect(next !== repository)
        container.resetObjectScope(.container, serviceType: Connection.self)
        #expect(events.all == ["release repository", "close db", "close db"])
    }

    @Test("Re-registering a service disposes the instance its old registration held")
    func reRegistrationDisposes() throws {
        let container = Container()
        let events = EventLog()
        registerConnectionAndRepository(in: container, events: events)
        let old = try container.resolveThrows(Connection.self)
        container.register(Connection.self) { _ in Connection(name: "replica") }.inObjectScope(.container)
        #expect(events.all == ["close db"])
        #expect(old.closed)
        #expect(try container.resolveThrows(Connection.self).name == "replica")
    }

    @Test("removeAll disposes every instance it drops, newest completion first")
    func removeAllDisposes() throws {
        let container = Container()
        let events = EventLog()
        registerConnectionAndRepository(in: container, events: events)
        _ = try container.resolveThrows(Repository.self)
        container.removeAll()
        #expect(events.all == ["release repository", "close db"])
        #expect(container.registeredCount() == 0)
    }

    @Test("A handler that throws while a reset drops its instance is reported to the log handler", .swapsLogHandler)
    func droppedHandlerErrorsAreLogged() throws {
        let logged = LoggedErrors()
        let previous = Container.logHandler
        Container.logHandler = { error in
            if case .disposalFailed(let failures) = error, failures.contains(where: isConnectionFailure) {
                logged.append(error)
            }
            previous?(error)
        }
        defer { Container.logHandler = previous }
        let container = Container()
        container.register(Connection.self) { _ in Connection(name: "db") }
            .inObjectScope(.container)
            .onDispose { _ in throw CloseFailed() }
        _ = try container.resolveThrows(Connection.self)
        container.resetObjectScope(.container)
        let errors = logged.all
        #expect(errors.count == 1)
        guard case .disposalFailed(let failures) = errors.first,
            case .factoryFailed(let key, _, let underlying) = failures.first
        else {
            Issue.record("expected one disposalFailed with the handler's error, got \(errors)")
            return
        }
        #expect(key == ServiceKey(serviceType: Connection.self))
        #expect(underlying is CloseFailed)
    }

    @Test("A reset of a scope without disposal handlers drops instances as before")
    func resetWithoutHandlers() throws {
        let container = Container()
        container.register(Connection.self) { _ in Connection(name: "db") }.inObjectScope(.container)
        let first = try container.resolveThrows(Connection.self)
        container.resetObjectScope(.container)
        #expect(try container.resolveThrows(Connection.self) !== first)
    }
}

@Suite("A container ends only its own instances")
struct OwnInstancesTests {
    @Test("A child's dispose leaves alone the parent's singleton it forwards a type to; the parent's disposes it once")
    func childDisposeLeavesTheParentsForwardedSingleton() throws {
        let parent = Container()
        let events = EventLog()
        let connection = parent.register(Connection.self) { _ in Connection(name: "db") }
            .inObjectScope(.container)
            .onDispose { connection in events.record("close \(connection.name)") }
        let child = Container(parent: parent)
        child.forward(AnyObject.self, to: connection)
        let throughChild = try child.resolveThrows(AnyObject.self)
        try child.dispose()
        #expect(events.all.isEmpty, "the child holds no instance of its own")
        #expect(
            try parent.resolveThrows(Connection.self) === throughChild as? Connection,
            "the parent kept its instance"
        )
        try parent.dispose()
        #expect(events.all == ["close db"])
    }

    @Test("A child's removeAll and re-registration leave the parent's forwarded singleton alone")
    func childRemovalLeavesTheParentsForwardedSingleton() throws {
        let parent = Container()
        let events = EventLog()
        let connection = parent.register(Connection.self) { _ in Connection(name: "db") }
            .inObjectScope(.container)
            .onDispose { connection in events.record("close \(connection.name)") }
        let child = Container(parent: parent)
        child.forward(AnyObject.self, to: connection)
        let first = try parent.resolveThrows(Connection.self)
        child.register(AnyObject.self) { _ in Connection(name: "other") }
        child.removeAll()
        #expect(events.all.isEmpty)
        #expect(try parent.resolveThrows(Connection.self) === first)
    }
}

@Suite("Multiton back-references")
struct MultitonBackReferenceTests {
    final class Account {
        let id: Int
        var ledger: Ledger?
        init(id: Int) { self.id = id }
    }

    final class Ledger {
        weak var account: Account?
        init(account: Account?) { self.account = account }
    }

    @Test("A .multiton instance's initCompleted may resolve a dependent that resolves it back, as with .container")
    func initCompletedBackReference() throws {
        let container = Container()
        let made = Counter()
        container.register(Account.self) { (_, id: Int) in
            made.increment()
            return Account(id: id)
        }
        .inObjectScope(.multiton)
        .initCompleted { r, account in account.ledger = r.resolve(Ledger.self, argument: account.id) }
        container.register(Ledger.self) { (r, id: Int) in Ledger(account: r.resolve(Account.self, argument: id)) }
        let account = try container.resolveThrows(Account.self, argument: 7)
        #expect(account.ledger?.account === account)
        #expect(try container.resolveThrows(Account.self, argument: 7) === account)
        #expect(made.count == 1)
    }

    @Test("A .multiton instance whose initCompleted fails is dropped, and the other arguments' instances stay")
    func failedCompletionDropsOnlyItsArguments() throws {
        let container = Container()
        let made = Counter()
        let failOnce = Counter()
        container.register(Account.self) { (_, id: Int) in
            made.increment()
            return Account(id: id)
        }
        .inObjectScope(.multiton)
        .initCompleted { _, account in
            if account.id == 2, failOnce.count == 0 {
                failOnce.increment()
                throw CloseFailed()
            }
        }
        let one = try container.resolveThrows(Account.self, argument: 1)
        #expect(throws: DIError.self) { try container.resolveThrows(Account.self, argument: 2) }
        #expect(try container.resolveThrows(Account.self, argument: 1) === one, "the instance for 1 stayed")
        let two = try container.resolveThrows(Account.self, argument: 2)
        #expect(two.id == 2)
        #expect(made.count == 3, "1 once, 2 twice: the failed instance was not kept")
    }
}

/// Whether `error` is a disposal handler's failure for `Connection`.
private func isConnectionFailure(_ error: DIError) -> Bool {
    if case .factoryFailed(let key, _, _) = error {
        return key.serviceType == Connection.self
    }
    return false
}
