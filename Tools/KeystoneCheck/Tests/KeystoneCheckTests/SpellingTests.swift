import KeystoneCheckCore
import Testing

@Suite("Type spellings and odd shapes")
struct SpellingTests {
    @Test("Spellings of one type match; #if branches are no duplicates; a Lazy of nothing is missing")
    func spellings() throws {
        let report = try Fixture.check("Fixtures/Spellings.swift")
        #expect(report.diagnostics.map(\.brief) == ["44:37 missing"])
        #expect(report.diagnostics[0].message.hasPrefix("No registration for Unknown, which this resolve of Lazy<Unknown> needs."))
    }

    @Test("Optional<T>, T? and aliases of them are one key", arguments: ["Optional<Token>", "Token?", "MaybeToken", "Swift.Optional<Token>"])
    func optionals(_ spelling: String) {
        let source = """
            typealias MaybeToken = Optional<Token>
            container.register(Token?.self) { _ in nil }
            container.register(Client.self) { r in Client(r.resolve(\(spelling).self)!) }
            container.register(Other.self) { r in Other(r.resolve(Missing?.self)) }
            """
        let report = Fixture.check(source: source)
        #expect(report.diagnostics == [])
        #expect(report.checkedResolveCount == 1)
    }

    @Test("A typealias declared twice with different targets is not followed")
    func ambiguousAlias() {
        let source = """
            enum A { typealias Store = Disk }
            enum B { typealias Store = Memory }
            container.register(Disk.self) { _ in Disk() }
            container.register(Client.self) { r in Client(r.resolve(Store.self)!) }
            """
        #expect(Fixture.check(source: source).diagnostics.filter { $0.severity == .error } == [])
    }

    @Test("Arguments in closures written with $0 and $1 count as the closure's parameters")
    func shorthand() {
        let source = """
            container.register(Job.self) { Job(name: $1, clock: $0.resolve(Clock.self)!) }
            container.register(Runner.self) { r in Runner(r.resolve(Job.self, argument: "x")!, r.resolve(Job.self)!) }
            """
        #expect(Fixture.check(source: source).diagnostics.map(\.brief) == ["1:56 missing", "2:86 missing"])
    }
}

@Suite("Aliases that are not followed")
struct AliasTests {
    @Test("An alias nested where it may mean another type, or sharing a type's name, is not followed")
    func nestedAliases() {
        let source = """
            class Store {}
            enum Legacy { typealias Store = OldStore }
            struct Box<T> { typealias Item = T }
            container.register(Legacy.Store.self) { _ in OldStore() }
            container.register(Feed.self) { r in Feed(r.resolve(OldStore.self)!, r.resolve(Item.self)!) }
            extension Legacy {
                static func wire(_ container: Container) {
                    container.register(Page.self) { r in Page(r.resolve(Store.self)!) }
                }
            }
            """
        let report = Fixture.check(source: source)
        #expect(report.diagnostics.filter { $0.severity == .error } == [])
    }
}
