import Foundation
import Testing

// The reliability suites: randomized model checking, threaded model checking, a misuse catalogue,
// memory and slow-factory tests. Every suite is nested here, so `swift test --filter Reliability` runs
// exactly these, and the helper types below stay out of the rest of the test target's namespace.
//
// Knobs, read from the environment (all optional; the defaults keep a debug run to a few seconds):
//
// | variable | default | meaning |
// |---|---|---|
// | `KEYSTONE_MODEL_SEQUENCES` | 200 | random operation sequences checked against the model |
// | `KEYSTONE_MODEL_STEPS` | 200 | operations per sequence |
// | `KEYSTONE_MODEL_SEED` | unset | replay only this sequence seed (printed by a failure); also seeds the threaded run |
// | `KEYSTONE_MODEL_THREADED_ROUNDS` | 3 | rounds of the threaded model test |
// | `KEYSTONE_MODEL_THREADED_STEPS` | 2000 | resolves per worker thread and round |
@Suite("Reliability", .tags(.engine), .hangLimit)
enum Reliability {}

extension Reliability {
    /// The environment knobs above.
    enum Knobs {
        static func integer(_ name: String, default value: Int) -> Int {
            guard let text = ProcessInfo.processInfo.environment[name], let parsed = Int(text), parsed > 0 else {
                return value
            }
            return parsed
        }

        /// A seed given in decimal or as `0x…` hexadecimal.
        static func seed(_ name: String) -> UInt64? {
            guard let text = ProcessInfo.processInfo.environment[name]?.trimmingCharacters(in: .whitespaces) else {
                return nil
            }
            if text.lowercased().hasPrefix("0x") {
                return UInt64(text.dropFirst(2), radix: 16)
            }
            return UInt64(text)
        }

        static var sequences: Int { integer("KEYSTONE_MODEL_SEQUENCES", default: 200) }
        static var steps: Int { integer("KEYSTONE_MODEL_STEPS", default: 200) }
        static var replaySeed: UInt64? { seed("KEYSTONE_MODEL_SEED") }
        static var threadedRounds: Int { integer("KEYSTONE_MODEL_THREADED_ROUNDS", default: 3) }
        static var threadedSteps: Int { integer("KEYSTONE_MODEL_THREADED_STEPS", default: 2000) }
    }

    /// SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast, deterministic generator. The same seed gives the
    /// same numbers on every platform and toolchain, which is what a replayable failure needs; the
    /// standard library's `random(in:using:)` algorithms are not promised to stay the same.
    struct SplitMix64 {
        private var state: UInt64

        init(seed: UInt64) {
            state = seed
        }

        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }

        /// A number in `0..<bound` (the modulo bias is irrelevant for test generation).
        mutating func below(_ bound: Int) -> Int {
            precondition(bound > 0)
            return Int(next() % UInt64(bound))
        }

        /// True with probability `percent`/100.
        mutating func chance(_ percent: Int) -> Bool {
            below(100) < percent
        }

        /// One element of a non-empty collection.
        mutating func pick<C: RandomAccessCollection>(_ items: C) -> C.Element where C.Index == Int {
            items[items.startIndex + below(items.count)]
        }

        /// The seed of the `index`th sequence of a run that starts from `base`: every sequence has a seed of
        /// its own, printed on failure and replayable alone.
        static func derive(_ base: UInt64, _ index: Int) -> UInt64 {
            var mixer = SplitMix64(seed: base ^ (UInt64(index) &* 0xD6E8_FEB8_6659_FD93))
            return mixer.next()
        }
    }

    /// Messages collected from several threads.
    final class MessageLog: @unchecked Sendable {
        // @unchecked: `messages` is read and written only under `lock`.
        private let lock = NSLock()
        private var messages: [String] = []

        /// Adds `message`, on one line.
        func append(_ message: String) {
            let line = message.replacingOccurrences(of: "\n", with: " ⏎ ")
            lock.lock()
            messages.append(line)
            lock.unlock()
        }

        var all: [String] {
            lock.lock()
            defer { lock.unlock() }
            return messages
        }
    }

    /// Runs `count` bodies on threads of their own, started together, and returns when all have ended.
    /// Threads rather than a dispatch pool: on a two-core machine a pool may run the bodies one after
    /// the other, and a test meant to contend would not.
    static func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchGroup()
        for index in 0..<count {
            done.enter()
            let thread = Thread {
                ready.signal()
                go.wait()
                body(index)
                done.leave()
            }
            thread.stackSize = 4 << 20
            thread.start()
        }
        for _ in 0..<count {
            ready.wait()
        }
        for _ in 0..<count {
            go.signal()
        }
        done.wait()
    }
}
