// The app launch without a container, the physical limit of a launch: the composition root written by
// hand (generated in AppLaunch/DirectSuite+AppLaunch.swift) calls every initializer directly.

import Benchmark

/// The app-launch scenario alone, with no container: benchmarks "<scenario> / Direct".
enum DirectSuite {
    static let name = "Direct"

    /// Only the initializers: one per object of the launch, nothing registered, nothing looked up.
    static func appLaunch() -> MeasuredLoop {
        checkAppLaunch(name) { makeAppRoot() }
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(makeAppRoot())
            }
        }
    }
}
