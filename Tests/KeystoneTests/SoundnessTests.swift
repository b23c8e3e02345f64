import Foundation
import Testing

@testable import Keystone

// Regression tests for the engine's soundness: each would fail on the engine before its fix.

private final class Part {}
private final class Gadget {
    let first: Part?
    let second: Part?
    init(first: Part?, second: Part?) {
        self.first = first
        self.second = second
    }
}
private struct Failure: Error {}

private final class Node {
    let depth: Int
    let children: [Node]
    init(depth: Int, children: [Node]) {
        self.depth = depth
        self.children = children
    }
}

private final class Link {
    let next: Link?
    init(next: Link?) { self.next = next }
}

private final class Token {}

private final class Announcer {
    let onDeinit: () -> Void
    init(onDeinit: @escaping () -> Void) { self.onDeinit = onDeinit }
    deinit { onDeinit() }
}

private final class Chicken {
    init(egg: Egg?) {}
}
private final class Egg {
    init(chicken: Chicken?) {}
}
private final class Outer {}
private final class Quiet {}

/// Registers `Link` under the names "0" to "length - 1", each resolving the next.
private func registerChain(of length: Int, in container: Container) {
    for index in 0..<length {
        container.register(Link.self, name: "\(index)") { r in
            Link(next: index + 1 < length ? try r.resolveThrows(Link.self, name: "\(index + 1)") : nil)
        }
    }
}

private func key(_ serviceType: Any.Type, _ name: String? = nil) -> ServiceKey {
    ServiceKey(serviceType: serviceType, name: name)
}

@Suite("Soundness of the engine", .tags(.concurrency, .engine), .hangLimit)
struct SoundnessTests {
    // MARK: 1. Publication: in the table when `register` returns; batches whole through withContainer

    @Test("Registrations made inside withContainer are seen whole by a thread that resolves meanwhile")
    func withContainerPublishesABatchWhole() throws {
        let made = Counter()
        let completed = Counter()
        let seen = Box<Part?>(nil)
        let container = Container()
        let resolver = container.synchronize()
        let resolved = DispatchSemaphore(value: 0)
        let finishedInsideTheBatch = Counter()
        container.addBehavior(
            RegistrationHook {
                // Another thread resolves while the batch is being registered: it waits for the batch.
                Thread {
                    seen.mutate { $0 = resolver.resolve(Part.self) }
                    resolved.signal()
                }.start()
                // Give it time to get in before the chained scope: it must not, since the batch holds the
                // lock (without it, the thread resolves the registration with its default scope now).
                if resolved.wait(timeout: .now() + 1) == .success {
                    finishedInsideTheBatch.increment()
                    resolved.signal()
                }
            }
        )
        resolver.withContainer { c in
            c.register(Part.self) { _ in
                made.increment()
                return Part()
            }
            .inObjectScope(.container)
            .initCompleted { _, _ in completed.increment() }
        }
        #expect(resolved.wait(timeout: .now() + 60) == .success)
        #expect(finishedInsideTheBatch.count == 0, "the other thread waited for the batch")
        let mine = try resolver.resolveThrows(Part.self)
        #expect(seen.value === mine, "the other thread got the one .container instance")
        #expect(made.count == 1, "the .container factory runs once")
        #expect(completed.count == 1, "the singleton completed its initCompleted")
    }

    @Test("Without withContainer, a resolve between register and its chain sees the defaults, as in Swinject")
    func aResolveBeforeTheChainSeesTheDefaults() throws {
        let made = Counter()
        let seen = Box<Part?>(nil)
        let container = Container()
        let resolver = container.synchronize()
        container.addBehavior(
            RegistrationHook {
                // `register` has put the entry in the table: a thread that resolves now finds it.
                let done = DispatchSemaphore(value: 0)
                Thread {
                    seen.mutate { $0 = resolver.resolve(Part.self) }
                    done.signal()
                }.start()
                done.wait()
            }
        )
        container.register(Part.self) { _ in
            made.increment()
            return Part()
        }
        .inObjectScope(.container)
        #expect(seen.value != nil, "the registration was visible when register returned")
        let first = try resolver.resolveThrows(Part.self)
        #expect(first !== seen.value, "the early resolve ran in the default .graph scope, so nothing was kept")
        #expect(try resolver.resolveThrows(Part.self) === first, "the chained scope applied at once")
        #expect(made.count == 2)
    }

