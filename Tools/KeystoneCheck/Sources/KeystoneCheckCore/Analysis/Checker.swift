import SwiftParser
import SwiftSyntax

/// Checks Keystone registrations and resolves in Swift sources without running them.
///
/// Registrations are the calls of `register`, `registerAsync` and `register(_:name:mainActorFactory:)`
/// whose first argument is `T.self`; resolves are the calls of `resolve`, `resolveThrows`,
/// `resolveResult` and `resolveAsync` on the resolver parameter of a registration's factory or of its
/// `initCompleted` action. All registrations of all files form one set: container hierarchies are not
/// modelled.
///
/// ```swift
/// let report = Checker().check([SourceFile(path: "App.swift", text: source)])
/// if report.errorCount > 0 {
///     report.diagnostics.forEach { print($0.rendered) }
/// }
/// ```
///
/// Whatever the source does not decide (a type or a name held in a variable, a generic parameter, a
/// registration in a loop, a resolve on another receiver) is counted as not checkable and never
/// reported, and so is a resolve such a registration might answer.
public struct Checker: Sendable {
    /// Creates a checker.
    public init() {}

    /// Checks `files`, given in checking order (the order that decides which registration of a key
    /// comes first).
    public func check(_ files: [SourceFile]) -> CheckReport {
        let trees = files.map { Parser.parse(source: $0.text) }
        var index = DeclarationIndex()
        for tree in trees {
            index.add(tree)
        }
        var speller = TypeSpeller(aliases: index.followableAliases)
        speller.aliasNames = index.aliasNames
        var registrations: [RegistrationSite] = []
        var resolves: [ResolveSite] = []
        var notCheckable = 0
        for (fileIndex, tree) in trees.enumerated() {
            let collector = SiteCollector(
                fileIndex: fileIndex, tree: tree, fileName: files[fileIndex].path, index: index, speller: speller)
            collector.collect(tree)
            let offset = registrations.count
            registrations += collector.registrations
            resolves += collector.resolves.map { site in
                var site = site
                site.registration += offset
                return site
            }
            notCheckable += collector.notCheckable
        }
        var analysis = Analysis(registrations: registrations, resolves: resolves, paths: files.map(\.path))
        analysis.run()
        let diagnostics = analysis.findings.filter { !files[$0.location.file].isContext }.sorted { lhs, rhs in
            (lhs.location, lhs.rule.order, lhs.message) < (rhs.location, rhs.rule.order, rhs.message)
        }.map { finding in
            Diagnostic(
                file: files[finding.location.file].path,
                line: finding.location.line,
                column: finding.location.column,
                severity: finding.rule == .duplicate ? .warning : .error,
                rule: finding.rule,
                message: finding.message
            )
        }
        return CheckReport(
            diagnostics: diagnostics,
            registrationCount: analysis.exactRegistrationCount,
            checkedResolveCount: analysis.checkedResolveCount,
            notCheckableCount: notCheckable + analysis.notCheckableCount
        )
    }
}

extension Rule {
    fileprivate var order: Int {
        switch self {
        case .missing: 0
        case .cycle: 1
        case .isolation: 2
        case .duplicate: 3
        }
    }
}
