import Keystone
import Testing

// A failed resolve remembers the last service type it found to be no wrapper (`Lazy`, `Provider`,
// `Optional`), so that a miss repeated for one type skips the conformance lookup. These check that the
// memo never turns a wrapper, or a later registration, into a miss.

private final class Missing {}

private final class Probe {
    let tag: Int
    init(tag: Int) { self.tag = tag }
}

@Suite("Repeated failed resolves", .tags(.engine))
struct RepeatedMissTests {
    @Test("A miss repeated for one type fails the same way each time, with the same error")
    func repeatedMissFails() throws {
        let container = Container()
        container.register(Probe.self, name: "other") { _ in Probe(tag: 1) }
        var errors: [DIError] = []
        for _ in 0..<3 {
            #expect(container.resolve(Probe.self) == nil)
            #expect(throws: DIError.self) { try container.resolveThrows(Probe.self) }
            if case .failure(let error) = container.resolveResult(Probe.self) {
                errors.append(error)
            }
        }
        #expect(errors.count == 3)
        #expect(Set(errors.map(\.description)).count == 1)
        let error = try #require(errors.first)
        guard case .notRegistered(_, _, let candidates) = error else {
            Issue.record("expected notRegistered, got \(error)")
            return
        }
        #expect(candidates.map(\.name) == ["other"])
    }

    @Test("After a miss of a type, its wrappers still resolve, and so does the type once registered")
    func wrappersAfterMiss() {
        let container = Container()
        #expect(container.resolve(Probe.self) == nil)
        container.register(Probe.self) { _ in Probe(tag: 7) }
        #expect(container.resolve(Probe.self)?.tag == 7)
        #expect(container.resolve(Missing.self) == nil)
        #expect(container.resolve(Lazy<Probe>.self)?.instance.tag == 7)
        #expect(container.resolve(Missing.self) == nil)
        #expect(container.resolve(Provider<Probe>.self)?.instance.tag == 7)
        #expect(container.resolve(Missing.self) == nil)
        #expect(container.resolve(Optional<Probe>.self)??.tag == 7)
        // A wrapper of what is missing fails, and the miss after it too.
        #expect(container.resolve(Lazy<Missing>.self) == nil)
        #expect(container.resolve(Missing.self) == nil)
    }

    @Test("Misses alternate between types, through a child and through the synchronized view")
    func alternatingMisses() {
        let parent = Container()
        parent.register(Probe.self) { _ in Probe(tag: 3) }
        let child = Container(parent: parent)
        let view = child.synchronize()
        for _ in 0..<3 {
            #expect(child.resolve(Missing.self) == nil)
            #expect(child.resolve(Lazy<Probe>.self)?.instance.tag == 3)
            #expect(view.resolve(Missing.self) == nil)
            #expect(view.resolve(Provider<Probe>.self)?.instance.tag == 3)
        }
    }
}
