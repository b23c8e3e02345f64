import Keystone
import Testing

/// Nine runtime arguments joined, to tell the registrations of every count apart.
private func joined(_ values: Int...) -> String {
    values.map(String.init).joined(separator: ",")
}

/// Registers a `String` taking 1 to 9 `Int` arguments, unnamed and named "n".
private func registerArities(in container: Container) {
    for name in [nil, "n"] as [String?] {
        let prefix = name.map { "\($0):" } ?? ""
        container.register(String.self, name: name) { (_, a: Int) in prefix + joined(a) }
        container.register(String.self, name: name) { (_, a: Int, b: Int) in prefix + joined(a, b) }
        container.register(String.self, name: name) { (_, a: Int, b: Int, c: Int) in prefix + joined(a, b, c) }
        container.register(String.self, name: name) { (_, a: Int, b: Int, c: Int, d: Int) in
            prefix + joined(a, b, c, d)
        }
        container.register(String.self, name: name) { (_, a: Int, b: Int, c: Int, d: Int, e: Int) in
            prefix + joined(a, b, c, d, e)
        }
        container.register(String.self, name: name) { (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int) in
            prefix + joined(a, b, c, d, e, f)
        }
        container.register(String.self, name: name) {
            (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int) in
            prefix + joined(a, b, c, d, e, f, g)
        }
        container.register(String.self, name: name) {
            (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int) in
            prefix + joined(a, b, c, d, e, f, g, h)
        }
        container.register(String.self, name: name) {
            (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int) in
            prefix + joined(a, b, c, d, e, f, g, h, i)
        }
    }
}

@Suite("Swinject-style app extensions compile and call the library's resolves")
struct SwinjectStyleTests {
    @Test("A non-optional resolve with an inferred type returns the registered service, named or not")
    func inferredType() {
        let container = Container()
        container.register(Greeter.self) { _ in Hello() }
        container.register(Greeter.self, name: "formal") { _ in Hello("good day") }
        let resolver: Resolver = container

        let plain: Greeter = resolver.resolve()
        let formal: Greeter = resolver.resolve(name: "formal")
        let spelled: Greeter = resolver.resolve(Greeter.self, name: "formal")
        #expect(plain.greeting == "hello")
        #expect(formal.greeting == "good day")
        #expect(spelled.greeting == "good day")

        let fromContainer: Greeter = container.resolve(name: "formal")
        let fromView: Greeter = container.synchronize().resolve(name: "formal")
        #expect(fromContainer.greeting == "good day")
        #expect(fromView.greeting == "good day")
    }

    @Test("The library's resolves still return an Optional wherever the result type is left open")
    func optionalStaysOptional() {
        let container = Container()
        container.register(Greeter.self) { _ in Hello() }
        let resolver: Resolver = container
        let view = container.synchronize()
        let name: String? = nil

        let fromContainer = container.resolve(Missing.self)
        let fromView = view.resolve(Missing.self)
        let fromExistential = resolver.resolve(Missing.self)
        let named = container.resolve(Missing.self, name: name)
        let withArgument = resolver.resolve(Missing.self, argument: 1)
        let withArguments = view.resolve(Missing.self, arguments: 1, "two", 3.0)
        #expect(fromContainer == nil)
        #expect(fromView == nil)
        #expect(fromExistential == nil)
        #expect(named == nil)
        #expect(withArgument == nil)
        #expect(withArguments == nil)
        #expect(container.resolve(Greeter.self)?.greeting == "hello")
        #expect(resolver.resolve(Greeter.self)?.greeting == "hello")
    }

