// The differential test's command line: see README.md.
import DifferentialCore
import KeystoneSubject
import SwinjectSubject

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

func environment(_ name: String) -> String? {
    guard let value = getenv(name) else { return nil }
    return String(cString: value)
}

func number(_ text: String) -> UInt64? {
    text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
}

let mode = environment("DIFFERENTIAL_MODE") ?? "keystone"
let sequences = environment("DIFFERENTIAL_SEQUENCES").flatMap { Int($0) } ?? 300
let stepCount = environment("DIFFERENTIAL_STEPS").flatMap { Int($0) } ?? 100
let startSeed = environment("DIFFERENTIAL_SEED").flatMap(number) ?? 0x4B65_7973_746F_6E65
/// Replays one sequence by the seed a report printed.
let replay = environment("DIFFERENTIAL_REPLAY").flatMap(number)

let oracle: () -> any Engine = { SwinjectEngine() }
let subject: () -> any Engine
switch mode {
case "keystone": subject = { KeystoneEngine() }
case "self": subject = { SwinjectEngine() }
case "mutant": subject = { KeystoneEngine(mutant: true) }
default:
    print("DIFFERENTIAL_MODE must be keystone, self or mutant, not \(mode)")
    exit(2)
}
let oracleName = oracle().name, subjectName = subject().name

let seeds = replay.map { [$0] } ?? (0..<sequences).map { sequenceSeed(start: startSeed, index: $0) }
print(
    "differential: \(oracleName) vs \(subjectName), \(seeds.count) sequences of \(stepCount) steps,"
        + " DIFFERENTIAL_SEED=0x\(String(startSeed, radix: 16)), known differences: \(knownDifferences.map(\.name))"
)

var passed = 0, failed = 0
var distinct: [(signature: String, seeds: [UInt64])] = []
for (index, seed) in seeds.enumerated() {
    let steps = generate(seed: seed, count: stepCount)
    let check = { (steps: [Step]) in firstDivergence(steps, oracle: oracle, subject: subject) }
    guard let divergence = check(steps) else {
        passed += 1
        continue
    }
    failed += 1
    let shrunk = shrink(divergence, check: check)
    let key = signature(shrunk.steps)
    let seedText = "0x" + String(seed, radix: 16)
    print(
        "\nFAIL sequence \(index) (DIFFERENTIAL_REPLAY=\(seedText)): step \(divergence.step) diverges;"
            + " shrunk to \(shrunk.steps.count) steps"
    )
    if let known = distinct.firstIndex(where: { $0.signature == key }) {
        distinct[known].seeds.append(seed)
        print("  same shape as divergence #\(known + 1): \(key)")
        continue
    }
    distinct.append((key, [seed]))
    print("  divergence #\(distinct.count): \(key)")
    print("  \(oracleName): \(shrunk.oracle)")
    print("  \(subjectName): \(shrunk.subject)")
    print(swiftTest(name: "differential_\(seedText)", shrunk, oracle: shrunk.oracle, subject: shrunk.subject))
}

if !distinct.isEmpty {
    print("\nDistinct divergences (by shape of the shrunk sequence):")
    for (i, d) in distinct.enumerated() {
        print("  #\(i + 1) ×\(d.seeds.count): \(d.signature)")
    }
    print("\nThe reproductions above assume these declarations:\n\(swiftPreamble)")
}
print("\n\(passed) passed, \(failed) failed")
if mode == "mutant" {
    print(failed > 0 ? "mutant detected: the harness can fail" : "mutant NOT detected: the harness is too weak")
    exit(failed > 0 ? 0 : 1)
}
exit(failed > 0 ? 1 : 0)
