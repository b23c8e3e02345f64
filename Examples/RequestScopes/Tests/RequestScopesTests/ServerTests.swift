import Foundation
import Hummingbird
import HummingbirdTesting
import Keystone
import NIOCore
import RequestScopes
import Testing

/// What a client got for one request.
private struct Reply: Sendable {
    let item: String
    let status: HTTPResponse.Status
    let body: String
}

/// The server over real connections on the loopback interface.
@Suite("The orders server")
struct ServerTests {
    static let clients = 8
    static let requestsPerClient = 1_250

    @Test(
        "serves 10,000 requests from 8 clients, each in a scope of its own disposed of once",
        .timeLimit(.minutes(5))
    )
    func concurrentRequests() async throws {
        let app = AppServices()
        let store = try app.resolver.resolveThrows(OrderStore.self)
        let ledger = try app.resolver.resolveThrows(LifetimeLedger.self)
        let accessLog = try app.resolver.resolveThrows(AccessLog.self)
        let application = try buildApplication(app: app, configuration: .init(address: .hostname("127.0.0.1", port: 0)))

        let (replies, elapsed, liveAfter) = try await application.test(.live) { client in
            let health = try await client.execute(uri: "/health", method: .get)
            #expect(health.status == .ok)
            #expect(String(buffer: health.body) == "ok\n")

            // `.live` gives one single-connection client; each task opens a connection of its own to the same
            // server, so the 8 streams of requests are served concurrently.
            let port = try #require(client.port)
            let start = ContinuousClock.now
            let replies = try await withThrowingTaskGroup(of: [Reply].self) { group in
                for clientNumber in 0..<Self.clients {
                    group.addTask {
                        try await TestClient.withClient(host: "localhost", port: port) { connection in
                            var replies: [Reply] = []
                            replies.reserveCapacity(Self.requestsPerClient)
                            for requestNumber in 0..<Self.requestsPerClient {
                                let item = "c\(clientNumber)-\(requestNumber)"
                                let response = try await connection.execute(.init("/orders/\(item)", method: .post))
                                replies.append(
                                    Reply(
                                        item: item,
                                        status: response.status,
                                        body: response.body.map { String(buffer: $0) } ?? ""
                                    )
                                )
                            }
                            return replies
                        }
                    }
                }
                return try await group.reduce(into: []) { $0 += $1 }
            }
            let elapsed = ContinuousClock.now - start
            // Each scope ended before its response was written; give the server a moment to let go of what
            // it still holds of the last requests.
            let deadline = ContinuousClock.now + .seconds(1)
            while ledger.liveObjects != 0, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
            }
            return (replies, elapsed, ledger.liveObjects)
        }
        let total = Self.clients * Self.requestsPerClient
        print("\(total) requests from \(Self.clients) clients in \(elapsed)")

