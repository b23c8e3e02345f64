import Foundation
import Testing

/// Keeps `ARCHITECTURE.md` true: every function its resolve path names exists in the file it names.
@Suite("ARCHITECTURE.md matches the code")
struct ArchitectureTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The numbered steps of the resolve path: `N. \`name(labels:)\` — \`path/to/File.swift\`: ...`.
    static func resolvePathSteps() throws -> [(function: String, file: String)] {
        let text = try String(
            contentsOf: packageRoot.appendingPathComponent("ARCHITECTURE.md"),
            encoding: .utf8
        )
        let step = /^\d+\. `([A-Za-z_][A-Za-z0-9_]*)\([^`]*\)` — `([^`]+\.swift)`/
        return text.split(separator: "\n").compactMap { line in
            guard let match = String(line).firstMatch(of: step) else { return nil }
            return (String(match.1), String(match.2))
        }
    }

    @Test("Every function of the documented resolve path exists in the file named")
    func resolvePathFunctionsExist() throws {
        let steps = try Self.resolvePathSteps()
        #expect(steps.count >= 5, "the resolve path in ARCHITECTURE.md lists its steps")
        // The spine stays short: a handful of steps in at most three files.
        #expect(steps.count <= 10)
        #expect(Set(steps.map(\.file)).count <= 3)
        for (function, file) in steps {
            let source = try String(contentsOf: Self.packageRoot.appendingPathComponent(file), encoding: .utf8)
            let declaration = try Regex("func\\s+\(function)\\s*[<(]")
            let declared = source.contains(declaration)
            #expect(declared, "ARCHITECTURE.md names \(function) in \(file), which declares no such function")
        }
    }
}
