public import Hummingbird
public import Keystone
import Logging

/// The request context of the app: Hummingbird's core storage, and the request's services.
public struct AppRequestContext: RequestContext {
    /// What Hummingbird keeps for each request.
    public var coreContext: CoreRequestContextStorage
    /// The synchronized view of the request's child container, set by ``RequestScopeMiddleware``.
    public var requestServices: SynchronizedResolver?
    /// The request's unit of work on the hand-wired route, set by ``HandWiredRequestMiddleware``.
    public var handWiredUnitOfWork: UnitOfWork?

    /// Creates the context of a request that has no scope yet.
    public init(source: Source) {
        coreContext = .init(source: source)
        requestServices = nil
        handWiredUnitOfWork = nil
    }

    /// The request's services.
    ///
    /// - Throws: An internal server error if no ``RequestScopeMiddleware`` opened a scope for the request.
    public func services() throws -> SynchronizedResolver {
        guard let requestServices else {
            throw HTTPError(.internalServerError, message: "No request scope: add RequestScopeMiddleware.")
        }
        return requestServices
    }
}

/// Gives each request a scope of its own: opens a child container before the handler runs, and disposes
/// of it once the response is ready, before the response is written. A success the client receives was
/// committed; a request that failed (an error thrown, or a status of 400 or above) is rolled back.
public struct RequestScopeMiddleware: RouterMiddleware {
    /// The context the middleware works with.
    public typealias Context = AppRequestContext

    private let app: AppServices

    /// Creates the middleware.
    ///
    /// - Parameter app: The app whose container is the parent of every request scope.
    public init(app: AppServices) {
        self.app = app
    }

    /// Runs the rest of the chain inside a new request scope, and ends the scope.
    public func handle(
        _ request: Request,
        context: Context,
        next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let scope = app.makeRequestScope()
        var context = context
        context.requestServices = scope.services
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            scope.markFailed()
            await end(scope, context: context)
            throw error
        }
        if response.status.code >= 400 {
            scope.markFailed()
        }
        // A commit that fails turns the response into an error: the client must not see a success whose
        // orders were lost.
        do {
            try await scope.end()
        } catch {
            context.logger.error("The request scope ended with errors: \(error)")
            throw HTTPError(.internalServerError, message: "The request could not be completed.")
        }
        return response
    }

    /// Ends a failed request's scope; the request's own error is the one reported.
    private func end(_ scope: RequestScope, context: Context) async {
        do {
            try await scope.end()
        } catch {
            context.logger.error("The request scope of a failed request ended with errors: \(error)")
        }
    }
}

/// Builds the orders server.
///
/// Routes:
/// - `POST /orders/{item}?quantity=N` stages `N` orders for `item` (1 by default) in the request's unit of
///   work and answers `ordered N x item in request req-17`; the orders are committed when the request scope
///   ends. More than ``UnitOfWork/maximumOrders`` fails the request with 400, and nothing is committed.
/// - `POST /orders-by-hand/{item}?quantity=N` does the same with the request's services made and ended by
///   hand (``HandWiredRequestMiddleware``), without a child container: the baseline for measuring the
///   scope's cost.
/// - `GET /health` answers `ok`, without a request scope.
///
/// - Parameters:
///   - app: The app container and its services.
///   - configuration: Where to listen; `127.0.0.1:8080` by default.
/// - Returns: The application, to run with `runService()` (or to test).
/// - Throws: The app container's error if one of the app's services does not resolve.
public func buildApplication(
    app: AppServices,
    configuration: ApplicationConfiguration = .init(address: .hostname("127.0.0.1", port: 8080))
) throws(DIError) -> some ApplicationProtocol {
    let router = Router(context: AppRequestContext.self)
    router.get("health") { _, _ in
        "ok\n"
    }
    router.group("orders")
        .add(middleware: RequestScopeMiddleware(app: app))
        .post("{item}") { request, context in
            try placeOrders(request, context: context) {
                try context.services().resolveThrows(UnitOfWork.self)
            }
        }
    let handWired = try HandWiredRequestMiddleware(app: app)
    router.group("orders-by-hand")
        .add(middleware: handWired)
        .post("{item}") { request, context in
            try placeOrders(request, context: context) {
                guard let unitOfWork = context.handWiredUnitOfWork else {
                    throw HTTPError(.internalServerError, message: "No unit of work: add HandWiredRequestMiddleware.")
                }
                return unitOfWork
            }
        }
    return Application(router: router, configuration: configuration)
}

/// The work of both order routes: stages the request's orders in the unit of work `unitOfWork` gives.
private func placeOrders(
    _ request: Request,
    context: AppRequestContext,
    unitOfWork: () throws -> UnitOfWork
) throws -> String {
    let item = try context.parameters.require("item")
    let quantity = request.uri.queryParameters.get("quantity", as: Int.self) ?? 1
    guard quantity > 0 else {
        throw HTTPError(.badRequest, message: "The quantity must be positive.")
    }
    let unitOfWork = try unitOfWork()
    do {
        for _ in 0..<quantity {
            try unitOfWork.stage(item)
        }
    } catch {
        throw HTTPError(.badRequest, message: "At most \(UnitOfWork.maximumOrders) orders per request.")
    }
    return "ordered \(quantity) x \(item) in request \(unitOfWork.requestID.value)\n"
}
