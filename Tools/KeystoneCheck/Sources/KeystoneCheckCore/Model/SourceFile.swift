/// The text of one Swift file to check, with the two paths the check needs.
///
/// ```swift
/// let file = SourceFile(path: "Sources/App/Assembly.swift", relativePath: "App/Assembly.swift", text: text)
/// ```
public struct SourceFile: Sendable, Equatable {
    /// The path printed in diagnostics: the file as reached from the checked argument.
    public var path: String
    /// The key that orders files: the path relative to the checked argument, compared as a plain string.
    public var relativePath: String
    /// The source text.
    public var text: String
    /// Whether the file only lends its registrations (and type aliases) to the check: code the checked
    /// files depend on, such as another module's assemblies. Nothing is reported in it.
    public var isContext: Bool

    /// Creates a source file; `relativePath` defaults to `path`.
    public init(path: String, relativePath: String? = nil, text: String, isContext: Bool = false) {
        self.path = path
        self.relativePath = relativePath ?? path
        self.text = text
        self.isContext = isContext
    }
}
