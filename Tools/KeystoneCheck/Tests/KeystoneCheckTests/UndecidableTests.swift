import KeystoneCheckCore
import Testing

/// Each case pairs a construct the source does not decide with the same resolve, which is an error
/// without it: the construct must turn the error into "not checkable", never into a report.
@Suite("Never a false error")
struct UndecidableTests {
    static let consumer = """
        container.register(Consumer.self) { r in Consumer(r.resolve(Target.self)!) }
        """

    static let cases: [(String, String)] = [
        ("a type held in a variable", "container.register(type) { _ in Impl() }"),
        ("a name held in a variable", "container.register(Target.self, name: name) { _ in Impl() }"),
        ("a name built by interpolation", "container.register(Target.self, name: \"\\(n)\") { _ in Impl() }"),
        ("a registration in a loop", "for _ in 0..<2 { container.register(Target.self) { _ in Impl() } }"),
        ("a registration in forEach", "[1].forEach { _ in container.register(Target.self) { _ in Impl() } }"),
        ("a generic helper", "func add<T>(_ t: T.Type) { container.register(T.self) { _ in make() } }"),
        ("a factory given as a function", "container.register(Target.self, factory: makeTarget)"),
        ("a front registration", "eager(Target.self) { Impl() }"),
        ("a forwarded type in a variable", "container.register(Impl.self) { _ in Impl() }.implements(other)"),
        ("a qualified spelling", "container.register(App.Target.self) { _ in Impl() }"),
    ]

    @Test("Without the undecided registration the resolve is an error")
    func control() {
        let report = Fixture.check(source: Self.consumer)
        #expect(report.diagnostics.map(\.brief) == ["1:53 missing"])
    }

    @Test("An undecided registration makes the resolves it might answer not checkable", arguments: 0..<10)
    func undecidedRegistration(_ index: Int) {
        let (label, registration) = Self.cases[index]
        let report = Fixture.check(source: Self.consumer + "\n" + registration)
        #expect(report.diagnostics.filter { $0.severity == .error } == [], "\(label)")
        #expect(report.notCheckableCount >= 1, "\(label)")
    }

    @Test("A registration of an undecided type answers that type only under its own name")
    func undecidedTypeKeepsItsName() {
        let source = """
            container.register(type) { _ in Impl() }
            container.register(Consumer.self) { r in Consumer(r.resolve(Target.self, name: "x")!) }
            """
        #expect(Fixture.check(source: source).diagnostics.map(\.brief) == ["2:53 missing"])
    }

    @Test("A shaped generic registration answers every type of its shape, and only those")
    func genericShape() {
        let source = """
            struct ListViewModel<Item> {}
            func add<T>(_ t: T.Type, to container: Container) {
                container.register(ListViewModel<T>.self) { _ in ListViewModel<T>() }
            }
            container.register(Screen.self) { r in
                Screen(r.resolve(ListViewModel<Article>.self)!, r.resolve(DetailViewModel<Article>.self)!)
            }
            """
        let report = Fixture.check(source: source)
        #expect(report.diagnostics.map(\.brief) == ["6:55 missing"])
    }

    @Test("Resolves on other receivers, shadowed resolvers and another closure's $0 are not checked")
    func receivers() {
        let source = """
            container.register(A.self) { r in A(other.resolve(Missing.self)!) }
            container.register(B.self) { r in
                let r = other
                return B(r.resolve(Missing.self)!)
            }
            container.register(C.self) { r in C(make: { r in r.resolve(Missing.self)! }) }
            container.register(D.self) { D([1].map { _ in $0.resolve(Missing.self)! }) }
            container.register(E.self) { r in E(r.resolve(Missing.self, name: label)!) }
            container.register(F.self) { r in F(r.resolve(type)!) }
            container.register(G.self) { r in G(r.resolve(Self.self)!) }
            """
        let report = Fixture.check(source: source)
        #expect(report.diagnostics == [])
        #expect(report.checkedResolveCount == 0)
        #expect(report.notCheckableCount == 7)
    }

    @Test("A resolve in a nested closure of the factory uses the factory's resolver")
    func nestedClosures() {
        let source = """
            container.register(Queue.self) { r in
                Queue(makeJob: { name in r.resolve(Job.self, argument: name)! })
            }
            """
        let report = Fixture.check(source: source)
        #expect(report.diagnostics.map(\.brief) == ["2:32 missing"])
    }

    @Test("A nested closure's resolve is no cycle edge and no isolation error: it may run later")
    func nestedClosuresAreNoEdges() {
        let source = """
            container.register(A.self) { r in A(makeB: { r.resolve(B.self)! }) }
            container.register(B.self) { r in B(r.resolve(A.self)!) }
            container.registerAsync(C.self) { _ in await C() }
            container.register(D.self) { r in D(makeC: { r.resolve(C.self)! }) }
            """
        #expect(Fixture.check(source: source).diagnostics == [])
    }

    @Test("A changed default scope leaves the isolation of unscoped async registrations unchecked")
    func defaultScope() {
        let source = """
            let container = Container(defaultObjectScope: .container)
            container.registerAsync(C.self) { _ in await C() }
            container.register(D.self) { r in D(r.resolve(C.self)!) }
            """
        #expect(Fixture.check(source: source).diagnostics == [])
        let plain = source.replacingOccurrences(of: "defaultObjectScope: .container", with: "")
        #expect(Fixture.check(source: plain).diagnostics.map(\.brief) == ["3:39 isolation"])
    }

    @Test("A cycle through registrations that all take runtime arguments is not reported")
    func argumentRecursion() {
        let source = """
            container.register(Tree.self) { r, depth in Tree(child: r.resolve(Tree.self, argument: depth - 1)) }
            """
        #expect(Fixture.check(source: source).diagnostics == [])
    }

    @Test("The fixture of undecidable code reports nothing")
    func undecidableFixtures() throws {
        #expect(try Fixture.check("Fixtures/Undecidable.swift").diagnostics == [])
        #expect(try Fixture.check("Fixtures/UndecidableTypes.swift").diagnostics == [])
    }
}

@Suite("Registrations that are not made together")
struct SeparateRegistrationTests {
    @Test("Registrations in different branches of an if or a switch are no duplicates, and no cycle edge")
    func branches() {
        let source = """
            func wire(_ container: Container, mock: Bool, mode: Mode) {
                if mock {
                    container.register(Api.self) { _ in MockApi() }
                } else {
                    container.register(Api.self) { r in LiveApi(r.resolve(Client.self)!) }
                }
                switch mode {
                case .a: container.register(Client.self) { r in Client(r.resolve(Api.self)!) }
                case .b: container.register(Client.self) { _ in Client() }
                }
                container.register(Api.self) { _ in MockApi() }
            }
            """
        let report = Fixture.check(source: source)
        #expect(report.diagnostics.map(\.brief) == ["11:15 duplicate"])
    }

    @Test("Factories registered on two containers in one function form no cycle")
    func twoContainers() {
        let source = """
            func wire(first: Container, second: Container) {
                first.register(A.self) { r in A(r.resolve(B.self)!) }
                second.register(B.self) { r in B(r.resolve(A.self)!) }
            }
            """
        #expect(Fixture.check(source: source).diagnostics == [])
        let one = source.replacingOccurrences(of: "second.register", with: "first.register")
        #expect(Fixture.check(source: one).diagnostics.map(\.brief) == ["2:11 cycle"])
    }
}
