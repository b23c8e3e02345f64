import Keystone
import Testing

private protocol A: AnyObject {}
private protocol B: AnyObject {}
private protocol C: AnyObject {}

private final class AImpl: A {
    let b: B?
    init(b: B?) { self.b = b }
}
private final class BImpl: B {
    let c: C?
    init(c: C?) { self.c = c }
}
private final class CImpl: C {
    let a: A?
    init(a: A?) { self.a = a }
}

private protocol ParentProtocol: AnyObject {}
private protocol ChildProtocol: AnyObject {}
private final class Parent: ParentProtocol {
    let child: ChildProtocol?
    init(child: ChildProtocol?) { self.child = child }
}
private final class Child: ChildProtocol {
    weak var parent: ParentProtocol?
}

private func key<T>(_ type: T.Type) -> ServiceKey {
    ServiceKey(serviceType: type)
}

@Suite("Circular dependencies", .tags(.engine))
struct CycleTests {
    @Test("A factory that resolves itself is a cycle of length 1, reported with its path")
    func selfCycle() {
        let container = Container()
        container.register(A.self) { r in AImpl(b: r.resolve(A.self) as? B) }
        #expect(container.resolve(A.self) == nil)
        #expect(throws: DIError.circularDependency(path: [key(A.self), key(A.self)])) {
            try container.resolveThrows(A.self)
        }
    }

    @Test("Two factories that resolve each other are a cycle of length 2")
    func twoCycle() {
        let container = Container()
        container.register(A.self) { r in AImpl(b: r.resolve(B.self)) }
        container.register(B.self) { r in BImpl(c: (r.resolve(A.self) as? C)) }
        #expect(container.resolve(A.self) == nil)
        let result = container.resolveResult(A.self)
        #expect(result.failure == .circularDependency(path: [key(A.self), key(B.self), key(A.self)]))
        #expect(String(describing: result.failure!).contains("Circular dependency: A -> B -> A."))
    }

    @Test("Three factories in a ring are a cycle of length 3, whichever one is resolved first")
    func threeCycle() {
        let container = Container()
        container.register(A.self) { r in AImpl(b: r.resolve(B.self)) }
        container.register(B.self) { r in BImpl(c: r.resolve(C.self)) }
        container.register(C.self) { r in CImpl(a: r.resolve(A.self)) }
        #expect(throws: DIError.circularDependency(path: [key(A.self), key(B.self), key(C.self), key(A.self)])) {
            try container.resolveThrows(A.self)
        }
        #expect(throws: DIError.circularDependency(path: [key(C.self), key(A.self), key(B.self), key(C.self)])) {
            try container.resolveThrows(C.self)
        }
    }

    @Test("A throwing factory that uses resolveThrows gets the cycle error itself")
    func cycleThroughThrowingFactories() {
        let container = Container()
        container.register(A.self) { r in AImpl(b: try r.resolveThrows(B.self)) }
        container.register(B.self, name: "b") { r in BImpl(c: try r.resolveThrows(C.self)) }
        container.register(B.self) { r in try r.resolveThrows(B.self, name: "b") }
        container.register(C.self) { r in CImpl(a: try r.resolveThrows(A.self)) }
        let expected = DIError.circularDependency(path: [
            key(A.self), key(B.self), ServiceKey(serviceType: B.self, name: "b"), key(C.self), key(A.self),
        ])
        #expect(throws: expected) { try container.resolveThrows(A.self) }
    }

    @Test("A container-scoped instance built around a tolerated cycle is not kept")
    func taintedSingletonIsNotKept() {
        let container = Container()
        let counter = Counter()
        container.register(A.self) { r in
            counter.increment()
            return AImpl(b: r.resolve(B.self))
        }.inObjectScope(.container)
        container.register(B.self) { r in BImpl(c: r.resolve(A.self) as? C) }
        #expect(container.resolve(A.self) == nil)
        #expect(container.resolve(A.self) == nil)
        #expect(counter.count == 2, "the half-built singleton was not cached")
    }

    @Test("A weak-scoped instance built around a tolerated cycle is not handed out again, even while it lives")
    func taintedWeakInstanceIsNotKept() {
        final class Hub { var spoke: Spoke? }
        final class Spoke { let hub: Hub?; init(hub: Hub?) { self.hub = hub } }
        let container = Container()
        let made = Kept<Hub>()
        let cycles = Counter()
        container.register(Hub.self) { r in
            let hub = Hub()
            made.append(hub)  // outlives the failed call: a weak scope could still find it
            hub.spoke = r.resolve(Spoke.self)
            return hub
        }.inObjectScope(.weak)
        container.register(Spoke.self) { r in
            // Only the first Spoke asks for its Hub: the first resolve meets a cycle, later ones do not.
            cycles.increment()
            return Spoke(hub: cycles.count == 1 ? r.resolve(Hub.self) : nil)
        }
        #expect(container.resolve(Hub.self) == nil, "the cycle fails the whole call")
        let second = container.resolve(Hub.self)
        #expect(second != nil)
        #expect(made.all.count == 2, "the half-built hub was not reused")
        #expect(second !== made.all.first)
    }

    @Test("A container-scoped instance whose initCompleted action met a tolerated cycle is not kept")
    func instanceWhoseActionMetACycleIsNotKept() {
        final class Owner { var helper: Helper? }
        final class Helper { let partner: Partner?; init(partner: Partner?) { self.partner = partner } }
        final class Partner { let helper: Helper?; init(helper: Helper?) { self.helper = helper } }
        let container = Container()
        let owners = Counter()
        let partners = Counter()
        container.register(Owner.self) { _ in
            owners.increment()
            return Owner()
        }
        .initCompleted { r, owner in owner.helper = r.resolve(Helper.self) }
        .inObjectScope(.container)
        container.register(Helper.self) { r in Helper(partner: r.resolve(Partner.self)) }
        container.register(Partner.self) { r in
            // Only the first Partner asks for a Helper: a cycle Helper -> Partner -> Helper, once.
            partners.increment()
            return Partner(helper: partners.count == 1 ? r.resolve(Helper.self) : nil)
        }
        #expect(container.resolve(Owner.self) == nil, "the cycle fails the whole call")
        let owner = container.resolve(Owner.self)
        #expect(owners.count == 2, "the owner completed around the cycle was dropped, not cached")
        #expect(owner?.helper?.partner != nil)
        #expect(container.resolve(Owner.self) === owner)
    }

    @Test("A graph-scoped instance is never reused by a resolve that a deinitializer starts as the graph closes")
    func graphInstanceIsNotReusedByADeinitializersResolve() throws {
        final class Probe: @unchecked Sendable {
            // @unchecked: written once by a deinitializer on the test's thread, read after.
            var seen: ObjectIdentifier?
        }
        final class Transient {
            let onDeinit: () -> Void
            init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
            deinit { onDeinit() }
        }
        final class Shared {}
        final class Root {
            let shared: Shared
            init(shared: Shared) { self.shared = shared }
        }
        let container = Container()
        let probe = Probe()
        // Stored in the graph first, held by nobody: released as the graph closes, before `Shared` is.
        container.register(Transient.self) { [unowned container] _ in
            Transient { probe.seen = container.resolve(Shared.self).map(ObjectIdentifier.init) }
        }
        container.register(Shared.self) { _ in Shared() }
        container.register(Root.self) { r in
            _ = r.resolve(Transient.self)
            return Root(shared: r.resolve(Shared.self)!)
        }
        let root = try container.resolveThrows(Root.self)
        #expect(probe.seen != nil, "the deinitializer resolved")
        #expect(probe.seen != ObjectIdentifier(root.shared), "its resolve is a graph of its own")
    }

    @Test("initCompleted breaks an initializer/property cycle, as the circular dependency guide shows")
    func initCompletedBreaksCycle() {
        for scope in [ObjectScope.graph, .container] {
            let container = Container()
            container.register(ParentProtocol.self) { r in
                Parent(child: r.resolve(ChildProtocol.self)!)
            }.inObjectScope(scope)
            container.register(ChildProtocol.self) { _ in Child() }
                .initCompleted { r, c in
                    let child = c as! Child
                    child.parent = r.resolve(ParentProtocol.self)
                }
                .inObjectScope(scope)

            let parent = container.resolve(ParentProtocol.self) as! Parent
            let child = parent.child as! Child
            #expect(child.parent === parent)
        }
    }

    @Test("initCompleted breaks a property/property cycle")
    func initCompletedPropertyCycle() throws {
        final class Left { var right: Right? }
        final class Right { weak var left: Left? }
        let container = Container()
        container.register(Left.self) { r in
            let left = Left()
            left.right = r.resolve(Right.self)!
            return left
        }
        container.register(Right.self) { _ in Right() }
            .initCompleted { r, right in right.left = r.resolve(Left.self) }
        let left = try container.resolveThrows(Left.self)
        #expect(left.right?.left === left)
    }

    @Test("initCompleted in the transient scope cannot break a cycle, and it is reported, not a crash")
    func transientInitCompletedCycle() {
        final class Left { var right: Right? }
        final class Right { var left: Left? }
        let container = Container()
        container.register(Left.self) { _ in Left() }
            .initCompleted { r, left in left.right = r.resolve(Right.self) }
            .inObjectScope(.transient)
        container.register(Right.self) { r in
            let right = Right()
            right.left = r.resolve(Left.self)
            return right
        }.inObjectScope(.transient)
        let result = container.resolveResult(Left.self)
        guard case .failure(.circularDependency(let path)) = result else {
            Issue.record("expected a cycle, got \(result)")
            return
        }
        #expect(path.first == path.last)
    }

    @Test("Two transient registrations whose initCompleted actions resolve each other are a cycle, not a runaway")
    func transientInitCompletedActionsResolvingEachOther() {
        // Each action makes a new instance of the other, whose action makes a new one of the first: the
        // same keys with no progress. The instances already made are transient, so nothing in the graph
        // can be reused to end it.
        final class Left { var right: Right? }
        final class Right { var left: Left? }
        let container = Container()
        container.register(Left.self) { _ in Left() }
            .initCompleted { r, left in left.right = r.resolve(Right.self) }
            .inObjectScope(.transient)
        container.register(Right.self) { _ in Right() }
            .initCompleted { r, right in right.left = r.resolve(Left.self) }
            .inObjectScope(.transient)
        let result = container.resolveResult(Left.self)
        guard case .failure(.circularDependency(let path)) = result else {
            Issue.record("expected a cycle, got \(result)")
            return
        }
        #expect(path.map(\.description) == ["Left", "Right", "Left"])
    }

    @Test("The same pair with one side in the graph scope resolves: the graph's instance closes the loop")
    func graphInitCompletedActionsResolvingEachOther() throws {
        final class Left { var right: Right? }
        final class Right { var left: Left? }
        let container = Container()
        container.register(Left.self) { _ in Left() }
            .initCompleted { r, left in left.right = r.resolve(Right.self) }
        container.register(Right.self) { _ in Right() }
            .initCompleted { r, right in right.left = r.resolve(Left.self) }
            .inObjectScope(.transient)
        let left = try container.resolveThrows(Left.self)
        #expect(left.right?.left === left)
    }

    @Test("A dependency resolved again after it was created is not a cycle")
    func diamondIsNotACycle() throws {
        final class Leaf {}
        final class Middle {
            let leaf: Leaf
            init(leaf: Leaf) { self.leaf = leaf }
        }
        final class Top {
            let left: Middle
            let right: Middle
            let leaf: Leaf
            init(left: Middle, right: Middle, leaf: Leaf) {
                self.left = left
                self.right = right
                self.leaf = leaf
            }
        }
        let container = Container()
        container.register(Leaf.self) { _ in Leaf() }
        container.register(Middle.self) { r in Middle(leaf: try r.resolveThrows(Leaf.self)) }.inObjectScope(.transient)
        container.register(Top.self) { r in
            Top(
                left: try r.resolveThrows(Middle.self),
                right: try r.resolveThrows(Middle.self),
                leaf: try r.resolveThrows(Leaf.self)
            )
        }
        let top = try container.resolveThrows(Top.self)
        #expect(top.left !== top.right)
        #expect(top.left.leaf === top.leaf && top.right.leaf === top.leaf)
    }

    @Test("A deep non-circular chain resolves", .tags(.deepStack))
    func deepChain() throws {
        let container = Container()
        for level in 0..<100 {
            container.register(Int.self, name: "\(level)") { r in
                level == 99 ? 0 : 1 + (try r.resolveThrows(Int.self, name: "\(level + 1)"))
            }
        }
        #expect(try container.resolveThrows(Int.self, name: "0") == 99)
    }

    @Test("After a failed top-level call, the next resolve starts clean")
    func recoveryAfterCycle() throws {
        let container = Container()
        let bs = Counter()
        container.register(A.self) { r in AImpl(b: r.resolve(B.self)) }
        container.register(B.self) { r in
            // Only the first B asks for an A: the first call meets the cycle A -> B -> A, the next does not.
            bs.increment()
            return BImpl(c: bs.count == 1 ? r.resolve(A.self) as? C : nil)
        }
        #expect(throws: DIError.circularDependency(path: [key(A.self), key(B.self), key(A.self)])) {
            try container.resolveThrows(A.self)
        }
        // The same keys again: anything the failed call left behind (its path, its graph) would fail or
        // taint this one.
        let a = try #require(try container.resolveThrows(A.self) as? AImpl)
        #expect(a.b != nil)
        #expect(bs.count == 2)
    }
}

/// The objects a factory made, kept alive by the test.
private final class Kept<Object: AnyObject> {
    private(set) var all: [Object] = []

    func append(_ object: Object) {
        all.append(object)
    }
}
