/// One problem found in the checked sources, at a position a compiler or an editor can show.
///
/// ```swift
/// let report = Checker().check([SourceFile(path: "App.swift", text: source)])
/// for diagnostic in report.diagnostics {
///     print(diagnostic.rendered)  // App.swift:12:19: error: No registration for Clock. … [missing]
/// }
/// ```
public struct Diagnostic: Sendable, Equatable, Hashable, Codable {
    /// The file as it was reached from the checked path.
    public var file: String
    /// The line, counted from 1.
    public var line: Int
    /// The column in UTF-8 bytes, counted from 1, as compilers report it.
    public var column: Int
    /// Whether the problem fails the check.
    public var severity: Severity
    /// The rule that found the problem.
    public var rule: Rule
    /// What is wrong and how to fix it, on one line.
    public var message: String

    /// Creates a diagnostic.
    public init(file: String, line: Int, column: Int, severity: Severity, rule: Rule, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.severity = severity
        self.rule = rule
        self.message = message
    }

    /// The diagnostic as one line of text: `FILE:LINE:COLUMN: error|warning: MESSAGE [RULE]`.
    public var rendered: String {
        "\(file):\(line):\(column): \(severity.rawValue): \(message) [\(rule.rawValue)]"
    }
}
