import Foundation
import KeystoneCheckCore
import Testing

@Suite("The command line")
struct CommandTests {
    /// A folder with two files: a missing registration in `b/App.swift`, a duplicate in `a.swift`.
    static func project() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "keystone-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appending(path: "b"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: folder.appending(path: ".build"), withIntermediateDirectories: true)
        try """
        container.register(Clock.self) { _ in SystemClock() }
        container.register(Clock.self) { _ in SystemClock() }
        """.write(to: folder.appending(path: "a.swift"), atomically: true, encoding: .utf8)
        try """
        container.register(Feed.self) { r in
            Feed(store: r.resolve(Store.self, name: "disk")!, clock: r.resolve(Clock.self)!)
        }
        """.write(to: folder.appending(path: "b/App.swift"), atomically: true, encoding: .utf8)
        try "container.register(Ignored.self) { r in r.resolve(Hidden.self)! }".write(
            to: folder.appending(path: ".build/Skipped.swift"), atomically: true, encoding: .utf8)
        return folder
    }

    @Test("Text output: one diagnostic a line, paths as reached from the argument, then the summary")
    func text() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = CheckCommand.run(arguments: [folder.path])
        #expect(outcome.status == 1)
        let lines = outcome.standardOutput.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix("\(folder.path)/a.swift:2:11: warning: Clock is registered again;"))
        #expect(lines[0].hasSuffix(" [duplicate]"))
        #expect(lines[1].hasPrefix("\(folder.path)/b/App.swift:2:19: error: No registration for Store named \"disk\"."))
        #expect(lines[1].hasSuffix(" [missing]"))
        #expect(
            outcome.standardError
                == "keystone-check: 3 registrations, 2 resolves checked, 0 not checkable, 1 errors, 1 warnings\n")
    }

    @Test("JSON output: an array of objects with the six keys")
    func json() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let outcome = CheckCommand.run(arguments: ["--format", "json", folder.path + "/"])
        #expect(outcome.status == 1)
        let decoded = try JSONDecoder().decode([Diagnostic].self, from: Data(outcome.standardOutput.utf8))
        #expect(decoded.map { "\($0.file):\($0.brief):\($0.severity)" } == [
            "\(folder.path)/a.swift:2:11 duplicate:warning",
            "\(folder.path)/b/App.swift:2:19 missing:error",
        ])
        let objects = try #require(
            JSONSerialization.jsonObject(with: Data(outcome.standardOutput.utf8)) as? [[String: Any]])
        #expect(objects.allSatisfy { Set($0.keys) == ["file", "line", "column", "severity", "rule", "message"] })
        #expect(CheckCommand.json([]) == "[]\n")
    }

    @Test("Quotes, backslashes and control characters are escaped in JSON")
    func jsonEscapes() throws {
        let diagnostic = Diagnostic(
            file: "a\"b\\c.swift", line: 1, column: 2, severity: .error, rule: .cycle, message: "x\ny\t\u{1}")
        let decoded = try JSONDecoder().decode([Diagnostic].self, from: Data(CheckCommand.json([diagnostic]).utf8))
        #expect(decoded == [diagnostic])
    }

    @Test("Exit statuses: 0 for warnings only, 1 under --werror, 2 for bad usage and unreadable paths")
    func statuses() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let warningsOnly = folder.appending(path: "a.swift").path
        #expect(CheckCommand.run(arguments: [warningsOnly]).status == 0)
        #expect(CheckCommand.run(arguments: ["--werror", warningsOnly]).status == 1)
        #expect(CheckCommand.run(arguments: ["--format=json", warningsOnly]).status == 0)

        let missing = CheckCommand.run(arguments: [folder.appending(path: "nowhere").path])
        #expect(missing.status == 2)
        #expect(missing.standardError.contains("cannot read '\(folder.appending(path: "nowhere").path)'"))
        #expect(CheckCommand.run(arguments: []).status == 2)
        #expect(CheckCommand.run(arguments: ["--format", "xml", warningsOnly]).status == 2)
        #expect(CheckCommand.run(arguments: ["--frobnicate", warningsOnly]).standardError.contains("'--frobnicate'"))
        #expect(CheckCommand.run(arguments: ["--help"]).status == 0)
    }

    @Test("The stamp is written only when the check passes")
    func stamp() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stamp = folder.appending(path: "stamp.swift")
        _ = CheckCommand.run(arguments: ["--stamp", stamp.path, folder.path])
        #expect(!FileManager.default.fileExists(atPath: stamp.path))
        _ = CheckCommand.run(arguments: ["--stamp", stamp.path, folder.appending(path: "a.swift").path])
        #expect(FileManager.default.fileExists(atPath: stamp.path))
    }

    @Test("A stamp that cannot be written is reported in one clear line, after the summary")
    func unwritableStamp() throws {
        let folder = try Self.project()
        defer { try? FileManager.default.removeItem(at: folder) }
        let stamp = folder.appending(path: "no-such-folder/stamp.swift").path
        let outcome = CheckCommand.run(arguments: ["--stamp", stamp, folder.appending(path: "a.swift").path])
        #expect(outcome.status == 2)
        let lines = outcome.standardError.split(separator: "\n")
        #expect(lines.count == 2, "\(outcome.standardError)")
        #expect(lines.first?.hasPrefix("keystone-check: 2 registrations") == true)
        #expect(lines.last?.hasPrefix("keystone-check: cannot write the stamp file '\(stamp)': the directory '") == true)
        #expect(lines.last?.hasSuffix("no-such-folder' does not exist") == true)
    }

    @Test("Columns count the bytes of a file that is not valid UTF-8")
    func columnsInLatin1() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "keystone-check-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // "café" in Latin-1: one byte 0xE9, invalid as UTF-8, before the resolve on its line.
        var bytes = Array("container.register(Feed.self) { r in Feed(\"caf".utf8)
        bytes += [0xE9]
        bytes += Array("\", r.resolve(Store.self)!) }\n".utf8)
        let file = folder.appending(path: "Latin1.swift")
        try Data(bytes).write(to: file)
        let outcome = CheckCommand.run(arguments: [file.path])
        let column = bytes.firstIndex(of: UInt8(ascii: "v")).map { $0 - 5 } ?? 0
        #expect(outcome.standardOutput.hasPrefix("\(file.path):1:\(column + 1): error: No registration for Store."))
    }
}

