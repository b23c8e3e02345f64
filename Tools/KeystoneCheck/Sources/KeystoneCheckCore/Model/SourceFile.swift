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

    /// Creates a source file; `relativePath` defaults to `path`.
    public init(path: String, relativePath: String? = nil, text: String) {
        self.path = path
        self.relativePath = relativePath ?? path
        self.text = text
    }
}
