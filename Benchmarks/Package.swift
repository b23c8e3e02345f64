// swift-tools-version:6.1
// 6.1 for package traits: ordo-one/benchmark (formerly package-benchmark) is used with only its
// "MallocInterposer" trait, which leaves out its default "RuntimeInterposer" trait and the extra dependency
// (swift-runtime-interposer) that trait brings in on Linux with Swift 6.3.
import PackageDescription

// Keystone's benchmarks, a package of their own so that the library itself depends on nothing.
//
//     swift package --package-path Benchmarks benchmark        # run everything (see compare.sh)
//     swift build -c release --package-path Benchmarks         # only compile
let package = Package(
    name: "KeystoneBenchmarks",
    platforms: [.macOS(.v13)],
    dependencies: [
        // The library, from this checkout whatever its directory is called.
        .package(name: "Keystone", path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", exact: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/Swinject/Swinject", exact: "2.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "KeystoneBenchmarks",
            dependencies: [
                .product(name: "Keystone", package: "Keystone"),
                .product(name: "Swinject", package: "Swinject"),
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/KeystoneBenchmarks",
            swiftSettings: [
                .enableUpcomingFeature("MemberImportVisibility"),
            ],
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
