/// How serious a ``Diagnostic`` is.
public enum Severity: String, Sendable, Codable, CaseIterable {
    /// A registration or resolve that fails at run time.
    case error
    /// A likely mistake that does not fail by itself (a registration replacing an earlier one).
    case warning
}
