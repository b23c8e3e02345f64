import Foundation
import Keystone
import RequestScopes
import Testing

/// A clock that always tells the same time.
private struct FixedClock: ServerClock {
    let date: Date

    func now() -> Date {
        date
    }
}

/// One request scope at a time, without HTTP.
@Suite("A request scope")
struct RequestScopeTests {
    let placedAt = Date(timeIntervalSince1970: 1_700_000_000)

    func makeApp() -> AppServices {
        let placedAt = placedAt
        return AppServices { container in
            container.register((any ServerClock).self) { _ in FixedClock(date: placedAt) }
        }
    }

    @Test("holds one set of request services, disposed of once, dependents first; the app's live on")
    func lifecycle() async throws {
        let app = makeApp()
        let store = try app.resolver.resolveThrows(OrderStore.self)
        let ledger = try app.resolver.resolveThrows(LifetimeLedger.self)
        let accessLog = try app.resolver.resolveThrows(AccessLog.self)
        let scope = app.makeRequestScope()
        #expect(app.metrics.openScopes == 1)

        var unitOfWork: UnitOfWork? = try scope.services.resolveThrows(UnitOfWork.self)
        let requestID = try #require(unitOfWork?.requestID)
        let id = requestID.value
        // One instance per scope: resolving again gives the same objects.
        #expect(try scope.services.resolveThrows(UnitOfWork.self) === unitOfWork)
        #expect(try scope.services.resolveThrows(RequestID.self) === requestID)
        // What the scope lacks comes from the app container, shared.
        #expect(try scope.services.resolveThrows(OrderStore.self) === store)
        #expect(ledger.liveObjects == 3)

        try unitOfWork?.stage("book")
        try unitOfWork?.stage("pen")
        #expect(store.orders.isEmpty, "nothing is committed before the scope ends")

        try await scope.end()

        #expect(ledger.disposals(of: id) == [.unitOfWork, .logger, .requestID])
        #expect(unitOfWork?.ending == .committed(orders: 2))
        #expect(
            store.orders == [
                Order(item: "book", requestID: id, placedAt: placedAt),
                Order(item: "pen", requestID: id, placedAt: placedAt),
            ]
        )
        #expect(store.commitsByRequest == [id: 1])
        // The logger was flushed after the unit of work logged its commit.
        #expect(
            await accessLog.lines == ["[\(id)] staged book", "[\(id)] staged pen", "[\(id)] committed 2 order(s)"]
        )
        #expect(app.metrics.openScopes == 0)

        // The app's services were not disposed of, and are still the same instances.
        #expect(!store.isClosed)
        #expect(try app.resolver.resolveThrows(OrderStore.self) === store)

        // Ending again disposes of nothing more.
        try await scope.end()
        #expect(ledger.disposals(of: id) == [.unitOfWork, .logger, .requestID])
        #expect(store.commitsByRequest == [id: 1])
        #expect(app.metrics.scopesEnded == 1)

        // The scope no longer holds its instances: dropping ours ends them.
        unitOfWork = nil
        #expect(ledger.liveObjects == 1, "only the request id, held by this test, is left")
        _ = consume requestID
        #expect(ledger.liveObjects == 0)
        #expect(ledger.createdObjects == 3)

        try await app.shutdown()
        #expect(store.isClosed)
    }

    @Test("is one per request: two scopes have their own services and share the app's")
    func separateScopes() async throws {
        let app = makeApp()
        let first = app.makeRequestScope()
        let second = app.makeRequestScope()
        let firstWork = try first.services.resolveThrows(UnitOfWork.self)
        let secondWork = try second.services.resolveThrows(UnitOfWork.self)

        #expect(firstWork !== secondWork)
        #expect(firstWork.requestID.value != secondWork.requestID.value)
        #expect(try first.services.resolveThrows(OrderStore.self) === second.services.resolveThrows(OrderStore.self))
        #expect(app.metrics.openScopes == 2)

        try firstWork.stage("book")
        try await first.end()
        let store = try app.resolver.resolveThrows(OrderStore.self)
        #expect(store.orders.map(\.requestID) == [firstWork.requestID.value])
        #expect(secondWork.ending == nil, "ending one scope leaves the other alone")

        try await second.end()
        #expect(store.commitsByRequest == [firstWork.requestID.value: 1, secondWork.requestID.value: 1])
        #expect(store.orders.count == 1)
    }

    @Test("rolls its unit of work back when the request failed")
    func rollBack() async throws {
        let app = makeApp()
        let store = try app.resolver.resolveThrows(OrderStore.self)
        let ledger = try app.resolver.resolveThrows(LifetimeLedger.self)
        let scope = app.makeRequestScope()
        let unitOfWork = try scope.services.resolveThrows(UnitOfWork.self)
        try unitOfWork.stage("book")

        scope.markFailed()
        try await scope.end()

        #expect(unitOfWork.ending == .rolledBack(orders: 1))
        #expect(store.orders.isEmpty)
        #expect(store.commitsByRequest.isEmpty)
        #expect(ledger.disposals(of: unitOfWork.requestID.value) == [.unitOfWork, .logger, .requestID])
        #expect(app.metrics.requestsFailed == 1)
        let accessLog = try app.resolver.resolveThrows(AccessLog.self)
        #expect(await accessLog.lines.last?.hasSuffix("rolled back 1 order(s)") == true)
    }

    @Test("reports a commit that fails, and still runs every handler")
    func failedCommit() async throws {
        let app = makeApp()
        let store = try app.resolver.resolveThrows(OrderStore.self)
        let ledger = try app.resolver.resolveThrows(LifetimeLedger.self)
        let scope = app.makeRequestScope()
        let unitOfWork = try scope.services.resolveThrows(UnitOfWork.self)
        try unitOfWork.stage("book")
        store.close()

        let error = await #expect(throws: DIError.self) { try await scope.end() }

        guard case .disposalFailed(let failures) = error else {
            Issue.record("expected disposalFailed, got \(String(describing: error))")
            return
        }
        #expect(failures.count == 1)
        guard case .factoryFailed(_, _, let underlying) = failures.first else {
            Issue.record("expected factoryFailed, got \(failures)")
            return
        }
        #expect(underlying as? OrderStoreError == .closed)
        #expect(unitOfWork.ending == nil)
        #expect(ledger.disposals(of: unitOfWork.requestID.value) == [.unitOfWork, .logger, .requestID])
        #expect(app.metrics.openScopes == 0)
    }
}
