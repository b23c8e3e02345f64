import Foundation
import Testing

@testable import Keystone

// `MultitonKey` hands Dictionary's hashing (`_rawHashValue(seed:)`) to its payload. These tests hold it to
// what Dictionary needs: equal keys hash alike under every seed, and a table of many keys finds each one.

private struct MKHPoint: Hashable {
    let x: Int
    let y: Int
}

private func key<Value>(_ value: Value) throws -> MultitonKey {
    try MultitonKey.single(value, key: ServiceKey(serviceType: Int.self))
}

@Suite("MultitonKey: the hash Dictionary uses", .tags(.engine))
struct MultitonKeyHashTests {
    @Test("Equal keys of every case hash alike, under several seeds")
    func equalKeysHashAlike() throws {
        let pairs: [(MultitonKey, MultitonKey)] = [
            (.none, .none),
            (try key(42), try key(42)),
            (try key("tenant"), try key("tenant")),
            (try key(MKHPoint(x: 1, y: 2)), try key(MKHPoint(x: 1, y: 2))),
            (try key(0.0), try key(-0.0)),
            (try key(AnyHashable(7)), try key(AnyHashable(Int8(7)))),
            (
                .boxed(TypedKeyBox([AnyHashable(1), AnyHashable("a")])),
                .boxed(TypedKeyBox([AnyHashable(1), AnyHashable("a")]))
            ),
        ]
        for (left, right) in pairs {
            #expect(left == right)
            for seed in [0, 1, -1, 0x5EED, Int.max] {
                #expect(left._rawHashValue(seed: seed) == right._rawHashValue(seed: seed), "\(left) at seed \(seed)")
            }
            #expect(left.hashValue == right.hashValue)
        }
    }

    @Test("A dictionary of many keys of each case finds every one, and no key of another case")
    func dictionaryFindsEveryKey() throws {
        var table: [MultitonKey: Int] = [:]
        for index in 0..<2_000 {
            table[try key(index)] = index
            table[try key("name \(index)")] = -index - 1
            table[try key(MKHPoint(x: index, y: -index))] = index + 1_000_000
        }
        #expect(table.count == 6_000)
        for index in 0..<2_000 {
            #expect(table[try key(index)] == index)
            #expect(table[try key("name \(index)")] == -index - 1)
            #expect(table[try key(MKHPoint(x: index, y: -index))] == index + 1_000_000)
        }
        #expect(table[.none] == nil)
        #expect(table[try key(2_000)] == nil)
        // The integer 5 and the string "5" are different keys, whatever their hashes.
        table[try key("5")] = nil
        #expect(table[try key(5)] == 5)
    }
}

/// A key type whose `==` is not reflexive, as `Double.nan` is not equal to itself.
private struct MKHNever: Hashable {
    static func == (lhs: MKHNever, rhs: MKHNever) -> Bool { false }
    func hash(into hasher: inout Hasher) {}
}

private final class MKHMade: Sendable {
    let serial: Int
    init(serial: Int) { self.serial = serial }
}

@Suite("MultitonKey: arguments that do not equal themselves", .tags(.engine))
struct MultitonKeyIrreflexiveTests {
    @Test("Keys that do not equal themselves are stored as keys of their own identity; others as they are")
    func identityKeys() throws {
        // A NaN is not equal to itself; its stored key is, as the key of one creation, and equals no other.
        #expect(AnyHashable(Double.nan) != AnyHashable(Double.nan))
        let nan = try key(Double.nan).storable
        guard case .boxed(let box) = nan else {
            Issue.record("expected a boxed key, got \(nan)")
            return
        }
        #expect(box is IdentityKeyBox)
        #expect(nan == nan)
        #expect(nan.hashValue == nan.hashValue)
        #expect(try key(Double.nan).storable != nan)
        #expect(try key(Double.nan) != nan)
        guard case .boxed(let neverBox) = try key(MKHNever()).storable else {
            Issue.record("expected a boxed key")
            return
        }
        #expect(neverBox is IdentityKeyBox)
        for ordinary in [try key(MKHPoint(x: 1, y: 1)), try key(7), try key("seven"), .none] {
            #expect(ordinary.storable == ordinary)
            if case .boxed(let box) = ordinary.storable {
                #expect(!(box is IdentityKeyBox))
            }
        }
    }

    @Test("An irreflexive argument makes an instance on every resolve, each disposed of once, newest first")
    func irreflexiveArgumentsSync() throws {
        let container = Container()
        let disposed = LockedBox<[Int]>([])
        var serial = 0
        container.register(MKHMade.self) { (_, _: MKHNever) in
            serial += 1
            return MKHMade(serial: serial)
        }
        .inObjectScope(.multiton)
        .onDispose { made in disposed.mutate { $0.append(made.serial) } }
        let first = try container.resolveThrows(MKHMade.self, argument: MKHNever())
        let second = try container.resolveThrows(MKHMade.self, argument: MKHNever())
        #expect(first !== second)
        try container.dispose()
        #expect(disposed.value == [second.serial, first.serial])
    }

    @Test("An async creation under a NaN key leaves no flight behind")
    func asyncNaNLeavesNoFlight() async throws {
        let container = Container()
        container.registerAsync(MKHMade.self) { (_, value: Double) in MKHMade(serial: value.isNaN ? -1 : Int(value)) }
            .inObjectScope(.multiton)
        for _ in 0..<5 {
            _ = try await container.resolveAsync(MKHMade.self, argument: Double.nan)
        }
        _ = try await container.resolveAsync(MKHMade.self, argument: 2.0)
        let flights = container.withHierarchyLock { container.hierarchy.flights.count }
        #expect(flights == 0)
    }
}

/// A value shared with handlers, behind a lock.
private final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}
