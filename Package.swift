// swift-tools-version:6.0
import PackageDescription

/// Upcoming language features the library is written against, one per line with its reason.
let upcomingFeatures: [SwiftSetting] = [
    // Every existential is spelled `any P`, so a reader sees where dynamic dispatch happens.
    .enableUpcomingFeature("ExistentialAny"),
    // `import` is internal unless marked `public`, so no dependency leaks into the public API by accident.
    .enableUpcomingFeature("InternalImportsByDefault"),
    // A member is visible only where its module is imported, never through a transitive import.
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Keystone",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "Keystone", targets: ["Keystone"]),
        .library(name: "KeystoneTesting", targets: ["KeystoneTesting"]),
    ],
    targets: [
        .target(name: "Keystone", swiftSettings: upcomingFeatures),
        .target(name: "KeystoneTesting", dependencies: ["Keystone"], swiftSettings: upcomingFeatures),
        .executableTarget(name: "KeystoneDemo", dependencies: ["Keystone"]),
        .testTarget(name: "KeystoneTests", dependencies: ["Keystone"]),
        .testTarget(name: "KeystoneTestingTests", dependencies: ["KeystoneTesting", "Keystone"]),
        // App-style extensions on `Resolver` and `Container`, in a module of their own: like an app's, they
        // change which `resolve` an unannotated call in that module picks.
        .testTarget(name: "SwinjectStyleTests", dependencies: ["Keystone"]),
    ],
    swiftLanguageModes: [.v6]
)
