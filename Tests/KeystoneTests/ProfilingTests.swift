import Foundation
import Keystone
import Testing

private final class Screen {
    let model: Model
    init(model: Model) { self.model = model }
}

private final class Model {
    let store: Store
    init(store: Store) { self.store = store }
}

private final class Store {}
private final class Remote: Sendable {}
private final class Session: Sendable {
    let remote: Remote
    init(remote: Remote) { self.remote = remote }
}

private struct Broken: Error {}

@Suite("Creation profiles", .tags(.concurrency))
struct ProfilingTests {
    private func key<T>(_ type: T.Type) -> ServiceKey {
        ServiceKey(serviceType: type)
    }

    /// Screen (transient) -> Model (graph) -> Store (container), each factory busy for `busy`.
    private func screens(busy: TimeInterval = 0) -> Container {
        let container = Container()
        container.register(Store.self) { _ in
            Thread.sleep(forTimeInterval: busy)
            return Store()
        }
        .inObjectScope(.container)
        container.register(Model.self) { r in
            Thread.sleep(forTimeInterval: busy)
            return Model(store: r.resolve(Store.self)!)
        }
        container.register(Screen.self) { r in Screen(model: r.resolve(Model.self)!) }.inObjectScope(.transient)
        return container
    }

    @Test("Nested creations are recorded in start order, each inside the one that asked for it")
    func nestedCreations() throws {
        let container = screens(busy: 0.002)
        let (screen, profile) = container.profilingCreations { container.resolve(Screen.self) }
        #expect(screen != nil)
        #expect(profile.records.map(\.key) == [key(Screen.self), key(Model.self), key(Store.self)])
        #expect(profile.records.map(\.scope) == ["transient", "graph", "container"])
        #expect(profile.records.map(\.parent) == [nil, 0, 1])
        #expect(Set(profile.records.map(\.thread)).count == 1)
        let (screenRecord, model, store) = (profile.records[0], profile.records[1], profile.records[2])
        // Each includes the creations it caused; its own time leaves them out.
        #expect(screenRecord.duration >= model.duration)
        #expect(model.duration >= store.duration)
        #expect(store.duration >= .milliseconds(2))
        #expect(model.selfDuration >= .milliseconds(2))
        #expect(model.selfDuration <= model.duration - store.duration + .microseconds(1))
        #expect(screenRecord.selfDuration <= screenRecord.duration - model.duration + .microseconds(1))
        #expect(model.start >= screenRecord.start)
        #expect(store.start >= model.start)
    }

    @Test("Nothing is recorded outside the body, and a cached instance is no creation")
    func onlyInsideTheBody() {
        let container = screens()
        _ = container.resolve(Screen.self)
        let (_, profile) = container.profilingCreations { container.resolve(Screen.self) }
        // The store exists: only the screen and its model are made.
        #expect(profile.records.map(\.key) == [key(Screen.self), key(Model.self)])
        _ = container.resolve(Screen.self)
        #expect(profile.records.count == 2)
        let (_, empty) = container.profilingCreations { () }
        #expect(empty.records.isEmpty)
    }

    @Test("A factory that throws is recorded, and the error reaches the body")
    func failedCreation() {
        let container = Container()
        container.register(Store.self) { _ in throw Broken() }
        let (result, profile) = container.profilingCreations { () -> Result<Store, DIError> in
            Result { () throws(DIError) in try container.resolveThrows(Store.self) }
        }
        #expect(throws: DIError.self) { try result.get() }
        #expect(profile.records.map(\.key) == [key(Store.self)])
    }

    @Test("Creations of the whole hierarchy are recorded, through a child, a view and another thread")
    func wholeHierarchy() {
        let parent = Container()
        parent.register(Store.self) { _ in Store() }
        let child = Container(parent: parent)
        child.register(Model.self) { r in Model(store: r.resolve(Store.self)!) }
        let view = child.synchronize()
        let (_, profile) = parent.profilingCreations {
            let done = DispatchSemaphore(value: 0)
            let worker = Thread {
                _ = view.resolve(Model.self)
                done.signal()
            }
            worker.start()
            done.wait()
        }
        #expect(profile.records.map(\.key) == [key(Model.self), key(Store.self)])
        #expect(profile.records.map(\.parent) == [nil, 0])
    }

    @Test("A profile inside another takes the creations of its own body; the outer one resumes after")
    func nestedProfiles() {
        let container = Container()
        container.register(Store.self) { _ in Store() }
        container.register(Remote.self) { _ in Remote() }
        let (inner, outer) = container.profilingCreations { () -> CreationProfile in
            _ = container.resolve(Store.self)
            let inner = container.profilingCreations { container.resolve(Remote.self) }.profile
            _ = container.resolve(Store.self)
            return inner
        }
        #expect(inner.records.map(\.key) == [key(Remote.self)])
        #expect(outer.records.map(\.key) == [key(Store.self), key(Store.self)])
    }

    @Test("Async factories and what they resolve are recorded, nested", .timeLimit(.minutes(1)))
    func asyncCreations() async throws {
        let container = Container()
        container.registerAsync(Remote.self) { _ in
            try await Task.sleep(for: .milliseconds(3))
            return Remote()
        }
        .inObjectScope(.container)
        container.registerAsync(Session.self) { r in
            Session(remote: try await r.resolveAsync(Remote.self))
        }
        let view = container.synchronize()
        let (session, profile) = try await container.profilingCreations {
            try await view.resolveAsync(Session.self)
        }
        _ = session
        #expect(profile.records.map(\.key) == [key(Session.self), key(Remote.self)])
        #expect(profile.records.map(\.parent) == [nil, 0])
        #expect(profile.records.map(\.scope) == ["graph", "container"])
        #expect(profile.records[1].duration >= .milliseconds(3))
        #expect(profile.records[0].duration >= profile.records[1].duration)
        #expect(profile.records[0].selfDuration < profile.records[0].duration)
    }

    @Test("A synchronous factory an async one resolves is recorded inside it")
    func syncInsideAsync() async throws {
        let container = Container()
        container.register(Store.self) { _ in Store() }
        container.registerAsync(Model.self) { r in Model(store: try r.resolveThrows(Store.self)) }
        let (_, profile) = try await container.profilingCreations {
            try await container.resolveAsync(Model.self)
        }
        #expect(profile.records.map(\.key) == [key(Model.self), key(Store.self)])
        #expect(profile.records.map(\.parent) == [nil, 0])
    }

    @Test("The trace of a real profile is the JSON a trace viewer opens")
    func traceOfARealProfile() throws {
        let container = screens()
        let (_, profile) = container.profilingCreations { container.resolve(Screen.self) }
        let json = try JSONSerialization.jsonObject(with: Data(profile.chromeTrace.utf8)) as? [String: Any]
        let events = try #require(json?["traceEvents"] as? [[String: Any]])
        #expect(events.count == 3)
        #expect(events.allSatisfy { $0["ph"] as? String == "X" })
        #expect(profile.table().contains("Store"))
        #expect(profile.mermaidGantt.hasPrefix("gantt"))
    }
}
