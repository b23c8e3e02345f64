// swift-format-ignore-file
// (The samples here mirror the articles' text line for line: see ArticleSamplesTests.)
import Keystone
import Testing

// The samples of ScopesAndHierarchies.md, verbatim, each followed by the facts the article states about
// it. The article's own types are nested in the suite below.

@Suite("Article: Scopes and Hierarchies")
struct ScopesAndHierarchiesArticleTests {
    @Test("The graph scope shares one logbook per top-level call")
    func graphScope() throws {
        let container = Container()
        container.register(Logbook.self) { _ in Logbook() }
        container.register(Crew.self) { r in Crew(logbook: try r.resolveThrows(Logbook.self)) }
        container.register(Trip.self) { r in
            Trip(logbook: try r.resolveThrows(Logbook.self), crew: try r.resolveThrows(Crew.self))
        }

        let trip = try container.resolveThrows(Trip.self)
        let nextTrip = try container.resolveThrows(Trip.self)
        // trip.logbook === trip.crew.logbook, and nextTrip.logbook !== trip.logbook

        #expect(trip.logbook === trip.crew.logbook)
        #expect(nextTrip.logbook === nextTrip.crew.logbook)
        #expect(nextTrip.logbook !== trip.logbook)
    }

    @Test("The container scope keeps one logbook until the scope is reset")
    func containerScope() {
        let container = Container()
        container.register(Logbook.self) { _ in Logbook() }
            .inObjectScope(.container)

        let logbook = container.resolve(Logbook.self)
        let same = container.resolve(Logbook.self)      // the same Logbook
        container.resetObjectScope(.container)
        let fresh = container.resolve(Logbook.self)     // a new Logbook

        #expect(logbook != nil)
        #expect(same === logbook)
        #expect(fresh != nil)
        #expect(fresh !== logbook)
    }

    @Test("The transient scope never shares; the weak scope shares while someone holds the instance")
    func transientAndWeak() {
        let container = Container()
        container.register(Logbook.self) { _ in Logbook() }.inObjectScope(.transient)
        container.register(Crew.self) { r in Crew(logbook: try r.resolveThrows(Logbook.self)) }
        container.register(Trip.self) { r in
            Trip(logbook: try r.resolveThrows(Logbook.self), crew: try r.resolveThrows(Crew.self))
        }
        let trip = container.resolve(Trip.self)
        #expect(trip != nil)
        #expect(trip?.logbook !== trip?.crew.logbook, "transient: a new instance on every resolve")

        let weakContainer = Container()
        weakContainer.register(Logbook.self) { _ in Logbook() }.inObjectScope(.weak)
        let held = weakContainer.resolve(Logbook.self)
        #expect(held != nil)
        #expect(weakContainer.resolve(Logbook.self) === held, "weak: shared while someone holds it")
    }

    @Test("A struct is copied out of every scope, and its .container factory runs once")
    func valueTypes() {
        let runs = Counter()
        let container = Container()
        container.register(Turtle.self) { _ in
            runs.increment()
            return Turtle(name: "Shelly")
        }.inObjectScope(.container)
        var first = container.resolve(Turtle.self)
        first?.name = "Changed"
        #expect(first?.name == "Changed")
        #expect(container.resolve(Turtle.self)?.name == "Shelly")
        #expect(runs.count == 1)

        let defaults = Container(defaultObjectScope: .container)
        defaults.register(Logbook.self) { _ in Logbook() }
        let logbook = defaults.resolve(Logbook.self)
        #expect(logbook != nil && defaults.resolve(Logbook.self) === logbook)
    }

    @Test("A custom scope keeps its instance until it is reset")
    func customScope() {
        let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
        let container = Container()
        container.register(Logbook.self) { _ in Logbook() }
            .inObjectScope(session)

        let duringSession = container.resolve(Logbook.self)
        container.resetObjectScope(session)             // at sign-out
        let nextSession = container.resolve(Logbook.self)

        #expect(duringSession != nil)
        #expect(nextSession != nil)
        #expect(nextSession !== duringSession)
        #expect(container.resolve(Logbook.self) === nextSession)
    }

