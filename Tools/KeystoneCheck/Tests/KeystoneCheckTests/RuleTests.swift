import KeystoneCheckCore
import Testing

@Suite("The four rules, at exact positions")
struct RuleTests {
    @Test("A resolve nothing registers is an error naming the near misses, through aliases and optionals")
    func missing() throws {
        let report = try Fixture.check("Fixtures/Missing.swift")
        #expect(report.diagnostics.map(\.brief) == ["13:24 missing", "14:30 missing", "18:34 missing"])
        #expect(report.diagnostics.allSatisfy { $0.severity == .error })
        #expect(
            report.diagnostics[0].message.hasPrefix(
                "No registration for Animal named \"dog\". Registered for Animal: Animal named \"cat\"; Animal with 1 argument."
            ))
        #expect(
            report.diagnostics[1].message
                == "No registration for Clock. Nothing else is registered for Clock; register it with "
                + "container.register(Clock.self) { resolver in ... }.")
        #expect(report.diagnostics[2].message.hasPrefix("No registration for Animal with 2 arguments."))
        // `Storage` is an alias of `Database`, `Optional<Shelter>` is served by `Shelter`; `Schedule?` is
        // left unchecked (nothing is known about an optional of something unregistered).
        #expect(report.registrationCount == 5)
        #expect(report.checkedResolveCount == 5)
        #expect(report.notCheckableCount == 1)
    }

    @Test("Each cycle is one error at its first registration; initCompleted, Lazy and Provider break cycles")
    func cycle() throws {
        let report = try Fixture.check("Fixtures/Cycle.swift")
        #expect(report.diagnostics.map(\.brief) == ["4:7 cycle", "7:7 cycle", "17:7 cycle", "17:7 cycle"])
        #expect(report.diagnostics.map { $0.message.prefix { $0 != "." } } == [
            "Circular dependency: Ship -> Captain -> Ship",
            "Circular dependency: Engine -> Engine",
            "Circular dependency: North -> East -> North",
            "Circular dependency: North -> East -> South -> North",
        ])
    }

    @Test("A synchronous resolve of an async or main-actor key is an error unless warmUp() creates it")
    func isolation() throws {
        let report = try Fixture.check("Fixtures/Isolation.swift")
        #expect(report.diagnostics.map(\.brief) == [
            "12:23 isolation",  // RemoteConfig, async, in a synchronous factory
            "14:22 isolation",  // Token takes an argument: warmUp() cannot create it
            "15:23 isolation",  // Screen, main actor, from a synchronous factory
            "22:73 isolation",  // RemoteConfig from a main-actor factory
            "27:51 isolation",  // RemoteConfig in an initCompleted action
        ])
        #expect(report.diagnostics[0].message.hasPrefix("RemoteConfig is created only by an async factory"))
        #expect(report.diagnostics[2].message.hasPrefix("Screen named \"main\" is created only by a main-actor factory"))
    }

    @Test("Every re-registration of a key is a warning, files ordered by relative path")
    func duplicate() throws {
        let report = try Fixture.check("Fixtures/Duplicate.swift", "Fixtures/DuplicateOther.swift")
        #expect(report.diagnostics.map { "\($0.file):\($0.brief)" } == [
            "Fixtures/Duplicate.swift:7:9 duplicate",
            "Fixtures/DuplicateOther.swift:4:15 duplicate",
        ])
        #expect(report.diagnostics.allSatisfy { $0.severity == .warning })
        #expect(
            report.diagnostics[1].message
                == "Logger named \"file\" is registered again; this registration replaces the one at "
                + "Fixtures/Duplicate.swift:6 (a container keeps the last registration of a key).")
    }

    @Test("Apps written in several styles check clean, alone and together")
    func validApps() throws {
        let names = ["AssemblyStyle", "AsyncStyle", "ClosureStyle", "FrontStyle"]
        for name in names {
            let report = try Fixture.check("Fixtures/ValidApps/\(name).swift")
            #expect(report.diagnostics == [], "\(name)")
            #expect(report.checkedResolveCount > 0, "\(name)")
        }
        let together = Checker().check(try names.map { try Fixture.file("Fixtures/ValidApps/\($0).swift") })
        #expect(together.diagnostics == [])
    }
}
