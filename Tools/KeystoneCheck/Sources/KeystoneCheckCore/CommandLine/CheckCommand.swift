import Foundation

/// The `keystone-check` command line: `keystone-check [--format text|json] [--werror] PATH...`.
///
/// ```swift
/// let outcome = CheckCommand.run(arguments: ["--format", "json", "Sources"])
/// print(outcome.standardOutput, terminator: "")
/// exit(outcome.status)
/// ```
///
/// Exit status 1 when there is an error (or a warning under `--werror`), 0 when there is none, 2 for
/// bad usage or an unreadable path.
public enum CheckCommand {
    /// The output format.
    public enum Format: String, Sendable {
        /// One diagnostic a line: `FILE:LINE:COLUMN: error|warning: MESSAGE [RULE]`.
        case text
        /// A JSON array of objects with `file`, `line`, `column`, `severity`, `rule` and `message`.
        case json
    }

    /// What a run prints and returns.
    public struct Outcome: Sendable, Equatable {
        /// The text for standard output.
        public var standardOutput: String
        /// The text for standard error.
        public var standardError: String
        /// The exit status.
        public var status: Int32
    }

    /// The usage text.
    public static let usage = """
        usage: keystone-check [--format text|json] [--werror] [--stamp FILE] [--context PATH]... PATH...
          Checks the Keystone registrations and resolves in every .swift file under the paths.
          --format text|json  one diagnostic a line (the default), or a JSON array
          --werror            warnings fail the check too
          --stamp FILE        write FILE when the check passes (for build-tool plugins)
          --context PATH      count the registrations under PATH (code the checked files depend on)
                              without reporting anything in it

        """

    /// Runs the command with `arguments` (without the program name).
    public static func run(arguments: [String]) -> Outcome {
        var format = Format.text
        var werror = false
        var stamp: String?
        var paths: [String] = []
        var contextPaths: [String] = []
        var index = 0
        var optionsEnded = false
        func usageError(_ message: String) -> Outcome {
            Outcome(standardOutput: "", standardError: "keystone-check: \(message)\n" + usage, status: 2)
        }
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                paths.append(argument)
                continue
            }
            switch argument {
            case "--":
                optionsEnded = true
            case "--help", "-h":
                return Outcome(standardOutput: usage, standardError: "", status: 0)
            case "--werror":
                werror = true
            case "--format", "--stamp", "--context":
                guard index < arguments.count else { return usageError("\(argument) needs a value") }
                let value = arguments[index]
                index += 1
                if argument == "--stamp" {
                    stamp = value
                } else if argument == "--context" {
                    contextPaths.append(value)
                } else {
                    guard let chosen = Format(rawValue: value) else {
                        return usageError("unknown format '\(value)' (use text or json)")
                    }
                    format = chosen
                }
            default:
                if argument.hasPrefix("--format=") {
                    let value = String(argument.dropFirst("--format=".count))
                    guard let chosen = Format(rawValue: value) else {
                        return usageError("unknown format '\(value)' (use text or json)")
                    }
                    format = chosen
                } else {
                    return usageError("unknown option '\(argument)'")
                }
            }
        }
        guard !paths.isEmpty else { return usageError("no path to check") }

        let files: [SourceFile]
        do {
            files = SourceFiles.unique(
                try SourceFiles.collect(paths) + SourceFiles.collect(contextPaths, asContext: true))
        } catch {
            return Outcome(standardOutput: "", standardError: "keystone-check: \(error)\n", status: 2)
        }
        let report = Checker().check(files)
        let output: String
        switch format {
        case .text:
            output = report.diagnostics.map { $0.rendered + "\n" }.joined()
        case .json:
            output = json(report.diagnostics)
        }
        let failed = report.errorCount > 0 || (werror && report.warningCount > 0)
        if failed, let stamp {
            // A stamp left from an earlier pass must not let a build go on.
            try? FileManager.default.removeItem(atPath: stamp)
        }
        if !failed, let stamp {
            do {
                try "// keystone-check: \(report.registrationCount) registrations checked\n".write(
                    toFile: stamp, atomically: true, encoding: .utf8)
            } catch {
                return Outcome(
                    standardOutput: output,
                    standardError: report.summary + "\nkeystone-check: cannot write the stamp file '\(stamp)': "
                        + stampProblem(stamp) + "\n",
                    status: 2)
            }
        }
        return Outcome(standardOutput: output, standardError: report.summary + "\n", status: failed ? 1 : 0)
    }

    /// Why a stamp file cannot be written, in a few words.
    private static func stampProblem(_ stamp: String) -> String {
        let manager = FileManager.default
        let folder = (stamp as NSString).deletingLastPathComponent
        let directory = folder.isEmpty ? "." : folder
        var isDirectory: ObjCBool = false
        if manager.fileExists(atPath: stamp, isDirectory: &isDirectory), isDirectory.boolValue {
            return "it is a directory"
        }
        if !manager.fileExists(atPath: directory, isDirectory: &isDirectory) {
            return "the directory '\(directory)' does not exist"
        }
        if !isDirectory.boolValue {
            return "'\(directory)' is not a directory"
        }
        if !manager.isWritableFile(atPath: directory) {
            return "the directory '\(directory)' is not writable"
        }
        return "the file cannot be written"
    }

    /// The diagnostics as a JSON array, one object a line.
    public static func json(_ diagnostics: [Diagnostic]) -> String {
        guard !diagnostics.isEmpty else { return "[]\n" }
        let objects = diagnostics.map { diagnostic in
            "  {\"file\": \(quoted(diagnostic.file)), \"line\": \(diagnostic.line), \"column\": \(diagnostic.column), "
                + "\"severity\": \(quoted(diagnostic.severity.rawValue)), \"rule\": \(quoted(diagnostic.rule.rawValue)), "
                + "\"message\": \(quoted(diagnostic.message))}"
        }
        return "[\n" + objects.joined(separator: ",\n") + "\n]\n"
    }

    private static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case let control where control.value < 0x20:
                result += String(format: "\\u%04x", control.value)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
