import Foundation
import Keystone
import KeystoneCheckCore
import Testing

/// The containers in `Agreement/` are built and verified at run time, and their source files are
/// checked: both must find the same problems.
@Suite("The check agrees with verify()")
struct AgreementTests {
    /// A problem as `rule key`, with a cycle's keys sorted (the runtime starts a cycle wherever its
    /// first resolve enters it).
    static func runtime(_ problems: [DIError]) -> Set<String> {
        Set(
            problems.map { problem in
                switch problem {
                case .notRegistered(let key, _, _): "missing \(key)"
                case .circularDependency(let path): "cycle " + Set(path.map(\.description)).sorted().joined(separator: ",")
                case .asyncResolutionRequired(let key, _), .mainActorRequired(let key, _): "isolation \(key)"
                default: "other \(problem)"
                }
            })
    }

    static func checked(_ file: String) throws -> Set<String> {
        let report = try Fixture.check("Agreement/\(file)")
        return Set(
            report.diagnostics.map { diagnostic in
                let message = diagnostic.message
                switch diagnostic.rule {
                case .missing:
                    let key = message.dropFirst("No registration for ".count).prefix { $0 != "." }
                    return "missing \(key)"
                case .cycle:
                    let path = message.dropFirst("Circular dependency: ".count).prefix { $0 != "." }
                    return "cycle " + Set(path.components(separatedBy: " -> ")).sorted().joined(separator: ",")
                case .isolation:
                    return "isolation " + message.components(separatedBy: " is created only")[0]
                case .duplicate:
                    return "duplicate \(message)"
                }
            })
    }

    @Test("A missing name and a missing type, with the near miss")
    func missing() throws {
        let problems = MissingGraph.make().verify()
        #expect(Self.runtime(problems) == ["missing AgreementPet named \"dog\"", "missing AgreementHome"])
        #expect(try Self.checked("MissingGraph.swift") == Self.runtime(problems))
        let message = try Fixture.check("Agreement/MissingGraph.swift").diagnostics[0].message
        #expect(message.contains("Registered for AgreementPet: AgreementPet named \"cat\"."))
    }

    @Test("One cycle, and none where initCompleted breaks it")
    func cycle() throws {
        let problems = CycleGraph.make().verify()
        #expect(Self.runtime(problems) == ["cycle AgreementCaptain,AgreementShip"])
        #expect(try Self.checked("CycleGraph.swift") == Self.runtime(problems))
    }

    @Test("Async and main-actor dependencies of synchronous factories, except what warmUp() creates")
    func isolation() throws {
        let problems = IsolationGraph.make().verify()
        #expect(Self.runtime(problems) == ["isolation AgreementRemote", "isolation AgreementScreen"])
        #expect(try Self.checked("IsolationGraph.swift") == Self.runtime(problems))
    }

    @Test("A clean graph is clean for both")
    func clean() throws {
        var samples = SampleArguments()
        samples.add(AgreementJob.self, arguments: "nightly")
        #expect(CleanGraph.make().verify(samples: samples) == [])
        #expect(try Self.checked("CleanGraph.swift") == [])
        #expect(try Fixture.check("Agreement/CleanGraph.swift").checkedResolveCount == 3)
    }
}