    @Test("A child resolves from its parent, wins over it, and shares its container-scoped instances")
    func hierarchies() {
        let app = Container()
        app.register(Animal.self) { _ in Cat(name: "Mimi") }
        app.register(Logbook.self) { _ in Logbook() }.inObjectScope(.container)

        let feature = Container(parent: app)
        feature.register(Animal.self) { _ in Dog(name: "Hachi") }

        let fromFeature = feature.resolve(Animal.self)    // a Dog: the child's registration wins
        let fromApp = app.resolve(Animal.self)            // a Cat: the parent ignores its children
        let sharedLogbook = feature.resolve(Logbook.self) // the same Logbook as app.resolve(Logbook.self)

        #expect(fromFeature is Dog)
        #expect(fromApp is Cat)
        #expect(sharedLogbook != nil)
        #expect(sharedLogbook === app.resolve(Logbook.self))

        // A parent's factory resolves its dependencies from the container the resolve started in.
        app.register(Person.self) { r in PetOwner(name: "Stephen", pet: try r.resolveThrows(Animal.self)) }
        #expect((feature.resolve(Person.self) as? PetOwner)?.pet is Dog)
        #expect((app.resolve(Person.self) as? PetOwner)?.pet is Cat)

        // The parent never sees the child's registrations.
        feature.register(Crew.self) { r in Crew(logbook: try r.resolveThrows(Logbook.self)) }
        #expect(app.resolve(Crew.self) == nil)

        // resetObjectScope on a child reaches its ancestors; removeAll does not.
        feature.resetObjectScope(.container)
        #expect(app.resolve(Logbook.self) !== sharedLogbook)
        feature.removeAll()
        #expect(feature.resolve(Animal.self) is Cat)
        #expect(app.registeredCount() == 3)
    }

    @Test("implements makes one registration resolvable as another type, with the same instance")
    func typeForwarding() {
        let container = Container()
        container.register(Dog.self) { _ in Dog(name: "Hachi") }
            .inObjectScope(.container)
            .implements(Animal.self)

        let dog = container.resolve(Dog.self)
        let animal = container.resolve(Animal.self)     // the same Dog

        #expect(dog != nil)
        #expect((animal as? Dog) === dog)
    }

    @Test("Lazy resolves once on first access; Provider resolves on every access")
    func lazyAndProvider() {
        let container = Container()
        container.register(Logbook.self) { _ in Logbook() }

        let lazyLogbook = container.resolve(Lazy<Logbook>.self)!
        let logbooks = container.resolve(Provider<Logbook>.self)!

        let first = lazyLogbook.instance    // created here, then kept
        let spare = logbooks.instance       // a new Logbook on every access

        #expect(lazyLogbook.instance === first)
        #expect(logbooks.instance !== spare)
        #expect(container.resolve(Lazy<Trip>.self) == nil, "Lazy of an unregistered service fails")
    }

    @Test("initCompleted wires two objects that refer to each other, each factory running once")
    func initCompletedBreaksTheCycle() throws {
        let container = Container()
        container.register(Ship.self) { _ in Ship() }
            .initCompleted { r, ship in
                ship.captain = r.resolve(Captain.self)
            }
        container.register(Captain.self) { r in Captain(ship: try r.resolveThrows(Ship.self)) }

        let ship = try container.resolveThrows(Ship.self)
        // ship.captain?.ship === ship

        #expect(ship.captain != nil)
        #expect(ship.captain?.ship === ship)
        #expect(container.resolve(Ship.self) !== ship, "the next top-level call makes a new pair")
    }

    @Test("Without initCompleted, two factories that resolve each other fail with the cycle's path")
    func cycleIsReported() {
        let container = Container()
        container.register(Ship.self) { r in
            let ship = Ship()
            ship.captain = try r.resolveThrows(Captain.self)
            return ship
        }
        container.register(Captain.self) { r in Captain(ship: try r.resolveThrows(Ship.self)) }
        let cycle = DIError.circularDependency(path: [
            ServiceKey(serviceType: Ship.self), ServiceKey(serviceType: Captain.self),
            ServiceKey(serviceType: Ship.self),
        ])
        #expect(throws: cycle) { try container.resolveThrows(Ship.self) }
    }

    @Test("With the Ship in the transient scope, initCompleted cannot break the cycle, and it is reported")
    func transientCannotBreakTheCycle() {
        let container = Container()
        container.register(Ship.self) { _ in Ship() }
            .inObjectScope(.transient)
            .initCompleted { r, ship in
                ship.captain = r.resolve(Captain.self)
            }
        container.register(Captain.self) { r in Captain(ship: try r.resolveThrows(Ship.self)) }
        let error = #expect(throws: DIError.self) { try container.resolveThrows(Ship.self) }
        guard case .circularDependency(let path)? = error else {
            Issue.record("expected a cycle, got \(String(describing: error))")
            return
        }
        #expect(path.first == ServiceKey(serviceType: Ship.self) && path.last == path.first)
        #expect(path.contains(ServiceKey(serviceType: Captain.self)))
    }

    /// The first sample of the captive dependency section, up to its resolve.
    private func appAndRequest() -> (app: Container, request: Container) {
        let app = Container()
        app.register(Session.self) { _ in Session(user: "guest") }
        app.register(Cart.self) { r in Cart(session: r.resolve(Session.self)!) }
            .inObjectScope(.container)

        let request = Container(parent: app)
        request.register(Session.self) { _ in Session(user: "ada") }
        return (app, request)
    }

