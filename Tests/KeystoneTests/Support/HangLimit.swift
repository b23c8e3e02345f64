import Foundation
import Testing

/// Turns a hang into a failure: a test case that has not finished `seconds` after it started prints its
/// name and ends the test process with a failing status, so a deadlock or a wait that is never satisfied
/// stops the run (naming the test) instead of blocking it forever.
///
/// Swift Testing's own `.timeLimit` records an issue when the limit passes, but then still waits for the
/// test's task, which a blocked thread or a continuation nobody resumes never ends; hence a watchdog
/// that does not wait. Every suite that waits for threads, tasks or actors carries it:
///
/// ```swift
/// @Suite("Thread safety", .hangLimit)
/// ```
struct HangLimit: TestTrait, SuiteTrait, TestScoping {
    /// Far above what any test here takes, even under Thread Sanitizer on a busy two-core machine.
    static let defaultSeconds = 300

    let seconds: Int

    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> HangLimit? {
        testCase == nil ? nil : self
    }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        let finished = FinishFlag()
        let name = test.name
        let limit = seconds
        let location = test.sourceLocation
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(limit)) {
            guard !finished.isSet else { return }
            FileHandle.standardError.write(
                Data(
                    "✘ Test \"\(name)\" (\(location.fileID):\(location.line)) did not finish within \(limit) s: it hangs. Ending the test run.\n"
                        .utf8
                )
            )
            exit(EXIT_FAILURE)
        }
        defer { finished.set() }
        try await function()
    }
}

extension Trait where Self == HangLimit {
    /// Ends the test run with a failure naming the test when a test case runs longer than 300 seconds.
    static var hangLimit: Self { HangLimit(seconds: HangLimit.defaultSeconds) }

    /// Ends the test run with a failure naming the test when a test case runs longer than `seconds`.
    static func hangLimit(seconds: Int) -> Self { HangLimit(seconds: seconds) }
}

/// A flag set once, read from another thread (or task).
final class FinishFlag: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = false

    func set() {
        lock.lock()
        value = true
        lock.unlock()
    }

    var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