        // Every response is a 200 naming its item and its request, and no request id is given twice.
        #expect(replies.count == total)
        var requestIDs: [String: String] = [:]  // request id -> item
        var badReplies: [Reply] = []
        var repeatedIDs: [String] = []
        for reply in replies {
            let expectedStart = "ordered 1 x \(reply.item) in request req-"
            guard reply.status == .ok, reply.body.hasPrefix(expectedStart), reply.body.hasSuffix("\n") else {
                badReplies.append(reply)
                continue
            }
            let id = "req-" + reply.body.dropFirst(expectedStart.count).dropLast()
            if requestIDs.updateValue(reply.item, forKey: id) != nil {
                repeatedIDs.append(id)
            }
        }
        #expect(badReplies.count == 0, "\(badReplies.count) unexpected replies, such as \(badReplies.prefix(3))")
        #expect(
            repeatedIDs.count == 0,
            "\(repeatedIDs.count) request ids given twice, such as \(repeatedIDs.prefix(3))"
        )
        #expect(requestIDs.count == total)

        // Every request's services were disposed of exactly once, dependents first, and every unit of work
        // committed once. The ledger and the store keep the last 1,000 requests' records and count all of
        // them: the counts cover every request, the records kept are checked one by one (so that a failure
        // names a few requests, not 1,000).
        let expectedDisposals: [LifetimeLedger.Service] = [.unitOfWork, .logger, .requestID]
        #expect(ledger.disposalCounts == [.unitOfWork: total, .logger: total, .requestID: total])
        let disposals = ledger.disposalsByRequest
        #expect(disposals.count == ledger.capacity, "the ledger keeps the last \(ledger.capacity) requests")
        let badDisposals = disposals.filter { requestIDs[$0.key] == nil || $0.value != expectedDisposals }
        #expect(
            badDisposals.count == 0,
            "\(badDisposals.count) requests, such as \(badDisposals.prefix(3).map { ($0.key, $0.value) })"
        )
        #expect(store.commitCount == total)
        let commits = store.commitsByRequest
        #expect(commits.count == store.capacity, "the store keeps the last \(store.capacity) requests")
        let badCommits = commits.filter { requestIDs[$0.key] == nil || $0.value != 1 }
        #expect(
            badCommits.count == 0,
            "\(badCommits.count) requests, such as \(badCommits.prefix(3).map { ($0.key, $0.value) })"
        )
        #expect(await accessLog.linesWritten == 2 * total)
        #expect(await accessLog.lines.count == 1_000)

        // The app's services live on, shared: one store took every order, and keeps the last ones, each the
        // one its request staged.
        #expect(!store.isClosed)
        #expect(try app.resolver.resolveThrows(OrderStore.self) === store)
        #expect(store.committedOrderCount == total)
        let orders = store.orders
        #expect(orders.count == store.capacity)
        let misplaced = orders.filter { requestIDs[$0.requestID] != $0.item }
        #expect(misplaced.count == 0, "\(misplaced.count) orders, such as \(misplaced.prefix(3))")
        // The orders kept are the latest: each was committed in the same scope as a commit the store kept.
        #expect(orders.allSatisfy { commits[$0.requestID] == 1 })

        // No request-scoped object outlived its request; no scope is left open (`/health` opens none).
        #expect(liveAfter == 0)
        #expect(ledger.createdObjects == 3 * total)
        #expect(app.metrics.scopesOpened == total)
        #expect(app.metrics.openScopes == 0)
        #expect(app.metrics.requestsFailed == 0)

        try await app.shutdown()
        #expect(store.isClosed)
    }

    @Test(
        "rolls back a request that fails, and still ends its services once",
        arguments: ["/orders", "/orders-by-hand"]
    )
    func failedRequest(route: String) async throws {
        let app = AppServices()
        let store = try app.resolver.resolveThrows(OrderStore.self)
        let ledger = try app.resolver.resolveThrows(LifetimeLedger.self)
        let accessLog = try app.resolver.resolveThrows(AccessLog.self)
        let application = try buildApplication(app: app)

        try await application.test(.router) { client in
            let tooMany = try await client.execute(uri: "\(route)/book?quantity=6", method: .post)
            #expect(tooMany.status == .badRequest)
            let ordered = try await client.execute(uri: "\(route)/pen?quantity=2", method: .post)
            #expect(ordered.status == .ok)
            #expect(String(buffer: ordered.body) == "ordered 2 x pen in request req-2\n")
        }

        #expect(store.orders.map(\.item) == ["pen", "pen"])
        #expect(store.commitsByRequest == ["req-2": 1])
        #expect(
            ledger.disposalsByRequest == [
                "req-1": [.unitOfWork, .logger, .requestID], "req-2": [.unitOfWork, .logger, .requestID],
            ]
        )
        #expect(
            await accessLog.lines == [
                "[req-1] staged book", "[req-1] staged book", "[req-1] staged book", "[req-1] staged book",
                "[req-1] staged book", "[req-1] rolled back 5 order(s)",
                "[req-2] staged pen", "[req-2] staged pen", "[req-2] committed 2 order(s)",
            ]
        )
        #expect(app.metrics.requestsFailed == 1)
        #expect(app.metrics.scopesOpened == 2)
        #expect(app.metrics.openScopes == 0)
        #expect(ledger.liveObjects == 0)
    }
}