    @Test("A registration whose entry is kept in a variable is visible to other threads at once")
    func aKeptEntryIsVisible() {
        let container = Container()
        let resolver = container.synchronize()
        let entry = container.register(Part.self) { _ in Part() }.inObjectScope(.container)
        let seen = Box<Bool>(false)
        let done = DispatchSemaphore(value: 0)
        Thread {
            seen.mutate { $0 = resolver.resolve(Part.self) != nil }
            done.signal()
        }.start()
        #expect(done.wait(timeout: .now() + 60) == .success)
        #expect(seen.value)
        withExtendedLifetime(entry) {}
    }

    @Test("A child's forward of a parent's new registration is the child's, not the parent's")
    func aChildsForwardStaysInTheChild() {
        let parent = Container()
        let child = Container(parent: parent)
        let views = (parent: parent.synchronize(), child: child.synchronize())
        let dog = parent.register(Dog.self) { _ in Dog(name: "Rex") }
        child.forward(Animal.self, to: dog)
        #expect(views.child.resolve(Animal.self) != nil)
        #expect(views.parent.resolve(Animal.self) == nil, "the parent never sees a child's registrations")
        #expect(parent.hasAnyRegistration(of: Animal.self) == false)
    }

    @Test("Registering in a child that is then released leaves the hierarchy usable")
    func aReleasedChildsRegistrationsGoWithIt() {
        let parent = Container()
        let view = parent.synchronize()
        weak var released: Container?
        do {
            let child = Container(parent: parent)
            released = child
            child.register(Part.self) { _ in Part() }.inObjectScope(.container)
            #expect(child.synchronize().resolve(Part.self) != nil)
        }
        #expect(released == nil)
        #expect(view.resolve(Part.self) == nil)
        parent.register(Part.self) { _ in Part() }
        #expect(view.resolve(Part.self) != nil)
    }

    @Test("A registration made on another thread is visible once that thread's statement has ended")
    func registrationFromAnotherThreadBecomesVisible() {
        let container = Container()
        let resolver = container.synchronize()
        nonisolated(unsafe) let registering = container
        let done = DispatchSemaphore(value: 0)
        Thread {
            registering.register(Part.self) { _ in Part() }.inObjectScope(.container)
            done.signal()
        }.start()
        done.wait()
        #expect(resolver.resolve(Part.self) != nil)
    }

    @Test("The registering thread sees its own registration at once, and a replaced instance goes when it does")
    func registeringThreadSeesItsOwnRegistration() {
        let container = Container()
        let resolver = container.synchronize()
        container.register(Part.self) { _ in Part() }.inObjectScope(.container)
        weak let first = resolver.resolve(Part.self)
        #expect(first != nil)
        let replacementRuns = Counter()
        container.register(Part.self) { _ in
            replacementRuns.increment()
            return Part()
        }.inObjectScope(.container)
        let second = resolver.resolve(Part.self)
        #expect(second != nil)
        #expect(replacementRuns.count == 1, "the resolve ran the new registration's factory")
        #expect(first == nil)
    }

    @Test("A container deallocated while a registration of its is still pending goes cleanly")
    func containerWithPendingRegistrationDeallocates() {
        var container: Container? = Container()
        _ = container?.synchronize()  // shared: registrations are published whole from now on
        // The entry is held, so the registration stays pending when the container goes.
        let entry = container?.register(Part.self) { _ in Part() }
        weak let weakContainer = container
        container = nil
        #expect(weakContainer == nil)
        withExtendedLifetime(entry) {}
    }

    // MARK: 2. A failed initCompleted leaves nothing behind

    @Test(
        "An instance whose initCompleted threw is not reused in the same graph",
        arguments: [ObjectScope.graph, .weak]
    )
    func failedInitCompletedIsNotReused(scope: ObjectScope) throws {
        let made = Counter()
        let container = Container()
        container.register(Part.self) { _ in
            made.increment()
            return Part()
        }
        .inObjectScope(scope)
        .initCompleted { _, _ in throw Failure() }
        container.register(Gadget.self) { r in
            Gadget(first: try? r.resolveThrows(Part.self), second: try? r.resolveThrows(Part.self))
        }
        let gadget = try container.resolveThrows(Gadget.self)
        #expect(gadget.first == nil)
        #expect(gadget.second == nil, "the half-built Part must not come back as a success")
        #expect(made.count == 2)
    }

    // MARK: 3. Recursion with other arguments is not a cycle

