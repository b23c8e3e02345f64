/// The rules of the check, each named in brackets after a message (`[missing]`).
///
/// ```swift
/// let cycles = report.diagnostics.filter { $0.rule == .cycle }
/// ```
public enum Rule: String, Sendable, Codable, CaseIterable {
    /// A resolve whose key nothing registers.
    case missing
    /// Factories that resolve each other in a circle.
    case cycle
    /// A synchronous resolve, in a synchronous factory, of a key only an async or a main-actor factory
    /// creates.
    case isolation
    /// A registration of a key already registered earlier.
    case duplicate
}
