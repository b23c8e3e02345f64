public import Foundation
import Synchronization

// The long-lived services: one instance each for the whole app, held by the app container.

/// Tells the time. The app's orders are stamped with it; a test can register a fixed one instead.
public protocol ServerClock: Sendable {
    /// The current time.
    func now() -> Date
}

/// The clock of the system.
public struct SystemClock: ServerClock {
    /// Creates the clock.
    public init() {}

    /// The current time, `Date()`.
    public func now() -> Date {
        Date()
    }
}

/// An order as the store keeps it.
public struct Order: Sendable, Equatable {
    /// What was ordered.
    public let item: String
    /// The request that placed the order.
    public let requestID: String
    /// When the order was committed.
    public let placedAt: Date

    /// Creates an order.
    public init(item: String, requestID: String, placedAt: Date) {
        self.item = item
        self.requestID = requestID
        self.placedAt = placedAt
    }
}

/// Why the order store refused a commit.
public enum OrderStoreError: Error, Equatable {
    /// The store was closed: the app is shutting down.
    case closed
}

/// The app's recent orders, in memory: one store for every request, guarded by a lock. It keeps the last
/// ``capacity`` orders and the commit counts of the last ``capacity`` requests that committed, in storage
/// reserved when it is made, so that a long-running server neither grows nor pauses to resize; it counts
/// every order and commit all the same.
public final class OrderStore: Sendable {
    private struct State {
        var orders: RecentElements<Order>
        var commitsByRequest: RecentDictionary<String, Int>
        var commitCount = 0
        var isClosed = false
    }

    /// How many orders, and how many requests' commit counts, the store keeps.
    public let capacity: Int
    private let state: Locked<State>

    /// Creates an empty, open store.
    ///
    /// - Parameter capacity: How many of the latest orders (and requests) to keep; 1,000 by default.
    public init(capacity: Int = 1_000) {
        self.capacity = capacity
        state = Locked(State(orders: .init(capacity: capacity), commitsByRequest: .init(capacity: capacity)))
    }

    /// Adds `orders` in one step, and counts one commit for `requestID`.
    ///
    /// - Throws: ``OrderStoreError/closed`` once ``close()`` was called.
    public func commit(_ orders: [Order], for requestID: String) throws(OrderStoreError) {
        try state.withLock { (state) throws(OrderStoreError) in
            guard !state.isClosed else { throw .closed }
            state.orders.append(contentsOf: orders)
            state.commitsByRequest.update(requestID, default: 0) { $0 += 1 }
            state.commitCount += 1
        }
    }

    /// The last ``capacity`` orders committed, in commit order.
    public var orders: [Order] {
        state.withLock { $0.orders.elements }
    }

    /// How many orders were ever committed, the ones no longer kept included.
    public var committedOrderCount: Int {
        state.withLock { $0.orders.appendedCount }
    }

    /// How many times each of the last ``capacity`` requests to commit did so.
    public var commitsByRequest: [String: Int] {
        state.withLock { $0.commitsByRequest.dictionary }
    }

    /// How many commits there were, of every request.
    public var commitCount: Int {
        state.withLock { $0.commitCount }
    }

    /// Whether ``close()`` was called.
    public var isClosed: Bool {
        state.withLock { $0.isClosed }
    }

    /// Refuses further commits; the app container calls it when it is disposed of.
    public func close() {
        state.withLock { $0.isClosed = true }
    }
}

/// Counters the server keeps about itself.
public final class Metrics: Sendable {
    private let opened = Atomic<Int>(0)
    private let closed = Atomic<Int>(0)
    private let failed = Atomic<Int>(0)

    /// Creates zeroed counters.
    public init() {}

    /// How many request scopes were opened.
    public var scopesOpened: Int {
        opened.load(ordering: .relaxed)
    }

    /// How many request scopes were ended (disposed of).
    public var scopesEnded: Int {
        closed.load(ordering: .relaxed)
    }

    /// How many requests failed, their unit of work rolled back.
    public var requestsFailed: Int {
        failed.load(ordering: .relaxed)
    }

    /// How many request scopes are open right now.
    public var openScopes: Int {
        scopesOpened - scopesEnded
    }

    func scopeOpened() {
        opened.add(1, ordering: .relaxed)
    }

    func scopeEnded() {
        closed.add(1, ordering: .relaxed)
    }

    func requestFailed() {
        failed.add(1, ordering: .relaxed)
    }
}

/// Hands out request ids, `req-1`, `req-2`, ...
public final class RequestIDGenerator: Sendable {
    private let last = Atomic<UInt64>(0)

    /// Creates a generator whose first id is `req-1`.
    public init() {}

    /// The next id, never handed out before.
    public func next() -> String {
        "req-\(last.add(1, ordering: .relaxed).newValue)"
    }
}

/// The server's log: each request's lines arrive in one batch when the request's logger is disposed of.
/// It keeps the last ``capacity`` lines.
public actor AccessLog {
    private var recent: RecentElements<String>
    private let echo: Bool

    /// Creates a log.
    ///
    /// - Parameters:
    ///   - capacity: How many of the latest lines to keep; 1,000 by default.
    ///   - echo: Whether to print each line to standard output too.
    public init(capacity: Int = 1_000, echo: Bool = false) {
        recent = RecentElements(capacity: capacity)
        self.echo = echo
    }

    /// The last lines written, oldest first.
    public var lines: [String] {
        recent.elements
    }

    /// How many lines were ever written, the ones no longer kept included.
    public var linesWritten: Int {
        recent.appendedCount
    }

    /// Adds one request's lines, in order.
    public func write(_ batch: [String]) {
        recent.append(contentsOf: batch)
        if echo {
            for line in batch {
                print(line)
            }
        }
    }
}
