import Foundation
import KeystoneCheckCore

/// Reads fixtures from the test target's own folder.
enum Fixture {
    static let testsFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()

    static func url(_ relative: String) -> URL {
        testsFolder.appending(path: relative)
    }

    static func text(_ relative: String) throws -> String {
        try String(contentsOf: url(relative), encoding: .utf8)
    }

    static func file(_ relative: String) throws -> SourceFile {
        SourceFile(path: relative, text: try text(relative))
    }

    static func check(_ relatives: String...) throws -> CheckReport {
        Checker().check(try relatives.map(file))
    }

    /// Checks source text given in the test as one file named `App.swift`.
    static func check(source: String) -> CheckReport {
        Checker().check([SourceFile(path: "App.swift", text: source)])
    }
}

extension Diagnostic {
    /// `LINE:COLUMN rule`, for compact expectations.
    var brief: String { "\(line):\(column) \(rule.rawValue)" }
}
