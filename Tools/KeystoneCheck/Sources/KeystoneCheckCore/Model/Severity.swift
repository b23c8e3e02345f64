/// How serious a ``Diagnostic`` is: an error fails the check, a warning only under `--werror`.
///
/// ```swift
/// let errors = report.diagnostics.filter { $0.severity == .error }
/// ```
public enum Severity: String, Sendable, Codable, CaseIterable {
    /// A registration or resolve that fails at run time.
    case error
    /// A likely mistake that does not fail by itself (a registration replacing an earlier one).
    case warning
}
