// swift-tools-version:6.0
import PackageDescription

// Keystone's instruction-count gate: a driver that runs one scenario a given number of times, counted under
// `valgrind --tool=callgrind` by gate.sh. A package of its own, so that the library depends on nothing.
let package = Package(
    name: "InstructionCounts",
    dependencies: [
        .package(name: "Keystone", path: "../.."),
    ],
    targets: [
        .executableTarget(
            name: "instruction-counts",
            dependencies: [.product(name: "Keystone", package: "Keystone")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
