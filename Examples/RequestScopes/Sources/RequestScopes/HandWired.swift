public import Hummingbird
public import Keystone
import Logging
import Synchronization

// The same request services without a container, wired by hand: the baseline a request scope's cost is
// measured against (`measure.sh`). Nothing here is resolved per request.

/// One request's services made by hand: the request id, the logger and the unit of work a request scope
/// would make, ended the way a scope's disposal ends them: the unit of work commits (or rolls back), then
/// the logger is flushed, then the request id is recorded as ended. It updates the metrics and the ledger
/// as a request scope does.
public final class HandWiredRequest: Sendable {
    /// The request's unit of work.
    public let unitOfWork: UnitOfWork
    private let logger: RequestLogger
    private let requestID: RequestID
    private let metrics: Metrics
    private let failed = Atomic<Bool>(false)
    private let ended = Atomic<Bool>(false)

    init(services: HandWiredServices) {
        let requestID = RequestID(value: services.requestIDs.next(), ledger: services.ledger)
        let logger = RequestLogger(requestID: requestID, accessLog: services.accessLog)
        unitOfWork = UnitOfWork(requestID: requestID, store: services.store, logger: logger, clock: services.clock)
        self.logger = logger
        self.requestID = requestID
        metrics = services.metrics
        metrics.scopeOpened()
    }

    /// Marks the request as failed: ending it rolls its unit of work back instead of committing it.
    public func markFailed() {
        if !failed.exchange(true, ordering: .relaxed) {
            metrics.requestFailed()
        }
    }

    /// Ends the request: commits (or rolls back) the unit of work, flushes the logger, records the request
    /// id as ended. Ending it again does nothing.
    ///
    /// - Throws: The store's error if it refused the commit; the logger and the request id are ended all
    ///   the same.
    public func end() async throws(OrderStoreError) {
        guard !ended.exchange(true, ordering: .relaxed) else { return }
        defer { metrics.scopeEnded() }
        let id = requestID.value
        let ledger = requestID.ledger
        var commitError: OrderStoreError?
        ledger.disposed(.unitOfWork, of: id)
        if failed.load(ordering: .relaxed) {
            unitOfWork.rollBack()
        } else {
            do {
                try unitOfWork.commit()
            } catch {
                commitError = error
            }
        }
        ledger.disposed(.logger, of: id)
        await logger.flush()
        ledger.disposed(.requestID, of: id)
        if let commitError {
            throw commitError
        }
    }
}

/// The app's services a hand-wired request uses, resolved once from the app container.
struct HandWiredServices: Sendable {
    let requestIDs: RequestIDGenerator
    let ledger: LifetimeLedger
    let accessLog: AccessLog
    let store: OrderStore
    let clock: any ServerClock
    let metrics: Metrics

    init(app: AppServices) throws(DIError) {
        let resolver = app.resolver
        requestIDs = try resolver.resolveThrows(RequestIDGenerator.self)
        ledger = try resolver.resolveThrows(LifetimeLedger.self)
        accessLog = try resolver.resolveThrows(AccessLog.self)
        store = try resolver.resolveThrows(OrderStore.self)
        clock = try resolver.resolveThrows((any ServerClock).self)
        metrics = app.metrics
    }
}

/// ``RequestScopeMiddleware`` without the container: makes a ``HandWiredRequest`` before the handler runs,
/// puts its unit of work in the request context, and ends it once the response is ready, with the same
/// handling of failures.
public struct HandWiredRequestMiddleware: RouterMiddleware {
    /// The context the middleware works with.
    public typealias Context = AppRequestContext

    private let services: HandWiredServices

    /// Creates the middleware, resolving the app's services it needs once.
    ///
    /// - Throws: The app container's error if one of them does not resolve.
    public init(app: AppServices) throws(DIError) {
        services = try HandWiredServices(app: app)
    }

    /// Runs the rest of the chain with a hand-wired request, and ends it.
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let handWired = HandWiredRequest(services: services)
        var context = context
        context.handWiredUnitOfWork = handWired.unitOfWork
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            handWired.markFailed()
            do {
                try await handWired.end()
            } catch {
                context.logger.error("The hand-wired request of a failed request ended with errors: \(error)")
            }
            throw error
        }
        if response.status.code >= 400 {
            handWired.markFailed()
        }
        do {
            try await handWired.end()
        } catch {
            context.logger.error("The hand-wired request ended with errors: \(error)")
            throw HTTPError(.internalServerError, message: "The request could not be completed.")
        }
        return response
    }
}
