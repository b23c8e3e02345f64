import Testing

/// Runs the tests that replace `Container.logHandler` one at a time, whichever suites they are in: the
/// handler is process-wide, so two such tests running in parallel would each restore the other's handler
/// or see the other's messages. A test that swaps the handler carries `.swapsLogHandler`.
struct LogHandlerExclusion: TestTrait, SuiteTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> LogHandlerExclusion? {
        testCase == nil ? nil : self
    }

    func provideScope(
        for test: Test,
        testCase: Test.Case?,
        performing function: @Sendable () async throws -> Void
    ) async throws {
        await Turnstile.shared.enter()
        do {
            try await function()
        } catch {
            await Turnstile.shared.leave()
            throw error
        }
        await Turnstile.shared.leave()
    }
}

extension Trait where Self == LogHandlerExclusion {
    /// Runs the test (or each test of the suite) while no other test that carries it runs.
    static var swapsLogHandler: Self { LogHandlerExclusion() }
}

/// A lock for tasks: one holder at a time, the others suspended in order of arrival.
private actor Turnstile {
    static let shared = Turnstile()

    private var held = false
    private var queue: [CheckedContinuation<Void, Never>] = []

    func enter() async {
        guard held else {
            held = true
            return
        }
        await withCheckedContinuation { queue.append($0) }
    }

    func leave() {
        if queue.isEmpty {
            held = false
        } else {
            queue.removeFirst().resume()
        }
    }
}
