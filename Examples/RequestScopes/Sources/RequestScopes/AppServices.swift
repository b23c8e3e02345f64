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

/// The app's orders, in memory: one store for every request, guarded by a lock.
public final class OrderStore: Sendable {
    private struct State {
        var orders: [Order] = []
        var commitsByRequest: [String: Int] = [:]
        var isClosed = false
    }

    private let state = Locked(State())

    /// Creates an empty, open store.
    public init() {}

    /// Adds `orders` in one step, and counts one commit for `requestID`.
    ///
    /// - Throws: ``OrderStoreError/closed`` once ``close()`` was called.
    public func commit(_ orders: [Order], for requestID: String) throws(OrderStoreError) {
        try state.withLock { (state) throws(OrderStoreError) in
            guard !state.isClosed else { throw .closed }
            state.orders += orders
            state.commitsByRequest[requestID, default: 0] += 1
        }
    }

    /// Every order committed so far, in commit order.
    public var orders: [Order] {
        state.withLock { $0.orders }
    }

    /// How many times each request committed.
    public var commitsByRequest: [String: Int] {
        state.withLock { $0.commitsByRequest }
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
public actor AccessLog {
    /// Every line written so far.
    public private(set) var lines: [String] = []
    private let echo: Bool

    /// Creates a log.
    ///
    /// - Parameter echo: Whether to print each line to standard output too.
    public init(echo: Bool = false) {
        self.echo = echo
    }

    /// Adds one request's lines, in order.
    public func write(_ batch: [String]) {
        lines += batch
        if echo {
            for line in batch {
                print(line)
            }
        }
    }
}
