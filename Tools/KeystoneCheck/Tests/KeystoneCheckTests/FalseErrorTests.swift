import Foundation
import KeystoneCheckCore
import Testing

/// Valid code on which the check once reported an error (each fixture's resolve is answered at run time):
/// it must report nothing. Next to each, `FalseErrorControlTests` keeps the real mistake reported.
@Suite("False errors found in review")
struct FalseErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        var files: [String]
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        // `Analytics -> Logger` only under DEBUG, `Logger -> Analytics` only otherwise: no build has a cycle.
        Case(label: "a cycle whose edges sit in different branches of #if", files: ["CycleAcrossIfConfig.swift"]),
        // `typealias Model = Article` in one class is followed inside `ListAssembly<Model>`, whose `Model`
        // is its own generic parameter.
        Case(label: "a type alias named like a generic parameter", files: ["AliasNamedLikeGenericParameter.swift"]),
        // `ViewModel` inside `extension Feed` is `Feed.ViewModel`; the named registration of the short
        // spelling stops the qualified one from being considered.
        Case(
            label: "an unqualified nested type next to a named registration of it",
            files: ["NestedTypeUnqualified.swift", "NestedTypeQualified.swift"]),
        // `Foundation.URLSession` is `URLSession`; the README says module-qualified spellings are not compared.
        Case(label: "a module-qualified registration next to a named one", files: ["ModuleQualifiedWithNamedSibling.swift"]),
        // `(_ id: String) -> T` and `(String) -> T` are one type.
        Case(label: "a parameter label in a function type", files: ["FunctionTypeParameterLabel.swift"]),
        // `typealias UserID = String` is not followed inside a function type.
        Case(label: "a type alias inside a function type", files: ["AliasInsideFunctionType.swift"]),
        // `(any Animal) -> Owner` and `(Animal) -> Owner` are one type.
        Case(label: "any inside a function type", files: ["AnyInsideFunctionTypeA.swift", "AnyInsideFunctionTypeB.swift"]),
        // `Void` and `()` are one type, as a generic argument and as a function result.
        Case(label: "Void and ()", files: ["VoidAndEmptyTuple.swift"]),
        // `T` in `extension Outer.Inner` is `Outer<T>`'s generic parameter.
        Case(label: "an extension of a type nested in a generic type", files: ["ExtensionOfNestedTypeInGenericType.swift"]),
        // `Model` in `extension ListModule` is the associated type `ListModule` inherits from `Module`.
        Case(label: "an associated type inherited from another protocol", files: ["InheritedAssociatedType.swift"]),
        // `Action` in `extension ViewStore` is a generic parameter of a type declared outside the files.
        Case(label: "an extension of a generic type declared elsewhere", files: ["ExtensionOfForeignGenericType.swift"]),
    ]

    @Test("Valid code gets no error", arguments: cases)
    func noFalseError(_ example: Case) throws {
        let files = try example.files.map { try Fixture.file("Fixtures/FalseErrors/" + $0) }
        let report = Checker().check(files)
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics.map(\.rendered))")
    }

    @Test("An extension adding a conformance to a generic type declared elsewhere")
    func foreignExtensionWithConformance() {
        let report = Fixture.check(
            source: """
                protocol Wired {}
                final class Effects<Action> {}
                extension ViewStore: Wired {
                    static func registerEffects(in container: Container) {
                        container.register(Effects<Action>.self) { _ in Effects() }
                    }
                }
                func setUpReducers(_ container: Container) {
                    container.register(Screen.self) { r in Screen(r.resolve(Effects<Int>.self)!) }
                }
                """)
        #expect(report.diagnostics.isEmpty, "\(report.diagnostics.map(\.rendered))")
    }

    @Test("A file reached through two arguments is not its own duplicate")
    func overlappingPaths() {
        // `keystone-check --werror Sources Sources/App.swift`: every registration of App.swift is reported
        // as registered again at its own line, and the check fails.
        let folder = Fixture.url("Fixtures/Overlap").path
        let outcome = CheckCommand.run(arguments: ["--werror", folder, folder + "/App.swift"])
        #expect(outcome.status == 0, "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.isEmpty)
    }
}