@Suite("The built executable")
struct ExecutableTests {
    /// The `keystone-check` built next to the test bundle.
    static func executable() throws -> URL {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appending(path: "keystone-check")
            if FileManager.default.isExecutableFile(atPath: candidate.path) {
                return candidate
            }
            folder = folder.deletingLastPathComponent()
        }
        throw CocoaError(.fileNoSuchFile)
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = try executable()
        process.arguments = arguments
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let outData = output.fileHandleForReading.readDataToEndOfFile()
        let errData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }

    @Test("Its exit statuses are 1 for errors, 0 for a clean app, 2 for an unreadable path")
    func exitStatuses() throws {
        let errors = try Self.run([Fixture.url("Fixtures/Missing.swift").path])
        #expect(errors.status == 1)
        #expect(errors.output.split(separator: "\n").count == 3)
        #expect(errors.error.hasPrefix("keystone-check: 5 registrations, 5 resolves checked, 1 not checkable, 3 errors"))

        let clean = try Self.run([Fixture.url("Fixtures/ValidApps").path])
        #expect(clean.status == 0)
        #expect(clean.output == "")

        let warnings = try Self.run(["--werror", Fixture.url("Fixtures/Duplicate.swift").path])
        #expect(warnings.status == 1)

        let unreadable = try Self.run(["/nonexistent/keystone"])
        #expect(unreadable.status == 2)
        #expect(unreadable.error.contains("cannot read '/nonexistent/keystone'"))

        let usage = try Self.run(["--format"])
        #expect(usage.status == 2)
    }
}

@Suite("Context files")
struct ContextTests {
    @Test("A dependency's registrations answer the checked files' resolves; nothing is reported in it")
    func contextAnswers() {
        let app = SourceFile(
            path: "App.swift",
            text: "container.register(Feed.self) { r in Feed(r.resolve(Client.self)!, r.resolve(Cache.self)!) }")
        let core = SourceFile(
            path: "Core.swift",
            text: """
                container.register(Client.self) { r in Client(r.resolve(Missing.self)!) }
                container.register(Client.self) { _ in Client() }
                """,
            isContext: true)
        let report = Checker().check([app, core])
        #expect(report.diagnostics.map { "\($0.file):\($0.brief)" } == ["App.swift:1:70 missing"])
    }
}
