// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "KeystoneCheckExample",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Keystone", path: "../.."),
        .package(name: "KeystoneCheck", path: "../../Tools/KeystoneCheck"),
    ],
    targets: [
        .executableTarget(
            name: "NewsApp",
            dependencies: [.product(name: "Keystone", package: "Keystone")],
            // Checks the target's registrations before it compiles: a mistake fails `swift build`.
            plugins: [.plugin(name: "KeystoneCheckPlugin", package: "KeystoneCheck")]
        )
    ],
    swiftLanguageModes: [.v6]
)
