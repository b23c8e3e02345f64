import Testing

@testable import Keystone

// A miss lists the registrations of the same service type under other names or argument types: this
// container's first, then each ancestor's, nearest first, each key once.

private protocol MCService {}
private struct MCThing: MCService {}

@Suite("A miss's near misses, across a hierarchy", .tags(.engine))
struct MissCandidatesTests {
    @Test("Candidates come from the container asked, then its ancestors, nearest first, each key once")
    func orderAcrossHierarchy() {
        let root = Container()
        root.register((any MCService).self, name: "root") { _ in MCThing() }
        root.register((any MCService).self, name: "shared") { _ in MCThing() }
        let middle = Container(parent: root)
        middle.register((any MCService).self, name: "middle") { _ in MCThing() }
        middle.register((any MCService).self) { (_, _: Int) in MCThing() }
        let leaf = Container(parent: middle)
        leaf.register((any MCService).self, name: "leaf") { _ in MCThing() }
        leaf.register((any MCService).self, name: "shared") { _ in MCThing() }

        let result = leaf.resolveResult((any MCService).self)
        guard case .failure(.notRegistered(let key, let path, let candidates)) = result else {
            Issue.record("expected notRegistered, got \(result)")
            return
        }
        #expect(key == ServiceKey(serviceType: (any MCService).self))
        #expect(path.isEmpty)
        #expect(
            candidates == [
                ServiceKey(serviceType: (any MCService).self, name: "leaf"),
                ServiceKey(serviceType: (any MCService).self, name: "shared"),
                ServiceKey(serviceType: (any MCService).self, name: "middle"),
                ServiceKey(serviceType: (any MCService).self, argumentsType: Int.self),
                ServiceKey(serviceType: (any MCService).self, name: "root"),
            ]
        )
        // A type registered nowhere has none, however deep the hierarchy.
        var deep = leaf
        for _ in 0..<500 {
            deep = Container(parent: deep)
        }
        guard case .failure(.notRegistered(_, _, let none)) = deep.resolveResult(MCThing.self) else {
            Issue.record("expected notRegistered")
            return
        }
        #expect(none.isEmpty)
    }
}
