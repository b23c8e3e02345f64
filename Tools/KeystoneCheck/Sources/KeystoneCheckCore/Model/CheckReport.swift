/// What one run of the check found, and how much of the code it could decide.
///
/// ```swift
/// let report = Checker().check(files)
/// print(report.summary)  // keystone-check: 12 registrations, 9 resolves checked, 1 not checkable, 0 errors, 0 warnings
/// let failed = report.errorCount > 0
/// ```
public struct CheckReport: Sendable, Equatable {
    /// The problems, ordered by file (in checking order), line, column and rule.
    public var diagnostics: [Diagnostic]
    /// Registrations whose key (type, name and number of runtime arguments) is known from the source.
    public var registrationCount: Int
    /// Resolves whose key was checked against the registrations.
    public var checkedResolveCount: Int
    /// Registrations and resolves that the source does not decide, left unchecked.
    public var notCheckableCount: Int

    /// Creates a report.
    public init(diagnostics: [Diagnostic], registrationCount: Int, checkedResolveCount: Int, notCheckableCount: Int) {
        self.diagnostics = diagnostics
        self.registrationCount = registrationCount
        self.checkedResolveCount = checkedResolveCount
        self.notCheckableCount = notCheckableCount
    }

    /// The number of errors.
    public var errorCount: Int { diagnostics.count { $0.severity == .error } }

    /// The number of warnings.
    public var warningCount: Int { diagnostics.count { $0.severity == .warning } }

    /// The summary line: `keystone-check: R registrations, C resolves checked, U not checkable, E errors,
    /// W warnings`.
    public var summary: String {
        "keystone-check: \(registrationCount) registrations, \(checkedResolveCount) resolves checked, "
            + "\(notCheckableCount) not checkable, \(errorCount) errors, \(warningCount) warnings"
    }
}
