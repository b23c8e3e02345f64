// The suites that only run the app launch: without a container, the physical limit of a launch, where the
// composition root written by hand (generated in AppLaunch/DirectSuite+AppLaunch.swift) calls every
// initializer directly; and on the leanest hand-written container (`LeanSuite`).

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

extension LeanSuite {
    /// The launch on the leanest hand-written container (see LeanLaunchContainer.swift): what registering
    /// and resolving cost when a registration is a dictionary slot and nothing more.
    static func appLaunch() -> MeasuredLoop {
        checkAppLaunch(name) { launchApp().resolve(AppRoot.self) }
        return { benchmark in
            for _ in benchmark.scaledIterations {
                blackHole(launchApp().resolve(AppRoot.self))
            }
        }
    }
}
