// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "KeystoneCheck",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "keystone-check", targets: ["keystone-check"]),
        .library(name: "KeystoneCheckCore", targets: ["KeystoneCheckCore"]),
        .plugin(name: "KeystoneCheckPlugin", targets: ["KeystoneCheckPlugin"]),
        .plugin(name: "KeystoneCheckCommand", targets: ["KeystoneCheckCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
        // The library itself, only for the tests that compare the check with `Container.verify()`.
        .package(name: "Keystone", path: "../.."),
    ],
    targets: [
        .target(
            name: "KeystoneCheckCore",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftParser", package: "swift-syntax"),
            ]
        ),
        .executableTarget(name: "keystone-check", dependencies: ["KeystoneCheckCore"]),
        .plugin(
            name: "KeystoneCheckPlugin",
            capability: .buildTool(),
            dependencies: ["keystone-check"]
        ),
        .plugin(
            name: "KeystoneCheckCommand",
            capability: .command(
                intent: .custom(verb: "keystone-check", description: "Checks Keystone registrations and resolves in the package's targets")
            ),
            dependencies: ["keystone-check"]
        ),
        .testTarget(
            name: "KeystoneCheckTests",
            dependencies: [
                "KeystoneCheckCore",
                "keystone-check",
                .product(name: "Keystone", package: "Keystone"),
            ],
            exclude: ["Fixtures"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
