import Foundation
import PackagePlugin

/// `swift package keystone-check [--format text|json] [--werror] [--target NAME ...]`: checks the
/// Swift sources of the package's targets (all of them, or those named) as one set of registrations.
@main
struct KeystoneCheckCommand: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        let passed = extractor.remainingArguments
        let targets = context.package.targets.compactMap { $0 as? SourceModuleTarget }.filter {
            names.isEmpty || names.contains($0.name)
        }
        let directories = targets.map { $0.directoryURL.path() }
        guard !directories.isEmpty else {
            Diagnostics.error("keystone-check: no source target to check")
            return
        }
        let tool = try context.tool(named: "keystone-check")
        let process = Process()
        process.executableURL = tool.url
        process.arguments = passed + directories
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 {
            Diagnostics.error("keystone-check failed with exit status \(process.terminationStatus)")
        }
    }
}
