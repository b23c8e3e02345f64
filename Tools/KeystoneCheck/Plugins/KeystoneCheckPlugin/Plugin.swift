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
        // The sources of the targets it depends on, in this package or others, lend their
        // registrations: an assembly in a dependency answers the resolves of this target. The library's
        // own modules are left out: their generic internals register no service of the app.
        let contextFiles = Self.dependencies(of: target).flatMap { $0.sourceFiles(withSuffix: "swift").map(\.url) }
        let tool = try context.tool(named: "keystone-check")
        // The stamp is a Swift file compiled into the target, so the command always runs before the
        // target compiles; the tool writes it only when the check passes.
        let stamp = context.pluginWorkDirectoryURL.appending(path: "KeystoneCheckStamp.swift")
        return [
            .buildCommand(
                displayName: "Checking Keystone registrations in \(target.name)",
                executable: tool.url,
                arguments: ["--stamp", stamp.path()] + contextFiles.flatMap { ["--context", $0.path()] }
                    + sources.map { $0.path() },
                inputFiles: sources + contextFiles,
                outputFiles: [stamp]
            )
        ]
    }

    /// The modules of the Keystone library itself.
    static let libraryModules: Set<String> = ["Keystone", "KeystoneTesting"]

    /// Every source module target `target` depends on, directly or not, each once.
    static func dependencies(of target: SourceModuleTarget) -> [SourceModuleTarget] {
        var seen: Set<String> = [target.id]
        var found: [SourceModuleTarget] = []
        var pending: [any Target] = [target]
        while let current = pending.popLast() {
            for dependency in current.dependencies {
                let targets: [any Target] =
                    switch dependency {
                    case .target(let target): [target]
                    case .product(let product): product.targets
                    @unknown default: []
                    }
                for next in targets where !libraryModules.contains(next.name) && seen.insert(next.id).inserted {
                    pending.append(next)
                    if let module = next as? SourceModuleTarget {
                        found.append(module)
                    }
                }
            }
        }
        return found
    }
}
