import Dispatch
import Foundation
import Keystone
import Testing

// Main-actor factories: run in place on the main actor, on the main actor through `resolveAsync` from
// anywhere, and never a trap for a synchronous resolve off the main actor.

@MainActor
private final class ScreenModel {
    let title: String
    init(title: String) { self.title = title }
}

/// Records, from inside a main-actor factory, that it ran isolated to the main actor: the check stops the
/// program if it did not, so a passing test proves it.
@MainActor
private func madeOnTheMainActor(_ runs: Counter) {
    MainActor.preconditionIsolated()
    runs.increment()
}

@Suite("Main-actor factories", .tags(.concurrency), .hangLimit)
struct MainActorFactoryTests {
    @Test @MainActor
    func onTheMainActorEveryResolveRunsTheFactoryInPlace() async throws {
        let container = Container()
        let runs = Counter()
        container.register(
            ScreenModel.self,
            mainActorFactory: { _ in
                madeOnTheMainActor(runs)
                return ScreenModel(title: "Home")
            }
        )
        #expect(container.resolve(ScreenModel.self)?.title == "Home")
        #expect(try await container.resolveAsync(ScreenModel.self).title == "Home")
        #expect(runs.count == 2)
    }

    @Test func aDetachedTasksResolveAsyncRunsTheFactoryOnTheMainActor() async throws {
        let container = Container()
        let runs = Counter()
        container.register(
            ScreenModel.self,
            mainActorFactory: { _ in
                madeOnTheMainActor(runs)
                return ScreenModel(title: "Detail")
            }
        )
        let resolver = container.synchronize()
        let title = try await Task.detached { () throws(DIError) -> String in
            try await resolver.resolveAsync(ScreenModel.self).title
        }.value
        #expect(title == "Detail")
        #expect(runs.count == 1)
    }

    @Test func mainActorFactoriesTakeArguments() async throws {
        let container = Container()
        container.register(ScreenModel.self, mainActorFactory: { (_, title: String) in ScreenModel(title: title) })
        container.register(
            ScreenModel.self,
            mainActorFactory: { (_, title: String, count: Int) in
                ScreenModel(title: String(repeating: title, count: count))
            }
        )
        let resolver = container.synchronize()
        let titles = try await Task.detached { () throws(DIError) -> [String] in
            let one = try await resolver.resolveAsync(ScreenModel.self, argument: "A")
            let two = try await resolver.resolveAsync(ScreenModel.self, arguments: "B", 2)
            return [one.title, two.title]
        }.value
        #expect(titles == ["A", "BB"])
    }

    @Test func aSyncResolveOffTheMainActorFailsInsteadOfTrapping() async throws {
        let container = Container()
        container.register(ScreenModel.self, mainActorFactory: { _ in ScreenModel(title: "Settings") })
            .inObjectScope(.container)
        let resolver = container.synchronize()
        let failure = await Task.detached { () -> DIError? in
            do throws(DIError) {
                _ = try resolver.resolveThrows(ScreenModel.self)
                return nil
            } catch {
                return error
            }
        }.value
        #expect(failure == .mainActorRequired(key: ServiceKey(serviceType: ScreenModel.self), path: []))
        #expect(failure?.description.contains("resolveAsync") == true)
        // Once the `.container` instance exists, a synchronous resolve anywhere returns it.
        let made = try await Task.detached { () throws(DIError) -> ObjectIdentifier in
            ObjectIdentifier(try await resolver.resolveAsync(ScreenModel.self))
        }.value
        let later = await Task.detached { resolver.resolve(ScreenModel.self).map(ObjectIdentifier.init) }.value
        #expect(later == made)
    }

    @Test func verifyReportsASyncFactoryThatNeedsAMainActorService() {
        let container = Container()
        container.register(ScreenModel.self, mainActorFactory: { _ in ScreenModel(title: "Home") })
        container.register(String.self) { r in
            _ = try r.resolveThrows(ScreenModel.self)
            return "needs the model"
        }
        #expect(
            container.verify() == [
                .mainActorRequired(
                    key: ServiceKey(serviceType: ScreenModel.self),
                    path: [ServiceKey(serviceType: String.self)]
                )
            ]
        )
    }

    @Test func aTrailingClosureIsAlwaysTheSynchronousFactory() {
        let container = Container()
        container.register(String.self) { _ in "plain" }
        #expect(container.resolve(String.self) == "plain")
    }
}
