import Foundation
import Keystone
import Testing

/// Services only this file resolves, so that a handler can pick its own failures out of those of
/// tests running at the same time.
private protocol LoggedService: AnyObject {}
private final class LoggedImplementation: LoggedService {}
private final class LoggedClient {
    let service: (any LoggedService)?
    init(service: (any LoggedService)?) { self.service = service }
}
private final class LoggedFailure {}
private struct LoggedOutage: Error, CustomStringConvertible {
    var description: String { "the logged service is down" }
}

/// What the default handler writes is checked in a child process, which runs `probe()` below with
/// its own environment: the switch for missing registrations is read once per process.
private final class LogProbeService {}
private final class LogProbeFailure {}
private struct LogProbeOutage: Error {}

/// Whether `error` is about one of this file's services.
private func isOwn(_ error: DIError) -> Bool {
    let own: [Any.Type] = [LoggedService.self, LoggedClient.self, LoggedFailure.self]
    switch error {
    case .notRegistered(let key, _, _), .factoryFailed(let key, _, _):
        return own.contains { $0 == key.serviceType }
    default:
        return false
    }
}

@Suite("The log handler", .serialized, .swapsLogHandler)
struct LogHandlerTests {
    /// Runs `body` with a handler that collects this file's failures and passes every other failure on
    /// to the handler installed before, which is restored afterwards.
    private func collecting(_ body: (LoggedErrors) -> Void) {
        let inbox = LoggedErrors()
        let previous = Container.logHandler
        Container.logHandler = { error in
            if isOwn(error) {
                inbox.append(error)
            } else {
                previous?(error)
            }
        }
        defer { Container.logHandler = previous }
        body(inbox)
    }

    @Test("A resolve of a missing registration sends the handler an error naming the key and its near misses")
    func missingRegistration() throws {
        var received: [DIError] = []
        collecting { inbox in
            let container = Container()
            container.register(LoggedService.self, name: "present") { _ in LoggedImplementation() }
            container.register(LoggedService.self) { (_, _: Int) in LoggedImplementation() }
            #expect(container.resolve(LoggedService.self, name: "absent") == nil)
            received = inbox.all
        }

        try #require(received.count == 1)
        guard case .notRegistered(let key, let path, let candidates) = received[0] else {
            Issue.record("expected a missing registration, got \(received[0])")
            return
        }
        #expect(key == ServiceKey(serviceType: LoggedService.self, name: "absent"))
        #expect(path.isEmpty)
        #expect(candidates.count == 2)
        #expect(candidates.contains(ServiceKey(serviceType: LoggedService.self, name: "present")))
        #expect(candidates.contains(ServiceKey(serviceType: LoggedService.self, argumentsType: Int.self)))

        let message = received[0].description
        #expect(message.hasPrefix("No registration for LoggedService named \"absent\"."))
        #expect(message.contains("Registered for LoggedService: "))
        #expect(message.contains("LoggedService named \"present\""))
        #expect(message.contains("LoggedService with arguments (Int)"))
    }

    @Test("A missing dependency is reported with the chain of services that needed it")
    func missingDependency() throws {
        var received: [DIError] = []
        collecting { inbox in
            let container = Container()
            container.register(LoggedClient.self) { r in LoggedClient(service: r.resolve(LoggedService.self)) }
            let client = container.resolve(LoggedClient.self)
            #expect(client != nil)
            #expect(client?.service == nil)
            received = inbox.all
        }

        try #require(received.count == 1)
        let expected = DIError.notRegistered(
            key: ServiceKey(serviceType: LoggedService.self),
            path: [ServiceKey(serviceType: LoggedClient.self)],
            candidates: []
        )
        #expect(received[0] == expected)
        #expect(received[0].description.contains("Needed by: LoggedClient -> LoggedService."))
        #expect(received[0].description.contains("Nothing else is registered for LoggedService"))
    }

