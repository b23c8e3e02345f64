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
