// Keystone against Swinject and against a hand-written baseline.
//
// Every scenario below runs once per suite, as the benchmark "<scenario> / <suite>". The scenario names
// start with a number so that listings sort in this order; `compare.sh` pairs the three suites by the
// part before " / " and prints one table.
//
// Every benchmark uses the scaling factor `.kilo`: one sample runs `benchmark.scaledIterations`, 1,000
// operations, so a sample's nanoseconds and mallocs divided by 1,000 are per operation. compare.sh relies
// on it: change `operations_per_sample` there too if you change it here.
//
// The app launch runs in two more suites: "Direct", which has no container, and "Lean", a hand-written
// container with no object per registration (see DirectSuite.swift); compare.sh shows them in columns of
// their own.

import Benchmark

/// The app-launch scenario's name; "00" puts it first in the table.
let appLaunchName =
    "00 app launch (\(AppLaunch.assemblyCount) assemblies, \(AppLaunch.registrationCount) registrations, "
    + "\(AppLaunch.objectCount) objects)"

/// The scenarios, in the order of the table: the benchmark name and how to get its loop from a suite.
var scenarios: [(name: String, loop: (any Suite.Type) -> MeasuredLoop)] {
    [
        (appLaunchName, { $0.appLaunch() }),
        ("01 resolve .transient", { $0.resolveTransient() }),
        ("02 resolve .container (cached)", { $0.resolveContainer() }),
        ("03 resolve .graph", { $0.resolveGraph() }),
        ("04 resolve named, 1 of 100", { $0.resolveNamed() }),
        ("05 resolve with 1 argument", { $0.resolveOneArgument() }),
        ("06 resolve with 3 arguments", { $0.resolveThreeArguments() }),
        ("07 resolve from child, 1 level", { $0.resolveFromChild() }),
        ("08 resolve from child, 3 levels", { $0.resolveFromGreatGrandchild() }),
        ("09 transient chain of 10", { $0.resolveChain() }),
        ("10 graph fan-out of 5", { $0.resolveFanOut() }),
        ("11 failed resolve (nil), 100 registered", { $0.resolveUnregistered() }),
        ("12 synchronized .container, 1 thread", { $0.synchronizedContainer() }),
        ("13 synchronized .transient, 1 thread", { $0.synchronizedTransient() }),
        ("14 synchronized .container, 2 threads", { $0.synchronizedContainerTwoThreads() }),
        ("15 synchronized .transient, 2 threads", { $0.synchronizedTransientTwoThreads() }),
        ("16 register 1,000 names (per registration)", { $0.registerThousand() }),
        ("17 new container + 20 registers + 20 resolves", { $0.startup() }),
        ("20 resolve .transient among 10,000 registrations", { $0.resolveTransientAmongMany() }),
        ("21 resolve .container among 10,000 registrations", { $0.resolveContainerAmongMany() }),
    ]
}

/// The scenarios of Keystone's fronts, against the closest code of the other suites (see `FrontSuite`).
var frontScenarios: [(name: String, loop: (any FrontSuite.Type) -> MeasuredLoop)] {
    [("18 @Inject property (.global)", { $0.injectProperty() })]
}

var asyncFrontScenarios: [(name: String, loop: (any FrontSuite.Type) async -> AsyncMeasuredLoop)] {
    [("19 DIActor.resolve (shared)", { await $0.actorResolve() })]
}

var frontSuites: [any FrontSuite.Type] { [KeystoneFronts.self, SwinjectFronts.self, BaselineFronts.self] }

/// The name of the benchmark that measures the harness alone: a loop that does nothing.
let harnessBenchmarkName = "00 empty loop (harness overhead)"

/// The suites measured, one benchmark each per scenario.
var suites: [any Suite.Type] { [KeystoneSuite.self, SwinjectSuite.self, BaselineSuite.self] }

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        // `.throughput` is there because the JMH export compare.sh reads requires it. `.instructions` needs
        // hardware performance counters; where there are none it is simply not reported.
        metrics: [.wallClock, .instructions, .mallocCountTotal, .throughput],
        warmupIterations: 5,
        scalingFactor: .kilo,
        // Each benchmark stops at whichever limit comes first; the suite runs in a few minutes.
        maxDuration: .seconds(1),
        maxIterations: 2_000
    )

    // The harness allocates a few times per sample by itself (16 times on Linux with ordo-one/benchmark
    // 1.38.1); compare.sh subtracts this benchmark's mallocs from every other benchmark's.
    Benchmark(harnessBenchmarkName) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(index)
        }
    }

    // A launch takes up to a millisecond, so a sample of 1,000 up to a second: the launch benchmarks warm
    // up once and take more time, for at least a few samples per suite.
    let launchConfiguration = Benchmark.Configuration(warmupIterations: 1, maxDuration: .seconds(5))

    for scenario in scenarios {
        for suite in suites {
            Benchmark(
                "\(scenario.name) / \(suite.name)",
                configuration: scenario.name == appLaunchName ? launchConfiguration : Benchmark.defaultConfiguration,
                closure: { benchmark, loop in loop(benchmark) },
                // The suite builds its containers here, before warm-up and outside the measurement.
                setup: { scenario.loop(suite) }
            )
        }
    }

    Benchmark(
        "\(appLaunchName) / \(DirectSuite.name)",
        configuration: launchConfiguration,
        closure: { benchmark, loop in loop(benchmark) },
        setup: { DirectSuite.appLaunch() }
    )
    Benchmark(
        "\(appLaunchName) / \(LeanSuite.name)",
        configuration: launchConfiguration,
        closure: { benchmark, loop in loop(benchmark) },
        setup: { LeanSuite.appLaunch() }
    )

    for scenario in frontScenarios {
        for suite in frontSuites {
            Benchmark(
                "\(scenario.name) / \(suite.name)",
                closure: { benchmark, loop in loop(benchmark) },
                setup: { scenario.loop(suite) }
            )
        }
    }

    for scenario in lifetimeScenarios {
        for suite in lifetimeSuites {
            Benchmark(
                "\(scenario.name) / \(suite.name)",
                closure: { benchmark, loop in loop(benchmark) },
                setup: { scenario.loop(suite) }
            )
        }
    }

    // The warm-up scenario's operations last over a millisecond, so it too warms up once and takes more time.
    let warmUpConfiguration = Benchmark.Configuration(warmupIterations: 1, maxDuration: .seconds(5))

    for scenario in asyncScenarios {
        for suite in asyncSuites {
            Benchmark(
                "\(scenario.name) / \(suite.name)",
                configuration: scenario.name == warmUpAwaitingName
                    ? warmUpConfiguration : Benchmark.defaultConfiguration,
                closure: { benchmark, loop in await loop(benchmark) },
                setup: { await scenario.loop(suite) }
            )
        }
    }

    for scenario in asyncFrontScenarios {
        for suite in frontSuites {
            Benchmark(
                "\(scenario.name) / \(suite.name)",
                closure: { benchmark, loop in await loop(benchmark) },
                setup: { await scenario.loop(suite) }
            )
        }
    }
}
