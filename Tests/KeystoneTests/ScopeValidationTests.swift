import Keystone
import Testing

private protocol Session: AnyObject, Sendable {
    var user: String { get }
}

private final class GuestSession: Session {
    let user = "guest"
}

private final class UserSession: Session {
    let user: String
    init(user: String) { self.user = user }
}

private final class Cart: Sendable {
    let session: any Session
    init(session: any Session) { self.session = session }
}

private final class Checkout: Sendable {
    let cart: Cart
    init(cart: Cart) { self.cart = cart }
}

private final class Pricing: Sendable {
    let session: (any Session)?
    init(session: (any Session)?) { self.session = session }
}

@Suite("Captive dependencies")
struct ScopeValidationTests {
    private func key<T>(_ type: T.Type) -> ServiceKey {
        ServiceKey(serviceType: type)
    }

    /// The app's container keeps a cart made from the session; a request's child overrides the session.
    private func appAndRequest(cartScope: ObjectScope = .container) -> (app: Container, request: Container) {
        let app = Container()
        app.register((any Session).self) { _ in GuestSession() }
        app.register(Cart.self) { r in Cart(session: r.resolve((any Session).self)!) }.inObjectScope(cartScope)
        let request = Container(parent: app)
        request.register((any Session).self) { _ in UserSession(user: "ada") }
        return (app, request)
    }

    @Test("Off by default: the parent's singleton keeps the child's override, as in Swinject")
    func offByDefault() {
        let (app, request) = appAndRequest()
        #expect(app.validatesScopes == false)
        #expect(request.resolve(Cart.self)?.session.user == "ada")
    }

    @Test("On: the resolve fails naming the holder, the captured key and the path, and keeps nothing")
    func classicCase() throws {
        let (app, request) = appAndRequest()
        app.validatesScopes = true
        #expect(request.validatesScopes)
        #expect(
            throws: DIError.captiveDependency(
                key: key(Cart.self),
                captured: key((any Session).self),
                path: [key(Cart.self), key((any Session).self)]
            )
        ) {
            try request.resolveThrows(Cart.self)
        }
        // Nothing was kept: resolved where it belongs, the cart gets the app's session.
        #expect(app.resolve(Cart.self)?.session.user == "guest")
        // Once made, the kept cart is no capture.
        #expect(request.resolve(Cart.self)?.session.user == "guest")
        let message = DIError.captiveDependency(key: key(Cart.self), captured: key((any Session).self), path: [])
            .description
        #expect(message.contains("Cart") && message.contains("Session"))
    }

    @Test("Through instances made during the creation, and through a factory that tolerates the failure")
    func transitiveAndTolerated() throws {
        let app = Container()
        app.register((any Session).self) { _ in GuestSession() }
        app.register(Cart.self) { r in Cart(session: r.resolve((any Session).self)!) }.inObjectScope(.transient)
        app.register(Checkout.self) { r in Checkout(cart: r.resolve(Cart.self)!) }.inObjectScope(.container)
        app.register(Pricing.self) { r in Pricing(session: try? r.resolveThrows((any Session).self)) }
            .inObjectScope(.container)
        let request = Container(parent: app)
        request.register((any Session).self) { _ in UserSession(user: "ada") }
        app.validatesScopes = true
        #expect(
            throws: DIError.captiveDependency(
                key: key(Checkout.self),
                captured: key((any Session).self),
                path: [key(Checkout.self), key(Cart.self), key((any Session).self)]
            )
        ) {
            try request.resolveThrows(Checkout.self)
        }
        // A factory that swallows the error does not get its instance kept: the call fails.
        #expect(throws: DIError.self) { try request.resolveThrows(Pricing.self) }
        #expect(app.resolve(Pricing.self)?.session?.user == "guest")
    }

    @Test("No false positives: shorter scopes, the child's own singletons, the parent's own dependencies")
    func noFalsePositives() throws {
        let (app, request) = appAndRequest(cartScope: .transient)
        request.register(Checkout.self) { r in Checkout(cart: r.resolve(Cart.self)!) }.inObjectScope(.container)
        app.register(Pricing.self) { _ in Pricing(session: nil) }.inObjectScope(.container)
        let grandchild = Container(parent: request)
        app.validatesScopes = true
        // A transient cart is not kept: it may use the request's session.
        #expect(try request.resolveThrows(Cart.self).session.user == "ada")
        // The request's own singleton, from the request: same container.
        #expect(try request.resolveThrows(Checkout.self).cart.session.user == "ada")
        // A parent's singleton whose dependencies are all the parent's, resolved from below.
        #expect(try grandchild.resolveThrows(Pricing.self).session == nil)
        #expect(request.verify().isEmpty)
    }

    @Test("A .multiton holder and an instance the child already keeps are captures too")
    func multitonAndCachedInstances() {
        let app = Container()
        app.register(Cart.self) { (r: any Resolver, _: Int) in Cart(session: r.resolve((any Session).self)!) }
            .inObjectScope(.multiton)
        app.register((any Session).self) { _ in GuestSession() }
        let request = Container(parent: app)
        request.register((any Session).self) { _ in UserSession(user: "ada") }.inObjectScope(.container)
        _ = request.resolve((any Session).self)
        app.validatesScopes = true
        #expect(throws: DIError.self) { try request.resolveThrows(Cart.self, argument: 1) }
        #expect(app.resolve(Cart.self, argument: 1)?.session.user == "guest")
    }

    @Test("verify() reports captive dependencies, with validation off")
    func verifyReportsThem() {
        let (app, request) = appAndRequest()
        let problems = request.verify()
        #expect(
            problems.contains(
                .captiveDependency(
                    key: key(Cart.self),
                    captured: key((any Session).self),
                    path: [key(Cart.self), key((any Session).self)]
                )
            )
        )
        #expect(app.verify().isEmpty)
        #expect(request.resolve(Cart.self)?.session.user == "ada")
    }

    @Test("Through a synchronized view and an async factory")
    func viewAndAsync() async throws {
        let app = Container()
        app.register((any Session).self) { _ in GuestSession() }
        app.registerAsync(Cart.self) { r in Cart(session: try r.resolveThrows((any Session).self)) }
            .inObjectScope(.container)
        let request = Container(parent: app)
        request.register((any Session).self) { _ in UserSession(user: "ada") }
        app.validatesScopes = true
        let view = request.synchronize()
        await #expect(throws: DIError.self) { try await view.resolveAsync(Cart.self) }
        app.validatesScopes = false
        #expect(try await app.resolveAsync(Cart.self).session.user == "guest")
    }
}
