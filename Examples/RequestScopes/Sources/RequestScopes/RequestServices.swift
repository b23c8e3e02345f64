import Synchronization

// The request-scoped services: one instance each per request, held by the request's child container and
// disposed of with it. Each counts itself in the app's `LifetimeLedger` while it is alive.

/// Keeps count of the request-scoped objects alive and of the disposal handlers run for each request, so
/// that a test (or an operator) can see that every request scope ended, and ended once. It keeps the
/// disposals of the last ``capacity`` requests and counts all of them.
public final class LifetimeLedger: Sendable {
    /// A kind of request-scoped service.
    public enum Service: String, Sendable, CaseIterable {
        /// ``RequestID``.
        case requestID
        /// ``RequestLogger``.
        case logger
        /// ``UnitOfWork``.
        case unitOfWork
    }

    private struct Disposals {
        var byRequest: RecentDictionary<String, [Service]>
        var counts: [Service: Int] = [:]
    }

    /// How many requests' disposals the ledger keeps.
    public let capacity: Int
    private let live = Atomic<Int>(0)
    private let created = Atomic<Int>(0)
    private let disposals: Locked<Disposals>

    /// Creates an empty ledger.
    ///
    /// - Parameter capacity: How many of the latest requests' disposals to keep; 1,000 by default.
    public init(capacity: Int = 1_000) {
        self.capacity = capacity
        disposals = Locked(Disposals(byRequest: .init(capacity: capacity)))
    }

    /// How many request-scoped objects are alive right now.
    public var liveObjects: Int {
        live.load(ordering: .relaxed)
    }

    /// How many request-scoped objects were ever created.
    public var createdObjects: Int {
        created.load(ordering: .relaxed)
    }

    /// The services disposed of for each of the last ``capacity`` requests, in the order their handlers ran.
    public var disposalsByRequest: [String: [Service]] {
        disposals.withLock { $0.byRequest.dictionary }
    }

    /// The services disposed of for `requestID`, in the order their handlers ran; empty if the request is
    /// not one of the last ``capacity``.
    public func disposals(of requestID: String) -> [Service] {
        disposals.withLock { $0.byRequest[requestID] ?? [] }
    }

    /// How many times each kind of service was disposed of, in every request.
    public var disposalCounts: [Service: Int] {
        disposals.withLock { $0.counts }
    }

    func objectCreated() {
        live.add(1, ordering: .relaxed)
        created.add(1, ordering: .relaxed)
    }

    func objectDestroyed() {
        live.subtract(1, ordering: .relaxed)
    }

    func disposed(_ service: Service, of requestID: String) {
        disposals.withLock { disposals in
            disposals.byRequest.update(requestID, default: []) { $0.append(service) }
            disposals.counts[service, default: 0] += 1
        }
    }
}

/// The id of the request being served.
public final class RequestID: Sendable, CustomStringConvertible {
    /// The id, unique in the app: `req-1`, `req-2`, ...
    public let value: String
    let ledger: LifetimeLedger

    init(value: String, ledger: LifetimeLedger) {
        self.value = value
        self.ledger = ledger
        ledger.objectCreated()
    }

    deinit {
        ledger.objectDestroyed()
    }

    /// The id.
    public var description: String {
        value
    }
}

/// Collects the request's log lines, each tagged with its id, and hands them to the app's ``AccessLog``
/// in one batch when the request scope ends.
public final class RequestLogger: Sendable {
    /// The request the lines belong to.
    public let requestID: RequestID
    private let accessLog: AccessLog
    private let lines = Locked<[String]>([])

    init(requestID: RequestID, accessLog: AccessLog) {
        self.requestID = requestID
        self.accessLog = accessLog
        requestID.ledger.objectCreated()
    }

    deinit {
        requestID.ledger.objectDestroyed()
    }

    /// Adds a line, tagged with the request id.
    public func log(_ message: String) {
        lines.withLock { $0.append("[\(requestID.value)] \(message)") }
    }

    /// Hands the lines written so far to the access log, in one batch.
    func flush() async {
        let batch = lines.withLock { lines in
            defer { lines = [] }
            return lines
        }
        await accessLog.write(batch)
    }
}

/// Why a unit of work refused an order.
public enum UnitOfWorkError: Error, Equatable {
    /// One request may stage at most ``UnitOfWork/maximumOrders`` orders.
    case tooManyOrders(limit: Int)
}

/// The orders one request places. Nothing reaches the ``OrderStore`` until the request scope ends: then
/// the staged orders are committed in one step if the request succeeded, and dropped if it failed.
public final class UnitOfWork: Sendable {
    /// The most orders one request may stage.
    public static let maximumOrders = 5

    /// How a unit of work ended.
    public enum Ending: Sendable, Equatable {
        /// Its orders were committed.
        case committed(orders: Int)
        /// Its orders were dropped.
        case rolledBack(orders: Int)
    }

    /// The request the orders belong to.
    public let requestID: RequestID
    private let store: OrderStore
    private let logger: RequestLogger
    private let clock: any ServerClock
    private let state = Locked<(staged: [String], ending: Ending?)>(([], nil))

    init(requestID: RequestID, store: OrderStore, logger: RequestLogger, clock: any ServerClock) {
        self.requestID = requestID
        self.store = store
        self.logger = logger
        self.clock = clock
        requestID.ledger.objectCreated()
    }

    deinit {
        requestID.ledger.objectDestroyed()
    }

    /// The items staged so far.
    public var staged: [String] {
        state.withLock { $0.staged }
    }

    /// How the unit of work ended, or `nil` while the request runs.
    public var ending: Ending? {
        state.withLock { $0.ending }
    }

    /// Stages an order for `item`.
    ///
    /// - Throws: ``UnitOfWorkError/tooManyOrders(limit:)`` if the request already staged
    ///   ``maximumOrders`` orders.
    public func stage(_ item: String) throws(UnitOfWorkError) {
        try state.withLock { (state) throws(UnitOfWorkError) in
            guard state.staged.count < Self.maximumOrders else {
                throw .tooManyOrders(limit: Self.maximumOrders)
            }
            state.staged.append(item)
        }
        logger.log("staged \(item)")
    }

    /// Commits the staged orders to the store, in one step.
    func commit() throws(OrderStoreError) {
        let staged = state.withLock { $0.staged }
        let now = clock.now()
        try store.commit(
            staged.map { Order(item: $0, requestID: requestID.value, placedAt: now) },
            for: requestID.value
        )
        state.withLock { $0.ending = .committed(orders: staged.count) }
        logger.log("committed \(staged.count) order(s)")
    }

    /// Drops the staged orders.
    func rollBack() {
        let count = state.withLock { state in
            state.ending = .rolledBack(orders: state.staged.count)
            return state.staged.count
        }
        logger.log("rolled back \(count) order(s)")
    }
}