    @Test("Non-optional resolves with 1 to 9 arguments, named and unnamed, find their registrations")
    func everyArity() {
        let container = Container()
        registerArities(in: container)
        let r: Resolver = container

        let one: String = r.resolve(argument: 1)
        let two: String = r.resolve(arguments: 1, 2)
        let three: String = r.resolve(arguments: 1, 2, 3)
        let four: String = r.resolve(arguments: 1, 2, 3, 4)
        let five: String = r.resolve(arguments: 1, 2, 3, 4, 5)
        let six: String = r.resolve(arguments: 1, 2, 3, 4, 5, 6)
        let seven: String = r.resolve(arguments: 1, 2, 3, 4, 5, 6, 7)
        let eight: String = r.resolve(arguments: 1, 2, 3, 4, 5, 6, 7, 8)
        let nine: String = r.resolve(arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9)
        let lengths = [one, two, three, four, five, six, seven, eight, nine].map(\.count)
        #expect(lengths == [1, 3, 5, 7, 9, 11, 13, 15, 17])
        #expect(nine == "1,2,3,4,5,6,7,8,9")

        let namedOne: String = r.resolve(name: "n", argument: 1)
        let namedTwo: String = r.resolve(name: "n", arguments: 1, 2)
        let namedThree: String = r.resolve(name: "n", arguments: 1, 2, 3)
        let namedFour: String = r.resolve(name: "n", arguments: 1, 2, 3, 4)
        let namedFive: String = r.resolve(name: "n", arguments: 1, 2, 3, 4, 5)
        let namedSix: String = r.resolve(name: "n", arguments: 1, 2, 3, 4, 5, 6)
        let namedSeven: String = r.resolve(name: "n", arguments: 1, 2, 3, 4, 5, 6, 7)
        let namedEight: String = r.resolve(name: "n", arguments: 1, 2, 3, 4, 5, 6, 7, 8)
        let namedNine: String = r.resolve(name: "n", arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9)
        #expect(namedOne == "n:1")
        #expect(namedTwo == "n:1,2")
        #expect(namedThree == "n:1,2,3")
        #expect(namedFour == "n:1,2,3,4")
        #expect(namedFive == "n:1,2,3,4,5")
        #expect(namedSix == "n:1,2,3,4,5,6")
        #expect(namedSeven == "n:1,2,3,4,5,6,7")
        #expect(namedEight == "n:1,2,3,4,5,6,7,8")
        #expect(namedNine == "n:1,2,3,4,5,6,7,8,9")

        // The same helpers on the concrete types, and the library's Optional ones beside them.
        let onContainer: String = container.resolve(name: "n", arguments: 1, 2, 3)
        let onView: String = container.synchronize().resolve(arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9)
        #expect(onContainer == "n:1,2,3")
        #expect(onView == nine)
        #expect(container.resolve(String.self, name: "n", arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9) == namedNine)
        #expect(r.resolve(String.self, arguments: 9, 8) == "9,8")
    }

    @Test("Factories use the non-optional helpers and the operator on the resolver they are handed")
    func insideFactories() {
        let container = Container()
        container.register(Greeter.self) { _ in Hello() }
        container.register(String.self, name: "title") { _ in "Home" }
        container.register(Screen.self) { r in Screen(greeter: r.resolve(), title: r.resolve(name: "title")) }
        container.register(Screen.self, name: "operator") { r in
            Screen(greeter: r ~> Greeter.self, title: r ~> (String.self, name: "title"))
        }
        container.register(String.self) { (_, a: String, b: Int) in a + String(b) }
        container.register(Screen.self) { (r, title: String) in
            Screen(greeter: r.resolve(Greeter.self), title: title)
        }

        let screen: Screen = container.resolve()
        let viaOperator = container ~> (Screen.self, name: "operator")
        let pair: String = container ~> (String.self, arguments: ("a", 2))
        let withArgument = container ~> (Screen.self, argument: "Settings")
        #expect(screen.greeter.greeting == "hello" && screen.title == "Home")
        #expect(viaOperator.title == "Home")
        #expect(withArgument.title == "Settings")
        #expect(pair == "a2")
        #expect((container.synchronize() ~> (Screen.self, name: "operator")) !== viaOperator)
    }

    @Test("Container helpers: a crashing resolve, chained singletons, a fallback")
    func containerHelpers() {
        let container = Container()
            .singleton(Greeter.self) { _ in Hello() }
        container.register(Int.self) { (_, text: String) in text.count }

        let greeter: Greeter = container.resolveOrCrash()
        let again: Greeter = container ~> Greeter.self
        #expect(ObjectIdentifier(greeter as AnyObject) == ObjectIdentifier(again as AnyObject))
        #expect(container.resolve(argument: "four", fallback: 0) == 4)
        #expect(container.resolve(Int.self, argument: "four") == 4)
        let counted: Int = container.resolve(argument: "three")
        #expect(counted == 5)
    }

    @Test("Helpers generic over the resolver, compositions with Sendable, and typealiases")
    func genericHelpersAndCompositions() async {
        let container = Container()
        container.register(Greeter.self) { _ in Hello() }
        container.register(Greeter.self, name: "formal") { _ in Hello("good day") }
        container.register(String.self) { (_, a: Int, b: Int, c: Int) in joined(a, b, c) }
        let view = container.synchronize()

        #expect(obtain(Greeter.self, from: container).greeting == "hello")
        #expect(obtain(Greeter.self, named: "formal", from: view).greeting == "good day")
        #expect(obtain(String.self, from: view, arguments: 1, 2, 3) == "1,2,3")

        let shared: SendableResolver = view
        let greetings = await withTaskGroup(of: String.self) { group in
            for _ in 0..<4 {
                group.addTask { obtainShared(Greeter.self, from: shared).greeting }
            }
            return await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(greetings == Array(repeating: "hello", count: 4))

        let aliased: DependencyResolver = container
        let formal: Greeter = aliased.required(name: "formal")
        #expect(formal.greeting == "good day")
        #expect(view.resolveForTask(Greeter.self)?.greeting == "hello")
    }
}
