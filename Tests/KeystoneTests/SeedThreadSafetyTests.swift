import Dispatch
import Keystone
import Testing

private protocol SomeType: Sendable {}
private final class SomeImplementation: SomeType {}

/// The examples of the thread safety guide, in Swift 6: the queues are `DispatchQueue.global()` and
/// task groups, and the shared resolver keeps a `Sendable` type.
@Suite("The thread safety guide's examples", .tags(.concurrency), .hangLimit)
struct SeedThreadSafetyTests {
    @Test("A synchronized view shared by concurrent queue work items")
    func sharedView() {
        let container = Container()
        container.register(SomeType.self) { _ in SomeImplementation() }

        let threadSafeContainer: any Resolver & Sendable = container.synchronize()

        let resolved = Counter()
        let group = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                let resolvedInstance = threadSafeContainer.resolve(SomeType.self)
                if resolvedInstance is SomeImplementation { resolved.increment() }
            }
        }
        group.wait()
        #expect(resolved.count == 4)
    }

    @Test("Parent and child views used concurrently")
    func parentAndChildViews() async {
        let parentContainer = Container()
        parentContainer.register(SomeType.self) { _ in SomeImplementation() }

        let parentResolver = parentContainer.synchronize()
        let childResolver = Container(parent: parentContainer).synchronize()

        let resolved = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let instanceFromParent = parentResolver.resolve(SomeType.self)
                    return instanceFromParent != nil
                }
                group.addTask {
                    let instanceFromChild = childResolver.resolve(SomeType.self)
                    return instanceFromChild != nil
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(resolved == 8)
    }
}
