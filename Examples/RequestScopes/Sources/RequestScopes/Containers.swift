public import Keystone
import Synchronization

/// The app container, and the two ways into it that may be shared by the server's tasks: a synchronized
/// view for the long-lived services, and ``makeRequestScope()`` for a child container per request.
///
/// ```swift
/// let services = AppServices()
/// let scope = services.makeRequestScope()
/// let unitOfWork = try scope.services.resolveThrows(UnitOfWork.self)
/// try unitOfWork.stage("book")
/// try await scope.end()   // commits the order; the store lives on
/// ```
public final class AppServices: @unchecked Sendable {
    // @unchecked: a `Container` is not `Sendable`. Once `init` has returned, `container` is used only
    // through calls that take the hierarchy's lock (`synchronize()`, `dispose`), and as the parent of new
    // children: `Container(parent:)` reads only the parent's constant `hierarchy`, and registering in the
    // child takes that hierarchy's lock.
    private let container: Container

    /// The thread-safe view of the app container, for the long-lived services.
    public let resolver: SynchronizedResolver
    /// The app's counters, which every request scope updates.
    public let metrics: Metrics

    /// Creates the app container, registers the long-lived services, and lets `configure` add or replace
    /// registrations before the container is shared. Scope validation is on for the app container and every
    /// request scope made from it: an app service that would capture a request's service fails to resolve.
    ///
    /// ```swift
    /// let services = AppServices { container in
    ///     container.register(AccessLog.self) { _ in AccessLog(echo: true) }.inObjectScope(.container)
    /// }
    /// ```
    ///
    /// - Parameter configure: Registers in the app container, after the defaults (a registration of the
    ///   same type replaces the default one).
    public init(configure: (Container) -> Void = { _ in }) {
        let metrics = Metrics()
        let container = Container(defaultObjectScope: .container)
        container.register((any ServerClock).self) { _ in SystemClock() }
        container.register(OrderStore.self) { _ in OrderStore() }
            .onDispose { store in store.close() }
        container.register(Metrics.self) { _ in metrics }
        container.register(RequestIDGenerator.self) { _ in RequestIDGenerator() }
        container.register(AccessLog.self) { _ in AccessLog() }
        container.register(LifetimeLedger.self) { _ in LifetimeLedger() }
        configure(container)
        // A request's child must never leave anything in the app's instances: an app service made while
        // serving a request, from a request's registration, would outlive that request. With validation on,
        // such a resolve fails with DIError.captiveDependency instead of keeping the instance.
        container.validatesScopes = true
        self.container = container
        self.metrics = metrics
        resolver = container.synchronize()
    }

    /// Opens a request scope: a child of the app container with the request's services registered in it.
    ///
    /// The scope belongs to the task serving the request: that task resolves the request's services from
    /// it, and ends it with ``RequestScope/end()`` once the response is ready.
    public func makeRequestScope() -> RequestScope {
        RequestScope(parent: container, metrics: metrics)
    }

    /// Disposes of the app's long-lived services (closing the order store). Call it once the server has
    /// stopped: no request scope may be open.
    public func shutdown() async throws(DIError) {
        try await container.disposeAsync()
    }
}

/// One request's services: a child container of the app container, made when the request arrives and
/// disposed of when its response is ready.
///
/// Its `.container` registrations are one instance per request; what it does not register (the store,
/// the clock) it resolves from the app container, which it shares.
public final class RequestScope {
    /// A child container, used by one task at a time; it is not `Sendable` and stays in the middleware.
    private let container: Container
    /// The view of the child that goes into the request context.
    public let services: SynchronizedResolver
    /// Set when the request failed: the unit of work then rolls back when the scope ends.
    private let failure: Failure
    private let metrics: Metrics
    /// Whether ``end()`` was called, so that the metrics count each scope's end once.
    private var hasEnded = false

    /// Whether the request failed, readable from the disposal handlers.
    private final class Failure: Sendable {
        let isSet = Atomic<Bool>(false)
    }

    init(parent: Container, metrics: Metrics) {
        let failure = Failure()
        let container = Container(parent: parent, defaultObjectScope: .container) { child in
            child.register(RequestID.self) { r in
                RequestID(
                    value: try r.resolveThrows(RequestIDGenerator.self).next(),
                    ledger: try r.resolveThrows(LifetimeLedger.self)
                )
            }
            .onDispose { id in id.ledger.disposed(.requestID, of: id.value) }

            child.register(RequestLogger.self) { r in
                RequestLogger(
                    requestID: try r.resolveThrows(RequestID.self),
                    accessLog: try r.resolveThrows(AccessLog.self)
                )
            }
            .onDisposeAsync { logger in
                logger.requestID.ledger.disposed(.logger, of: logger.requestID.value)
                await logger.flush()
            }

            child.register(UnitOfWork.self) { r in
                UnitOfWork(
                    requestID: try r.resolveThrows(RequestID.self),
                    store: try r.resolveThrows(OrderStore.self),
                    logger: try r.resolveThrows(RequestLogger.self),
                    clock: try r.resolveThrows((any ServerClock).self)
                )
            }
            .onDispose { unitOfWork in
                unitOfWork.requestID.ledger.disposed(.unitOfWork, of: unitOfWork.requestID.value)
                if failure.isSet.load(ordering: .relaxed) {
                    unitOfWork.rollBack()
                } else {
                    try unitOfWork.commit()
                }
            }
        }
        self.container = container
        self.failure = failure
        self.metrics = metrics
        services = container.synchronize()
        metrics.scopeOpened()
    }

    /// Marks the request as failed: ending the scope rolls its unit of work back instead of committing it.
    public func markFailed() {
        if !failure.isSet.exchange(true, ordering: .relaxed) {
            metrics.requestFailed()
        }
    }

    /// Ends the scope: runs the disposal handlers of the request's services, the unit of work's (commit or
    /// roll back) before the logger's (flush) before the request id's, and drops them. The app's services
    /// are left alone.
    ///
    /// - Throws: ``DIError/disposalFailed(_:)`` if a handler threw (a commit the store refused); every
    ///   handler has run all the same.
    ///
    /// Ending it again does nothing more: its instances are gone.
    public func end() async throws(DIError) {
        defer {
            if !hasEnded {
                hasEnded = true
                metrics.scopeEnded()
            }
        }
        try await container.disposeAsync()
    }
}

/// A request scope belongs to the task serving the request: its child container is not thread-safe.
@available(*, unavailable)
extension RequestScope: Sendable {}