    @Test("A factory that throws sends the handler the key and the error it threw")
    func failingFactory() throws {
        var received: [DIError] = []
        collecting { inbox in
            let container = Container()
            container.register(LoggedFailure.self, name: "down") { _ in throw LoggedOutage() }
            #expect(container.resolve(LoggedFailure.self, name: "down") == nil)
            received = inbox.all
        }

        try #require(received.count == 1)
        guard case .factoryFailed(let key, _, let underlying) = received[0] else {
            Issue.record("expected a failing factory, got \(received[0])")
            return
        }
        #expect(key == ServiceKey(serviceType: LoggedFailure.self, name: "down"))
        #expect(underlying is LoggedOutage)
        #expect(
            received[0].description
                == "The factory for LoggedFailure named \"down\" threw: the logged service is down"
        )
    }

    @Test("A nil handler silences failures: the handler it replaced is no longer called")
    func nilHandler() {
        let inbox = LoggedErrors()
        let previous = Container.logHandler
        defer { Container.logHandler = previous }
        Container.logHandler = { error in
            if isOwn(error) {
                inbox.append(error)
            }
        }
        let container = Container()
        _ = container.resolve(LoggedService.self)
        #expect(inbox.all.count == 1)

        Container.logHandler = nil
        #expect(Container.logHandler == nil)
        _ = container.resolve(LoggedService.self)
        _ = container.resolve(LoggedService.self, name: "other")
        #expect(inbox.all.count == 1)
    }

    @Test("A successful resolve sends the handler nothing")
    func successIsQuiet() {
        var received: [DIError] = []
        collecting { inbox in
            let container = Container()
            container.register(LoggedService.self) { _ in LoggedImplementation() }
            #expect(container.resolve(LoggedService.self) != nil)
            received = inbox.all
        }
        #expect(received.isEmpty)
    }

    // MARK: The default handler, in a child process

    /// Runs in the child process only: makes one missing-registration failure and one failing factory
    /// with the handler the process starts with, or with none.
    @Test(
        "Probe for the default handler's output (runs only in a child process)",
        .enabled(if: ProcessInfo.processInfo.environment["KEYSTONE_LOG_PROBE"] != nil)
    )
    func probe() {
        let mode = ProcessInfo.processInfo.environment["KEYSTONE_LOG_PROBE"] ?? ""
        if mode == "silenced" {
            Container.logHandler = nil
        }
        let container = Container()
        container.register(LogProbeService.self, name: "present") { _ in LogProbeService() }
        container.register(LogProbeFailure.self) { _ in throw LogProbeOutage() }
        _ = container.resolve(LogProbeService.self, name: "absent")
        _ = container.resolve(LogProbeFailure.self)
        print("log probe finished: \(mode)")
    }

    #if os(Linux)
        /// The standard output and error of `probe()`, run alone in a new process of this test binary
        /// in `mode`, with `KEYSTONE_LOG_MISSING` set to `logMissing` or unset.
        private func runProbe(mode: String, logMissing: String?) throws -> (stdout: String, stderr: String) {
            let binary = ProcessInfo.processInfo.arguments[0]
            try #require(FileManager.default.isExecutableFile(atPath: binary))
            var environment = ProcessInfo.processInfo.environment
            environment["KEYSTONE_LOG_PROBE"] = mode
            environment["KEYSTONE_LOG_MISSING"] = logMissing
            // The child writes to files, which cannot fill up and stall it as a pipe can.
            let folder = FileManager.default.temporaryDirectory
                .appendingPathComponent("keystone-log-probe-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let outURL = folder.appendingPathComponent("stdout")
            let errURL = folder.appendingPathComponent("stderr")
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
            let outHandle = try FileHandle(forWritingTo: outURL)
            let errHandle = try FileHandle(forWritingTo: errURL)

            let process = Process()
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = ["--testing-library", "swift-testing", "--filter", "LogHandlerTests/probe"]
            process.environment = environment
            process.standardOutput = outHandle
            process.standardError = errHandle
            try process.run()
            process.waitUntilExit()
            try outHandle.close()
            try errHandle.close()

            #expect(process.terminationStatus == 0)
            let stdout = try String(contentsOf: outURL, encoding: .utf8)
            let stderr = try String(contentsOf: errURL, encoding: .utf8)
            #expect(stdout.contains("log probe finished: \(mode)") || stderr.contains("log probe finished: \(mode)"))
            return (stdout, stderr)
        }

        @Test(
            "By default the default handler writes a failing factory to standard error, but not a missing registration"
        )
        func defaultHandlerOutput() throws {
            let output = try runProbe(mode: "default", logMissing: nil)
            #expect(output.stderr.contains("Keystone: resolve returned nil. The factory for LogProbeFailure threw: "))
            #expect(!output.stderr.contains("No registration for LogProbeService"))
        }

        @Test("With KEYSTONE_LOG_MISSING=1 the default handler also writes a missing registration and its near misses")
        func defaultHandlerWithMissing() throws {
            let output = try runProbe(mode: "default", logMissing: "1")
            #expect(
                output.stderr.contains(
                    "Keystone: resolve returned nil. No registration for LogProbeService named \"absent\"."
                )
            )
            #expect(output.stderr.contains("Registered for LogProbeService: LogProbeService named \"present\"."))
            #expect(output.stderr.contains("The factory for LogProbeFailure threw: "))
        }

        @Test("KEYSTONE_LOG_MISSING turns missing registrations on only when it is exactly 1")
        func defaultHandlerWithOtherValue() throws {
            let output = try runProbe(mode: "default", logMissing: "true")
            #expect(!output.stderr.contains("No registration for LogProbeService"))
            #expect(output.stderr.contains("The factory for LogProbeFailure threw: "))
        }

        @Test("A nil handler writes nothing, even with KEYSTONE_LOG_MISSING=1")
        func silencedOutput() throws {
            let output = try runProbe(mode: "silenced", logMissing: "1")
            #expect(!output.stderr.contains("resolve returned nil"))
            #expect(!output.stdout.contains("resolve returned nil"))
        }
    #endif
}
