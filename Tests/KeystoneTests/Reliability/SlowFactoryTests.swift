import Foundation
import Keystone
import Testing

/// A service that takes 100 ms to make.
private final class Warehouse: Sendable {
    init() {
        Thread.sleep(forTimeInterval: 0.1)
    }
}

private final class Catalogue: Sendable {
    let warehouse: Warehouse
    init(warehouse: Warehouse) { self.warehouse = warehouse }
}

/// The identities of the instances each thread got.
private final class Sightings: @unchecked Sendable {
    // @unchecked: `seen` is read and written only under `lock`.
    private let lock = NSLock()
    private var seen: [ObjectIdentifier] = []
    private var objects: [AnyObject] = []

    func note(_ object: AnyObject?) {
        lock.lock()
        if let object {
            seen.append(ObjectIdentifier(object))
            objects.append(object)  // kept alive, so that identities cannot be reused
        }
        lock.unlock()
    }

    var identities: [ObjectIdentifier] {
        lock.lock()
        defer { lock.unlock() }
        return seen
    }
}

extension Reliability {
    /// A slow factory resolved by many threads at once: it runs once, and everyone gets its instance.
    /// No assertion depends on how long anything takes; the 100 ms only makes the threads overlap.
    @Suite("Slow factories under contention", .tags(.concurrency), .hangLimit)
    struct SlowFactoryTests {
        static let threads = 8

        @Test("A 100 ms .container factory resolved by 8 threads at once runs once, and all get its instance")
        func slowContainerFactoryRunsOnce() {
            let container = Container()
            let runs = Counter()
            container.register(Warehouse.self) { _ in
                runs.increment()
                return Warehouse()
            }.inObjectScope(.container)
            let view = container.synchronize()
            let sightings = Sightings()
            onThreads(Self.threads) { _ in
                sightings.note(view.resolve(Warehouse.self))
            }
            #expect(runs.count == 1)
            #expect(sightings.identities.count == Self.threads)
            #expect(Set(sightings.identities).count == 1)
            #expect(sightings.identities.first == view.resolve(Warehouse.self).map(ObjectIdentifier.init))
        }

        @Test("The same through the views of a parent and a child, by Lazy, Provider and a dependent service")
        func slowFactoryAcrossAHierarchy() throws {
            let parent = Container()
            let runs = Counter()
            parent.register(Warehouse.self) { _ in
                runs.increment()
                return Warehouse()
            }.inObjectScope(.container)
            let child = Container(parent: parent)
            child.register(Catalogue.self) { r in Catalogue(warehouse: try r.resolveThrows(Warehouse.self)) }
            let views = [parent.synchronize(), child.synchronize()]
            let sightings = Sightings()
            let failures = Counter()
            onThreads(Self.threads) { index in
                let view = views[index % 2]
                do {
                    switch index % 4 {
                    case 0: sightings.note(try view.resolveThrows(Lazy<Warehouse>.self).get())
                    case 1: sightings.note(try view.resolveThrows(Catalogue.self).warehouse)
                    case 2: sightings.note(try view.resolveThrows(Provider<Warehouse>.self).get())
                    default: sightings.note(try view.resolveThrows(Warehouse.self))
                    }
                } catch {
                    failures.increment()
                }
            }
            #expect(failures.count == 0, "only the parent's view lacks Catalogue, and it never asks for it")
            #expect(runs.count == 1)
            #expect(sightings.identities.count == Self.threads)
            #expect(Set(sightings.identities).count == 1)
        }

        @Test("A 100 ms .weak factory resolved by 8 threads at once, each holding the result, runs once")
        func slowWeakFactoryRunsOnceWhileHeld() {
            let container = Container()
            let runs = Counter()
            container.register(Warehouse.self) { _ in
                runs.increment()
                return Warehouse()
            }.inObjectScope(.weak)
            let view = container.synchronize()
            let sightings = Sightings()
            // Nothing is resolved before the threads start, so they all race for the first creation; each
            // keeps what it got (`Sightings` holds it), so the instance lives until the test ends.
            onThreads(Self.threads) { _ in
                sightings.note(view.resolve(Warehouse.self))
            }
            #expect(runs.count == 1)
            #expect(sightings.identities.count == Self.threads)
            #expect(Set(sightings.identities).count == 1)
        }

        @Test("Registering while a slow factory runs waits for it, and loses nothing")
        func registeringDuringASlowFactory() {
            let container = Container()
            let runs = Counter()
            container.register(Warehouse.self) { _ in
                runs.increment()
                return Warehouse()
            }.inObjectScope(.container)
            let view = container.synchronize()
            let sightings = Sightings()
            nonisolated(unsafe) let registrar = container  // registering takes the hierarchy's lock
            onThreads(Self.threads) { index in
                if index == 0 {
                    for number in 0..<20 {
                        registrar.register(Catalogue.self, name: "c\(number)") { r in
                            Catalogue(warehouse: try r.resolveThrows(Warehouse.self))
                        }
                    }
                } else {
                    sightings.note(view.resolve(Warehouse.self))
                }
            }
            #expect(runs.count == 1)
            #expect(Set(sightings.identities).count == 1)
            for number in 0..<20 {
                #expect(view.resolve(Catalogue.self, name: "c\(number)")?.warehouse === view.resolve(Warehouse.self))
            }
        }
    }
}
