import Foundation
import Keystone
import RequestScopes
import Testing

/// The fixed-size collections the app's records are kept in, and the stores built on them.
@Suite("Bounded records")
struct BoundedTests {
    @Test("a RecentElements keeps the last elements appended, oldest first, and counts them all")
    func recentElements() {
        var recent = RecentElements<Int>(capacity: 3)
        #expect(recent.elements.isEmpty)
        #expect(recent.first == nil)
        recent.append(1)
        recent.append(2)
        #expect(recent.elements == [1, 2])
        #expect(recent.first == 1)
        recent.append(contentsOf: 3...7)
        #expect(recent.elements == [5, 6, 7])
        #expect(recent.first == 5)
        #expect(recent.count == 3)
        #expect(recent.appendedCount == 7)
        recent.append(8)
        #expect(recent.elements == [6, 7, 8])
    }

    @Test("a RecentDictionary drops the key inserted longest ago, and an update does not make a key newer")
    func recentDictionary() {
        var recent = RecentDictionary<String, Int>(capacity: 2)
        recent.update("a", default: 0) { $0 += 1 }
        recent.update("b", default: 0) { $0 += 1 }
        recent.update("a", default: 0) { $0 += 1 }
        #expect(recent.dictionary == ["a": 2, "b": 1])
        #expect(recent.evictedCount == 0)

        recent.update("c", default: 10) { $0 += 1 }
        #expect(recent.dictionary == ["b": 1, "c": 11], "a was inserted first, so it goes first")
        #expect(recent["a"] == nil)
        #expect(recent.evictedCount == 1)

        recent.update("a", default: 0) { $0 += 5 }
        #expect(recent.dictionary == ["c": 11, "a": 5], "a dropped key comes back as a new one")
        #expect(recent.count == 2)
        #expect(recent.evictedCount == 2)
    }

    @Test("the order store keeps the latest orders and requests, and counts every one")
    func orderStore() throws {
        let store = OrderStore(capacity: 3)
        let placedAt = Date(timeIntervalSince1970: 0)
        for request in 1...4 {
            let orders = (1...request).map { Order(item: "item-\($0)", requestID: "req-\(request)", placedAt: placedAt) }
            try store.commit(orders, for: "req-\(request)")
        }
        #expect(store.orders.map { "\($0.requestID):\($0.item)" } == ["req-4:item-2", "req-4:item-3", "req-4:item-4"])
        #expect(store.committedOrderCount == 10)
        #expect(store.commitsByRequest == ["req-2": 1, "req-3": 1, "req-4": 1])
        #expect(store.commitCount == 4)
    }

    @Test("the access log keeps the latest lines, and counts every one")
    func accessLog() async {
        let log = AccessLog(capacity: 2)
        await log.write(["a", "b"])
        await log.write(["c"])
        #expect(await log.lines == ["b", "c"])
        #expect(await log.linesWritten == 3)
    }

    @Test("the ledger keeps the disposals of the latest requests, and counts every one")
    func ledger() async throws {
        let app = AppServices { container in
            container.register(LifetimeLedger.self) { _ in LifetimeLedger(capacity: 2) }
        }
        let ledger = try app.resolver.resolveThrows(LifetimeLedger.self)
        var ids: [String] = []
        for _ in 0..<3 {
            let scope = app.makeRequestScope()
            ids.append(try scope.services.resolveThrows(UnitOfWork.self).requestID.value)
            try await scope.end()
        }
        let expected: [LifetimeLedger.Service] = [.unitOfWork, .logger, .requestID]
        #expect(ledger.disposalsByRequest == [ids[1]: expected, ids[2]: expected])
        #expect(ledger.disposals(of: ids[0]).isEmpty)
        #expect(ledger.disposalCounts == [.unitOfWork: 3, .logger: 3, .requestID: 3])
        #expect(ledger.liveObjects == 0)
    }
}
