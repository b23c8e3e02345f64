// The lifetime scenarios (issue: lifetimes): `resolveAll` of 10 services, a `.multiton` hit, and a
// per-request child container (create, resolve 5 services, dispose). Swinject has none of them; the
// baseline is the hand-written code an app writes instead.

import Benchmark
import Foundation
import Keystone

/// One implementation of every lifetime scenario.
protocol LifetimeSuite {
    static var name: String { get }
    /// 25. Ten transient registrations of one protocol under ten names, resolved at once.
    static func resolveAllTen() -> MeasuredLoop
    /// 26. A `.multiton` registration taking an `Int`, resolved with a value whose instance exists.
    static func multitonHit() -> MeasuredLoop
    /// 27. A request scope: a child of the app container, 5 request services registered in it (one of
    /// them with a disposal handler), resolved (each needing an app singleton), then disposed.
    static func requestScope() -> MeasuredLoop
}

var lifetimeScenarios: [(name: String, loop: (any LifetimeSuite.Type) -> MeasuredLoop)] {
    [
        ("25 resolveAll of 10 services", { $0.resolveAllTen() }),
        ("26 .multiton hit (Int argument)", { $0.multitonHit() }),
        ("27 request scope: child container, 5 resolves, dispose", { $0.requestScope() }),
    ]
}

var lifetimeSuites: [any LifetimeSuite.Type] { [KeystoneLifetimes.self, BaselineLifetimes.self] }

/// A service of the request scope: made from the app's shared service.
final class RequestService {
    let shared: PlainService
    var disposed = false
    init(shared: PlainService) { self.shared = shared }
}

enum KeystoneLifetimes: LifetimeSuite {
    static let name = "Keystone"

    static func resolveAllTen() -> MeasuredLoop {
        let container = Container()
        for index in 0..<10 {
            container.register((any Service).self, name: "plugin \(index)") { _ in PlainService() }
                .inObjectScope(.transient)
        }
        check(container.resolveAll((any Service).self).count == 10, "ten services")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolveAll((any Service).self))
            }
        }
    }

    static func multitonHit() -> MeasuredLoop {
        let container = Container()
        container.register((any Service).self) { (_, _: Int) in PlainService() }.inObjectScope(.multiton)
        let first = container.resolve((any Service).self, argument: 7)
        check(first != nil && first === container.resolve((any Service).self, argument: 7), "the kept instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(container.resolve((any Service).self, argument: 7))
            }
        }
    }

    static func requestScope() -> MeasuredLoop {
        let app = Container()
        app.register(PlainService.self) { _ in PlainService() }.inObjectScope(.container)
        // The names are made once, as the baseline's are: making them is not the container's work.
        let names = (0..<5).map { "service \($0)" }
        func handle() -> Int {
            let request = Container(parent: app)
            for index in 0..<5 {
                let entry = request.register(RequestService.self, name: names[index]) { r in
                    RequestService(shared: r.resolve(PlainService.self)!)
                }
                .inObjectScope(.container)
                if index == 0 {
                    entry.onDispose { $0.disposed = true }
                }
            }
            var made = 0
            for name in names where request.resolve(RequestService.self, name: name) != nil {
                made += 1
            }
            try? request.dispose()
            return made
        }
        check(handle() == 5, "five request services")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(handle())
            }
        }
    }
}

enum BaselineLifetimes: LifetimeSuite {
    static let name = "Baseline"

    /// An array of ten factories, called in order.
    static func resolveAllTen() -> MeasuredLoop {
        let factories: [() -> any Service] = (0..<10).map { _ in { PlainService() } }
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(factories.map { $0() })
            }
        }
    }

    /// A dictionary of instances keyed by the argument.
    static func multitonHit() -> MeasuredLoop {
        var instances: [Int: any Service] = [:]
        func resolve(_ argument: Int) -> any Service {
            if let kept = instances[argument] {
                return kept
            }
            let made = PlainService()
            instances[argument] = made
            return made
        }
        check(resolve(7) === resolve(7), "the kept instance")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(resolve(7))
            }
        }
    }

    /// The same request scope by hand: a dictionary of the request's instances by name, filled from
    /// factories that use the app's shared service, then the disposal handler and the dictionary dropped.
    static func requestScope() -> MeasuredLoop {
        let shared = PlainService()
        let names = (0..<5).map { "service \($0)" }
        func handle() -> Int {
            var factories: [String: () -> RequestService] = [:]
            for name in names {
                factories[name] = { RequestService(shared: shared) }
            }
            var instances: [String: RequestService] = [:]
            for name in names {
                if let made = factories[name]?() {
                    instances[name] = made
                }
            }
            instances[names[0]]?.disposed = true
            let made = instances.count
            instances.removeAll()
            return made
        }
        check(handle() == 5, "five request services")
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(handle())
            }
        }
    }
}
