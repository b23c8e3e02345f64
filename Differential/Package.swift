// swift-tools-version:6.0
import PackageDescription

// A differential randomized test of Keystone against Swinject 2.10.0 (the oracle); a package of its
// own so that the library itself depends on nothing. See README.md.
//
//     swift build -c release --package-path Differential
//     Differential/run.sh
let package = Package(
    name: "KeystoneDifferential",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "Keystone", path: ".."),
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
    ],
    targets: [
        // The vocabulary, generator, runner, comparison, shrinker and printer; imports neither library.
        .target(name: "DifferentialCore"),
        // One adapter per library, in modules of their own: both declare `Container`, `Resolver`, ...
        .target(
            name: "KeystoneSubject",
            dependencies: ["DifferentialCore", .product(name: "Keystone", package: "Keystone")]
        ),
        .target(
            name: "SwinjectSubject",
            dependencies: ["DifferentialCore", .product(name: "Swinject", package: "Swinject")]
        ),
        .executableTarget(name: "differential", dependencies: ["DifferentialCore", "KeystoneSubject", "SwinjectSubject"]),
    ],
    swiftLanguageModes: [.v6]
)