    @Test(
        "A registration that resolves itself with other arguments builds a tree",
        arguments: [ObjectScope.transient, .graph]
    )
    func recursionWithOtherArgumentsIsNotACycle(scope: ObjectScope) throws {
        let container = Container()
        container.register(Node.self) { (r, depth: Int) in
            Node(depth: depth, children: depth == 0 ? [] : [try r.resolveThrows(Node.self, argument: depth - 1)])
        }
        .inObjectScope(scope)
        var node: Node? = try container.resolveThrows(Node.self, argument: 3)
        var depths: [Int] = []
        while let current = node {
            depths.append(current.depth)
            node = current.children.first
        }
        #expect(depths == [3, 2, 1, 0])
    }

    @Test("Resolving a registration again with the same arguments is a cycle")
    func recursionWithTheSameArgumentsIsACycle() {
        let container = Container()
        container.register(Node.self) { (r, depth: Int) in
            Node(depth: depth, children: [try r.resolveThrows(Node.self, argument: depth)])
        }
        let node = ServiceKey(serviceType: Node.self, argumentsType: Int.self)
        #expect(throws: DIError.circularDependency(path: [node, node])) {
            try container.resolveThrows(Node.self, argument: 1)
        }
    }

    @Test("Arguments that are not Equatable are the same when they are the same object")
    func objectArgumentsCompareByIdentity() {
        let container = Container()
        container.register(Link.self) { (r, token: Token) in
            Link(next: try r.resolveThrows(Link.self, argument: token))
        }
        let link = ServiceKey(serviceType: Link.self, argumentsType: Token.self)
        #expect(throws: DIError.circularDependency(path: [link, link])) {
            try container.resolveThrows(Link.self, argument: Token())
        }
    }

    // MARK: 4. Names compare by canonical equivalence everywhere

    @Test("Canonically equivalent names are one name, however many registrations a type has")
    func canonicallyEquivalentNames() throws {
        let composed = "caf\u{E9}"
        let decomposed = "cafe\u{301}"
        let kelvin = "\u{212A}"  // canonically equivalent to "K"
        for count in [1, 3, 20] {
            let container = Container()
            for index in 0..<count {
                container.register(Part.self, name: "part \(index)") { _ in Part() }
            }
            container.register(Part.self, name: composed) { _ in Part() }.inObjectScope(.container)
            container.register(Part.self, name: "K") { _ in Part() }.inObjectScope(.container)
            let registered = container.registeredCount()
            #expect(
                try container.resolveThrows(Part.self, name: decomposed)
                    === container.resolveThrows(Part.self, name: composed)
            )
            #expect(
                try container.resolveThrows(Part.self, name: kelvin) === container.resolveThrows(Part.self, name: "K")
            )
            container.register(Part.self, name: decomposed) { _ in Part() }
            #expect(container.registeredCount() == registered, "re-registering under an equivalent spelling replaces")
        }
    }

    // MARK: 5. Remembered graphs never mix registrations

    @Test("A remembered graph does not hand a new registration the instance of the one it replaced")
    func rememberedGraphsAreKeyedByRegistration() throws {
        let container = Container()
        container.register(Part.self) { _ in Part() }
        nonisolated(unsafe) var graph: GraphIdentifier?
        container.register(Gadget.self) { r in
            graph = try r.resolveThrows(GraphIdentifier.self)
            return Gadget(first: try r.resolveThrows(Part.self), second: nil)
        }
        let gadget = try container.resolveThrows(Gadget.self)
        let remembered = try #require(graph)
        let original = try #require(gadget.first)
        #expect(container.withObjectGraph(remembered) { $0.resolve(Part.self) } === original)
        // A new entry may be allocated where the replaced one was freed: whatever its address, the new
        // registration must make its own instance.
        for _ in 0..<50 {
            container.register(Part.self) { _ in Part() }
            let again = container.withObjectGraph(remembered) { $0.resolve(Part.self) }
            #expect(again !== original)
        }
    }

    // MARK: 6. A deinitializer that resolves cannot steal a call's failure

    @Test("A graph instance whose deinit resolves leaves the outer call's cycle with the outer call")
    func deinitResolvingDoesNotStealTheFailure() {
        let container = Container()
        let innerResult = Box<Quiet?>(nil)
        container.register(Quiet.self) { _ in Quiet() }
        container.register(Chicken.self) { r in Chicken(egg: r.resolve(Egg.self)) }
        container.register(Egg.self) { r in Egg(chicken: r.resolve(Chicken.self)) }
        container.register(Announcer.self) { [unowned container] _ in
            Announcer { innerResult.mutate { $0 = container.resolve(Quiet.self) } }
        }
        container.register(Outer.self) { r in
            _ = r.resolve(Announcer.self)  // a graph instance, dropped when the call ends
            _ = r.resolve(Chicken.self)  // a cycle, tolerated here
            return Outer()
        }
        let chicken = key(Chicken.self)
        let egg = key(Egg.self)
        #expect(throws: DIError.circularDependency(path: [chicken, egg, chicken])) {
            try container.resolveThrows(Outer.self)
        }
        #expect(innerResult.value != nil, "the deinit's own resolve succeeds")
    }

    // MARK: 7. Re-registration and forwarding

    @Test("Re-registering a key keeps the singleton that a forwarded type still reaches, as Swinject does")
    func reRegistrationKeepsTheForwardedSingleton() throws {
        let container = Container()
        container.register(Dog.self) { _ in Dog(name: "first") }.inObjectScope(.container).implements(Animal.self)
        let first = try container.resolveThrows(Animal.self)
        container.register(Dog.self) { _ in Dog(name: "second") }.inObjectScope(.container)
        #expect(try container.resolveThrows(Animal.self) as AnyObject === first as AnyObject)
        #expect(try container.resolveThrows(Dog.self).name == "second")

        // The entry reached only through forwarding is reset too.
        container.resetObjectScope(.container)
        #expect(try container.resolveThrows(Animal.self) as AnyObject !== first as AnyObject)
    }

    @Test("resetObjectScope(_:serviceType:) follows forwarded types and leaves ancestors alone without a match")
    func resetByServiceTypeAsSwinject() throws {
        let parent = Container()
        parent.register(Dog.self) { _ in Dog(name: "Rex") }.inObjectScope(.container).implements(Animal.self)
        let child = Container(parent: parent)
        let dog = try child.resolveThrows(Dog.self)

        child.resetObjectScope(.container, serviceType: Dog.self)
        #expect(try child.resolveThrows(Dog.self) === dog, "the child has no Dog: the parent is left alone")

        parent.resetObjectScope(.container, serviceType: Animal.self)
        #expect(try child.resolveThrows(Dog.self) !== dog, "the forwarded type resets the registration")
    }

    // MARK: 8. Value types are never shared within a graph

    @Test("A value type's factory runs on every resolve in .graph and .weak", arguments: [ObjectScope.graph, .weak])
    func valueTypesAreNotSharedInAGraph(scope: ObjectScope) throws {
        let made = Counter()
        let container = Container()
        container.register(Animal.self) { _ in
            made.increment()
            return Turtle(name: "Shelly")
        }
        .inObjectScope(scope)
        container.register(Owner.self) { r in
            let owner = Owner()
            owner.pet = try r.resolveThrows(Animal.self)
            _ = try r.resolveThrows(Animal.self)
            return owner
        }
        _ = try container.resolveThrows(Owner.self)
        #expect(made.count == 2)
    }

    // MARK: 9. The number of arguments is part of the key

    @Test("One tuple argument and two arguments are two registrations; so are one Void argument and none")
    func arityIsPartOfTheKey() throws {
        let container = Container()
        container.register(String.self) { (_, pair: (Int, Int)) in "pair \(pair.0),\(pair.1)" }
        container.register(String.self) { (_, first: Int, second: Int) in "two \(first),\(second)" }
        container.register(String.self) { _ in "none" }
        container.register(String.self) { (_, _: Void) in "void" }
        #expect(container.registeredCount() == 4)
        #expect(try container.resolveThrows(String.self, argument: (1, 2)) == "pair 1,2")
        #expect(try container.resolveThrows(String.self, arguments: 1, 2) == "two 1,2")
        #expect(try container.resolveThrows(String.self) == "none")
        #expect(try container.resolveThrows(String.self, argument: ()) == "void")
        #expect(
            ServiceKey(serviceType: String.self, argumentsType: (Int, Int).self, argumentCount: 1).description
                == "String with arguments ((Int, Int))"
        )
        #expect(ServiceKey(serviceType: String.self, argumentsType: (Int, Int).self).argumentCount == 2)
    }

    // MARK: 10. The depth limit has its own error, and stays within a small stack

    @Test("An acyclic chain deeper than the limit fails with depthLimitExceeded, not a cycle")
    func depthLimitIsNotACycle() throws {
        let container = Container()
        registerChain(of: 300, in: container)
        let error = try #require(throws: DIError.self) {
            try container.resolveThrows(Link.self, name: "0")
        }
        guard case .depthLimitExceeded(let path, let limit) = error else {
            Issue.record("expected depthLimitExceeded, got \(error)")
            return
        }
        // The fixed limit, or less where the thread's stack is smaller (sanitizers make frames larger).
        #expect(limit <= ResolutionState.maximumDepth)
        #expect(path == (0...limit).map { key(Link.self, "\($0)") }, "the chain, with no key repeated")
        #expect(error.description.contains("deeper than \(limit) levels"))
    }

    @Test(
        "On a thread with a 512 KiB stack, a chain fails cleanly where the stack runs short, and a shorter one resolves",
        .tags(.deepStack)
    )
    func depthLimitProtectsASmallStack() {
        let container = Container()
        let length = 300
        registerChain(of: length, in: container)
        nonisolated(unsafe) let shared = container
        let reached = Box<Int>(0)
        let shorter = Box<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            // The whole chain: deeper than a small stack allows, so it fails with its own error.
            do {
                _ = try shared.resolveThrows(Link.self, name: "0")
            } catch {
                if case .depthLimitExceeded(let path, let limit)? = error as? DIError {
                    reached.mutate { $0 = path.count == limit + 1 ? limit : -1 }
                }
            }
            // Just under the depth the stack allowed: it resolves.
            let start = length - (reached.value - 1)
            var link = shared.resolve(Link.self, name: "\(start)")
            var count = 0
            while let current = link {
                count += 1
                link = current.next
            }
            shorter.mutate { $0 = count }
            done.signal()
        }
        thread.stackSize = 512 * 1024
        thread.start()
        done.wait()
        #expect(reached.value > 20, "a 512 KiB stack holds at least 20 levels in a debug build")
        #expect(shorter.value == reached.value - 1)
    }

    // MARK: 12. A unique instance may ask for the shared one

    @Test("A .unique resolve whose initCompleted needs the shared instance of the same registration gets it")
    func uniqueMayAskForTheShared() throws {
        final class Session {
            var peer: Session?
        }
        let container = Container()
        container.register(Session.self) { _ in Session() }
            .inObjectScope(.container)
            .initCompleted { r, session in session.peer = r.resolve(Session.self) }
        let unique = try container.resolveNew(Session.self, name: nil, resolver: container)
        let shared = try container.resolveThrows(Session.self)
        #expect(unique !== shared)
        #expect(unique.peer === shared)
        #expect(shared.peer === shared)
    }

    // MARK: 13. Smaller ones

    @Test("withObjectGraph reports a cycle found under a resolve as that resolve's failure")
    func withObjectGraphKeepsFailures() {
        let container = Container()
        container.register(Chicken.self) { r in Chicken(egg: r.resolve(Egg.self)) }
        container.register(Egg.self) { r in Egg(chicken: r.resolve(Chicken.self)) }
        container.register(Outer.self) { r in
            _ = r.resolve(Chicken.self)  // tolerates the cycle's nil
            return Outer()
        }
        let outer = container.withObjectGraph(GraphIdentifier()) { $0.resolve(Outer.self) }
        #expect(outer == nil, "the cycle fails the resolve that met it")
    }

    @Test("A deinit that registers while removeAll runs leaves a consistent table")
    func removeAllSurvivesRegisteringDeinit() {
        let container = Container()
        do {
            // Only the factory holds the announcer: removeAll releases it.
            let announcer = Announcer { [unowned container] in
                container.register(Quiet.self) { _ in Quiet() }
            }
            container.register(Part.self) { _ in
                withExtendedLifetime(announcer) {}
                return Part()
            }
        }
        container.removeAll()
        #expect(container.registeredCount() == 1)
        #expect(container.resolve(Quiet.self) != nil)
        #expect(container.resolve(Part.self) == nil)
    }

    @Test("One graph identifier used with two hierarchies on two threads stays consistent")
    func graphIdentifierAcrossHierarchies() async {
        let graph = GraphIdentifier()
        let outcomes = await withTaskGroup(of: (kept: ObjectIdentifier?, allTheSame: Bool).self) { group in
            for _ in 0..<2 {
                group.addTask {
                    let container = Container()
                    container.register(Part.self) { _ in Part() }
                    // Held for the whole loop: the graph hands this very instance back to every resolve in it.
                    let kept = container.withObjectGraph(graph) { $0.resolve(Part.self) }
                    var allTheSame = kept != nil
                    for _ in 0..<500 {
                        let again = container.withObjectGraph(graph) { $0.resolve(Part.self) }
                        allTheSame = allTheSame && again === kept
                    }
                    return (kept.map(ObjectIdentifier.init), allTheSame)
                }
            }
            var outcomes: [(kept: ObjectIdentifier?, allTheSame: Bool)] = []
            for await outcome in group {
                outcomes.append(outcome)
            }
            return outcomes
        }
        #expect(outcomes.count == 2)
        #expect(outcomes.allSatisfy { $0.allTheSame }, "each hierarchy finds its own instance in the shared graph")
    }
}
