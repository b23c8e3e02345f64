// swift-tools-version:6.1
import PackageDescription

/// The same upcoming language features the Keystone library is written against.
let upcomingFeatures: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "RequestScopes",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RequestScopes", targets: ["RequestScopes"]),
        .executable(name: "RequestScopesServer", targets: ["RequestScopesServer"]),
    ],
    dependencies: [
        .package(name: "Keystone", path: "../.."),
        // No traits: the example uses neither Hummingbird's swift-configuration support nor the parts that
        // need full Foundation, so Hummingbird itself is built without them.
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1", traits: []),
        // Packages Hummingbird depends on too, named for the APIs used directly: `Logger`'s methods (swift-log)
        // and the test's `String(buffer:)` (swift-nio).
        .package(url: "https://github.com/apple/swift-log", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
    ],
    targets: [
        .target(
            name: "RequestScopes",
            dependencies: [
                .product(name: "Keystone", package: "Keystone"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .executableTarget(
            name: "RequestScopesServer",
            dependencies: [
                "RequestScopes",
                .product(name: "Keystone", package: "Keystone"),
                .product(name: "Hummingbird", package: "hummingbird"),
            ],
            swiftSettings: upcomingFeatures
        ),
        .testTarget(
            name: "RequestScopesTests",
            dependencies: [
                "RequestScopes",
                .product(name: "Keystone", package: "Keystone"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: upcomingFeatures
        ),
    ],
    swiftLanguageModes: [.v6]
)
