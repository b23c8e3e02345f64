import Foundation
import Testing

/// Keeps `ARCHITECTURE.md` true: every function its resolve path names exists in the file it names.
/// (`Scripts/check-resolve-path.sh` checks, from a trace, that a resolve runs exactly those.)
@Suite("ARCHITECTURE.md matches the code")
struct ArchitectureTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The numbered steps of the resolve path's lists: `N. \`Type.name(labels:)\` — \`path/to/File.swift\`: ...`,
    /// or `N. closure in \`Type.name(labels:)\` — ...` for the closure a function makes.
    static func resolvePathSteps() throws -> [(function: String, file: String)] {
        let text = try String(
            contentsOf: packageRoot.appendingPathComponent("ARCHITECTURE.md"),
            encoding: .utf8
        )
        let step = /^\d+\. (?:closure in )?`(?:\w+\.)*(\w+)\([^`]*\)` — `([^`]+\.swift)`/
        return text.split(separator: "\n").compactMap { line in
            guard let match = String(line).firstMatch(of: step) else { return nil }
            return (String(match.1), String(match.2))
        }
    }

    @Test("Every function of the documented resolve path exists in the file named")
    func resolvePathFunctionsExist() throws {
        let steps = try Self.resolvePathSteps()
        #expect(steps.count >= 5, "the resolve path in ARCHITECTURE.md lists its steps")
        for (function, file) in steps {
            let source = try String(contentsOf: Self.packageRoot.appendingPathComponent(file), encoding: .utf8)
            let declaration = try Regex("func\\s+\(function)\\s*[<(]")
            let declared = source.contains(declaration)
            #expect(declared, "ARCHITECTURE.md names \(function) in \(file), which declares no such function")
        }
    }
}
