import Foundation
import PackagePlugin

/// Runs `keystone-check` over the Swift sources of the target that applies it, so that a missing
/// registration, a cycle or an isolation mistake fails `swift build` with `file:line:column` errors.
///
/// ```swift
/// .target(
///     name: "App",
///     dependencies: [.product(name: "Keystone", package: "Keystone")],
///     plugins: [.plugin(name: "KeystoneCheckPlugin", package: "KeystoneCheck")]
/// )
/// ```
@main
struct KeystoneCheckPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let target = target as? SourceModuleTarget else { return [] }
        let sources = target.sourceFiles(withSuffix: "swift").map(\.url)
        guard !sources.isEmpty else { return [] }
        let tool = try context.tool(named: "keystone-check")
        // The stamp is a Swift file compiled into the target, so the command always runs before the
        // target compiles; the tool writes it only when the check passes.
        let stamp = context.pluginWorkDirectoryURL.appending(path: "KeystoneCheckStamp.swift")
        return [
            .buildCommand(
                displayName: "Checking Keystone registrations in \(target.name)",
                executable: tool.url,
                arguments: ["--stamp", stamp.path()] + sources.map { $0.path() },
                inputFiles: sources,
                outputFiles: [stamp]
            )
        ]
    }
}