    @Test("A parent's .container cart first resolved through a child keeps the child's session")
    func captiveDependency() {
        let app = Container()
        app.register(Session.self) { _ in Session(user: "guest") }
        app.register(Cart.self) { r in Cart(session: r.resolve(Session.self)!) }
            .inObjectScope(.container)

        let request = Container(parent: app)
        request.register(Session.self) { _ in Session(user: "ada") }

        let cart = request.resolve(Cart.self)!
        // cart.session.user == "ada", and app.resolve(Cart.self) returns this cart to every later request

        #expect(cart.session.user == "ada")
        #expect(app.resolve(Cart.self) === cart)
        let nextRequest = Container(parent: app)
        nextRequest.register(Session.self) { _ in Session(user: "grace") }
        #expect(nextRequest.resolve(Cart.self) === cart)
    }

    @Test("verify() reports the captive dependency, naming the kept service, the captured one and the fixes")
    func verifyReportsTheCaptive() throws {
        let (app, request) = appAndRequest()
        _ = request.resolve(Cart.self)

        let problems = request.verify()
        // [captiveDependency(key: Cart, captured: Session, path: [Cart, Session])]
        print(problems[0])
        // Cart is kept by its container, but its creation obtained Session from a container below it in the
        // hierarchy: [...] Fix: register Session in the container that keeps Cart (the parent), [...]

        let cart = ServiceKey(serviceType: Cart.self)
        let session = ServiceKey(serviceType: Session.self)
        #expect(problems == [.captiveDependency(key: cart, captured: session, path: [cart, session])])
        let message = problems[0].description
        #expect(message.hasPrefix("Cart is kept by its container, but its creation obtained Session from a container below it"))
        #expect(message.contains("Fix: register Session in the container that keeps Cart (the parent)"))
        #expect(app.verify().isEmpty)
    }

    @Test("With validatesScopes on, the resolve fails with the captive dependency and keeps nothing")
    func validatesScopesFails() {
        let (app, request) = appAndRequest()

        app.validatesScopes = true
        do {
            _ = try request.resolveThrows(Cart.self)
        } catch {
            print(error)  // Cart is kept by its container, but its creation obtained Session from a container below it [...]
        }
        let appCart = app.resolve(Cart.self)!   // made where it belongs: appCart.session.user == "guest"

        #expect(request.validatesScopes)
        #expect(appCart.session.user == "guest")
        let cart = ServiceKey(serviceType: Cart.self)
        let session = ServiceKey(serviceType: Session.self)
        let fresh = appAndRequest()
        fresh.app.validatesScopes = true
        #expect(throws: DIError.captiveDependency(key: cart, captured: session, path: [cart, session])) {
            try fresh.request.resolveThrows(Cart.self)
        }
    }

    @Test("The three fixes: the dependency only in the parent, a shorter scope, or the holder in the child too")
    func threeFixes() throws {
        // Keep the dependency where the holder is: the child does not override the session.
        let app = Container()
        app.validatesScopes = true
        app.register(Session.self) { _ in Session(user: "guest") }
        app.register(Cart.self) { r in Cart(session: r.resolve(Session.self)!) }.inObjectScope(.container)
        let plainRequest = Container(parent: app)
        #expect(try plainRequest.resolveThrows(Cart.self).session.user == "guest")
        #expect(plainRequest.verify().isEmpty)

        // A shorter scope: each resolve makes a cart with the session of the container it started in.
        let (graphApp, graphRequest) = appAndRequest()
        graphApp.validatesScopes = true
        graphApp.register(Cart.self) { r in Cart(session: r.resolve(Session.self)!) }.inObjectScope(.graph)
        #expect(try graphRequest.resolveThrows(Cart.self).session.user == "ada")
        #expect(try graphApp.resolveThrows(Cart.self).session.user == "guest")
        #expect(graphRequest.verify().isEmpty)

        // The holder in the child too: the request keeps a cart of its own.
        let (holderApp, request) = appAndRequest()
        holderApp.validatesScopes = true

        request.register(Cart.self) { r in Cart(session: r.resolve(Session.self)!) }
            .inObjectScope(.container)
        let requestCart = request.resolve(Cart.self)!  // requestCart.session.user == "ada", kept by the request

        #expect(requestCart.session.user == "ada")
        #expect(request.resolve(Cart.self) === requestCart)
        #expect(holderApp.resolve(Cart.self)?.session.user == "guest")
        #expect(request.verify().isEmpty)
    }
}

extension ScopesAndHierarchiesArticleTests {
    final class Logbook {}

    final class Crew {
        let logbook: Logbook
        init(logbook: Logbook) { self.logbook = logbook }
    }

    final class Trip {
        let logbook: Logbook
        let crew: Crew
        init(logbook: Logbook, crew: Crew) {
            self.logbook = logbook
            self.crew = crew
        }
    }

    final class Ship {
        var captain: Captain?
    }

    final class Captain {
        weak var ship: Ship?
        init(ship: Ship) { self.ship = ship }
    }

    final class Session {
        let user: String
        init(user: String) { self.user = user }
    }

    final class Cart {
        let session: Session
        init(session: Session) { self.session = session }
    }
}
