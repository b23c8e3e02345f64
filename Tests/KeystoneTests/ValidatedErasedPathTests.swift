import Foundation
import Testing

@testable import Keystone

// A resolve made while scopes are validated (`validatesScopes`), or counted inside a call (a factory's
// resolve through its `any Resolver`), is served by the erased path when its key is registered directly
// (`Container.serveObserved`): checked for captive dependencies, counted when resolutions are counted,
// then resolved by the resolve compiled for its service. Everything else it meets (forwarded keys,
// wrappers, misses, graph identifiers) is left to the typed path.

private final class VEPStore {}
private final class VEPRequest {
    let store: VEPStore
    init(store: VEPStore) { self.store = store }
}
private protocol VEPNamed: AnyObject {}
private final class VEPThing: VEPNamed {}

/// The line of `statusReport()` that describes the registration of `type`.
private func reportLine(of type: Any.Type, in container: Container) -> Substring? {
    container.statusReport().split(separator: "\n").first { $0.hasPrefix("• \(type) ") }
}

@Suite("Validated and counted resolves on the erased path", .tags(.engine))
struct ValidatedErasedPathTests {
    @Test("Counted while validating: every resolve through a factory's resolver is counted once")
    func countsThroughFactoriesWhileValidating() throws {
        let container = Container()
        container.validatesScopes = true
        container.countsResolutions = true
        container.register(VEPStore.self) { _ in VEPStore() }.inObjectScope(.container)
        container.register(VEPRequest.self) { r in VEPRequest(store: r.resolve(VEPStore.self)!) }
        let view = container.synchronize()
        for _ in 0..<3 {
            #expect(view.resolve(VEPRequest.self) != nil)
        }
        #expect(reportLine(of: VEPRequest.self, in: container)?.contains("resolved 3 times") == true)
        #expect(reportLine(of: VEPStore.self, in: container)?.contains("resolved 3 times") == true)
    }

    @Test("Counted without validating: top-level and factory resolves are each counted once")
    func countsThroughFactoriesWithoutValidating() {
        let container = Container()
        container.countsResolutions = true
        container.register(VEPStore.self) { _ in VEPStore() }
        container.register(VEPRequest.self) { r in VEPRequest(store: r.resolve(VEPStore.self)!) }
        container.register(VEPThing.self) { r in
            _ = r.resolve(VEPRequest.self)
            _ = r.resolve(VEPStore.self)
            return VEPThing()
        }
        #expect(container.resolve(VEPThing.self) != nil)
        #expect(container.synchronize().resolve(VEPRequest.self) != nil)
        #expect(reportLine(of: VEPThing.self, in: container)?.contains("resolved 1 time") == true)
        #expect(reportLine(of: VEPRequest.self, in: container)?.contains("resolved 2 times") == true)
        #expect(reportLine(of: VEPStore.self, in: container)?.contains("resolved 3 times") == true)
    }

    @Test("Validating without counting leaves the counts at zero")
    func validatingAloneCountsNothing() {
        let container = Container()
        container.validatesScopes = true
        container.register(VEPStore.self) { _ in VEPStore() }
        container.register(VEPRequest.self) { r in VEPRequest(store: r.resolve(VEPStore.self)!) }
        #expect(container.resolve(VEPRequest.self) != nil)
        container.countsResolutions = true
        #expect(reportLine(of: VEPStore.self, in: container)?.contains("resolved 0 times") == true)
    }

    @Test("A captive dependency met through a factory's resolver fails the resolve, keeping nothing")
    func captiveThroughAnyResolver() {
        let app = Container()
        app.validatesScopes = true
        let request = Container(parent: app)
        request.register(VEPRequest.self) { _ in VEPRequest(store: VEPStore()) }.inObjectScope(.container)
        // The app's singleton needs a request's service: a captive dependency.
        app.register(VEPStore.self) { r in
            _ = r.resolve(VEPRequest.self)
            return VEPStore()
        }
        .inObjectScope(.container)
        let view = request.synchronize()
        #expect(throws: DIError.self) { try view.resolveThrows(VEPStore.self) }
        #expect(app.statusReport().contains("instance held") == false)
    }

    @Test("Forwarded keys, wrappers and misses still resolve on the typed path while validating")
    func typedPathCasesWhileValidating() throws {
        let container = Container()
        container.validatesScopes = true
        container.register(VEPThing.self) { _ in VEPThing() }.implements(VEPNamed.self)
        container.register(VEPStore.self) { _ in VEPStore() }
        container.register(VEPRequest.self) { r in
            let lazy = r.resolve(Lazy<VEPStore>.self)
            #expect(r.resolve((any VEPNamed).self) != nil, "a forwarded key")
            #expect(r.resolve(Int.self) == nil, "a miss")
            return VEPRequest(store: lazy!.instance)
        }
        let view = container.synchronize()
        #expect(view.resolve(VEPRequest.self) != nil)
        #expect(throws: DIError.self) { try view.resolveThrows(String.self) }
    }

    @Test("Turning validation off mid-resolve: the rest of the call is neither checked nor counted twice")
    func validationTurnedOffInsideAFactory() {
        let container = Container()
        container.validatesScopes = true
        container.countsResolutions = true
        container.register(VEPStore.self) { _ in VEPStore() }
        container.register(VEPRequest.self) { r in
            container.validatesScopes = false
            return VEPRequest(store: r.resolve(VEPStore.self)!)
        }
        #expect(container.resolve(VEPRequest.self) != nil)
        #expect(reportLine(of: VEPRequest.self, in: container)?.contains("resolved 1 time") == true)
        #expect(reportLine(of: VEPStore.self, in: container)?.contains("resolved 1 time") == true)
    }
}