/// The real mistakes next to the valid code of `FalseErrorTests`: still reported where the source decides.
@Suite("Mistakes next to the false errors are still found")
struct FalseErrorControlTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var label: String
        var source: String
        var expected: [String]
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(
            label: "a cycle whose edges sit under the same #if condition",
            source: """
                func registerTelemetry(_ container: Container) {
                    container.register(Analytics.self) { r in
                        #if DEBUG
                        return DebugAnalytics(logger: r.resolve(Logger.self)!)
                        #else
                        return LiveAnalytics()
                        #endif
                    }
                    container.register(Logger.self) { r in
                        #if DEBUG
                        return RemoteLogger(analytics: r.resolve(Analytics.self)!)
                        #else
                        return ConsoleLogger()
                        #endif
                    }
                }
                """,
            expected: ["2:15 cycle"]),
        Case(
            label: "an alias nested in a type is followed inside it",
            source: """
                struct Article {}
                final class ArticleScreen {
                    typealias Model = Article
                    static func wire(_ container: Container) {
                        container.register(ArticleScreen.self) { r in ArticleScreen(r.resolve(Model.self)!) }
                    }
                }
                final class ListAssembly<Model> {
                    func assemble(_ container: Container) {
                        container.register(ListViewModel<Model>.self) { r in ListViewModel(r.resolve(Repository<Video>.self)!) }
                    }
                }
                """,
            expected: ["5:71 missing", "10:78 missing"]),
        Case(
            label: "a nested type under a name nothing registers",
            source: """
                enum Feed {
                    final class ViewModel {}
                    final class Screen {}
                }
                extension Feed {
                    static func register(in container: Container) {
                        container.register(ViewModel.self, name: "preview") { _ in ViewModel() }
                        container.register(Screen.self) { r in Screen(r.resolve(ViewModel.self, name: "live")!) }
                    }
                }
                """,
            expected: ["8:57 missing"]),
        Case(
            label: "a module-qualified type under a name nothing registers",
            source: """
                func setUpNetworking(_ container: Container) {
                    container.register(Foundation.URLSession.self) { _ in URLSession.shared }
                    container.register(URLSession.self, name: "background") { _ in URLSession.shared }
                    container.register(APIClient.self) { r in APIClient(r.resolve(URLSession.self, name: "upload")!) }
                }
                """,
            expected: ["4:59 missing"]),
        Case(
            label: "function types that differ",
            source: """
                typealias UserID = String
                typealias DetailFactory = (_ id: String) -> DetailViewModel
                func registerClosures(_ container: Container) {
                    container.register(DetailFactory.self) { _ in { DetailViewModel(id: $0) } }
                    container.register(((UserID) -> Profile).self) { _ in { Profile(id: $0) } }
                    container.register(((any Animal) -> Owner).self) { _ in { Owner(pet: $0) } }
                    container.register((() -> ()).self) { _ in {} }
                    container.register(Screen.self) { r in
                        Screen(
                            r.resolve(((Int) -> DetailViewModel).self)!,
                            r.resolve(((UserID) -> Owner).self)!,
                            r.resolve(((Plant) -> Owner).self)!,
                            r.resolve((() -> Int).self)!,
                            r.resolve(((String) -> Profile).self)!
                        )
                    }
                }
                """,
            expected: ["10:15 missing", "11:15 missing", "12:15 missing", "13:15 missing"]),
        Case(
            label: "Void is not Int",
            source: """
                func registerSignals(_ container: Container) {
                    container.register(Signal<()>.self) { _ in Signal() }
                    container.register(Screen.self) { r in Screen(r.resolve(Signal<Void>.self)!, r.resolve(Signal<Int>.self)!) }
                }
                """,
            expected: ["3:84 missing"]),
        Case(
            label: "a missing type in an extension of a nested type",
            source: """
                struct Outer<T> {
                    struct Inner {}
                }
                extension Outer.Inner {
                    static func register(_ container: Container) {
                        container.register(Widget.self) { r in Widget(r.resolve(Gadget.self)!) }
                    }
                }
                """,
            expected: ["6:57 missing"]),
        Case(
            label: "a missing type in an extension of a refined protocol",
            source: """
                protocol Module { associatedtype Model }
                protocol ListModule: Module {}
                extension ListModule {
                    func register(in container: Container) {
                        container.register(Catalog.self) { r in Catalog(r.resolve(Shelf.self)!) }
                    }
                }
                """,
            expected: ["5:59 missing"]),
        Case(
            label: "a missing type next to an extension of a type declared elsewhere",
            source: """
                final class Effects<Action> {}
                extension ViewStore {
                    static func registerEffects(in container: Container) {
                        container.register(Effects<Action>.self) { _ in Effects() }
                    }
                }
                func setUpReducers(_ container: Container) {
                    container.register(Screen.self) { r in Screen(r.resolve(Effects<Int>.self)!, r.resolve(Reducer.self)!) }
                }
                """,
            expected: ["8:84 missing"]),
    ]

    @Test("The mistake is reported", arguments: cases)
    func reported(_ example: Case) {
        let report = Fixture.check(source: example.source)
        #expect(report.diagnostics.map(\.brief) == example.expected, "\(report.diagnostics.map(\.rendered))")
    }

    @Test("A file given twice still has its real duplicates, once")
    func overlappingPathsKeepDuplicates() {
        let file = Fixture.url("Fixtures/Duplicate.swift").path
        let outcome = CheckCommand.run(arguments: [file, file])
        #expect(outcome.status == 0)
        #expect(outcome.standardOutput.split(separator: "\n").count == 1, "\(outcome.standardOutput)")
    }
}
