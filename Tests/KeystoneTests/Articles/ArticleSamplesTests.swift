import Foundation
import Testing

/// Keeps the DocC articles and their tests in step: every ```` ```swift ```` sample of every page in
/// `Sources/Keystone/Keystone.docc` must appear, line for line, in a test file under
/// `Tests/KeystoneTests/Articles` (or, for the samples that use the `KeystoneTesting` trait, under
/// `Tests/KeystoneTestingTests`, and for the samples of an app's own extensions of `Resolver`, which
/// change how calls resolve in their whole module, under `Tests/SwinjectStyleTests`), where it is
/// compiled and run.
///
/// Lines are compared with their leading and trailing whitespace removed, and blank lines are ignored,
/// so a sample may be indented inside a test function. The lines of one sample must be consecutive.
@Suite("Article samples are compiled and run by tests")
struct ArticleSamplesTests {
    /// The package root: this file is `Tests/KeystoneTests/Articles/ArticleSamplesTests.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    static let catalog = packageRoot.appendingPathComponent("Sources/Keystone/Keystone.docc")
    static let articleTests = packageRoot.appendingPathComponent("Tests/KeystoneTests/Articles")
    /// The tests of the `KeystoneTesting` product, which compile the samples that use its trait.
    static let traitTests = packageRoot.appendingPathComponent("Tests/KeystoneTestingTests")
    /// The app-style extensions of `Resolver` and `Container`, in a test module of their own.
    static let appStyleTests = packageRoot.appendingPathComponent("Tests/SwinjectStyleTests")

    @Test("Every swift sample of every article appears in a test under Tests/KeystoneTests/Articles")
    func everySampleIsInATest() throws {
        let articles = try Self.files(in: Self.catalog, withExtension: "md")
        try #require(!articles.isEmpty, "no article found in \(Self.catalog.path)")
        let testFiles =
            try Self.files(in: Self.articleTests, withExtension: "swift")
            + Self.files(in: Self.traitTests, withExtension: "swift")
            + Self.files(in: Self.appStyleTests, withExtension: "swift")
        let tests = try testFiles.map { url in
            Self.normalizedLines(try String(contentsOf: url, encoding: .utf8))
        }

        var sampleCount = 0
        for article in articles {
            let samples = Self.swiftSamples(in: try String(contentsOf: article, encoding: .utf8))
            sampleCount += samples.count
            for sample in samples where !tests.contains(where: { Self.contains($0, consecutively: sample) }) {
                Issue.record(
                    """
                    \(article.lastPathComponent): the sample that starts with `\(sample[0])` is not in any test \
                    under Tests/KeystoneTests/Articles. Copy it there, verbatim, into a test that runs it.
                    """
                )
            }
        }
        #expect(sampleCount > 0)
    }

    @Test("The checker finds swift samples, ignores other code blocks, and matches consecutive lines only")
    func checkerBehaves() {
        let page = """
            # Title

            ```swift
            let a = 1
                let b = 2

            ```

            ```text
            not swift
            ```

              ```swift
              print(a)
              ```
            """
        let samples = Self.swiftSamples(in: page)
        #expect(samples == [["let a = 1", "let b = 2"], ["print(a)"]])

        let test = Self.normalizedLines("func f() {\n    let a = 1\n\n    let b = 2\n}\nlet c = 3\n")
        #expect(Self.contains(test, consecutively: ["let a = 1", "let b = 2"]))
        #expect(!Self.contains(test, consecutively: ["let a = 1", "let c = 3"]))
        #expect(!Self.contains(test, consecutively: ["let b = 2", "let a = 1"]))
    }

    // MARK: - The checker

    /// The files in `directory` whose name ends with `.ext`, sorted by name.
    static func files(in directory: URL, withExtension ext: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == ext }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    /// The lines of `text`, trimmed, without blank lines.
    static func normalizedLines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The normalized lines of each ```` ```swift ```` block of a Markdown page, in order; empty blocks
    /// are left out.
    static func swiftSamples(in markdown: String) -> [[String]] {
        var samples: [[String]] = []
        var current: [String]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var sample = current {
                if trimmed == "```" {
                    if !sample.isEmpty {
                        samples.append(sample)
                    }
                    current = nil
                } else {
                    if !trimmed.isEmpty {
                        sample.append(trimmed)
                    }
                    current = sample
                }
            } else if trimmed == "```swift" {
                current = []
            }
        }
        return samples
    }

    /// Whether `lines` contains `sample` as consecutive lines.
    static func contains(_ lines: [String], consecutively sample: [String]) -> Bool {
        guard !sample.isEmpty, sample.count <= lines.count else { return sample.isEmpty }
        return (0...(lines.count - sample.count)).contains { start in
            lines[start..<(start + sample.count)].elementsEqual(sample)
        }
    }
}
