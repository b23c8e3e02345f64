import Foundation
import Keystone

/// A lock-guarded list of serials, in the order they were added.
final class SerialLog: @unchecked Sendable {
    // @unchecked: `values` is used only under `lock`.
    private let lock = NSLock()
    private var values: [Int] = []

    func add(_ value: Int) {
        lock.lock()
        values.append(value)
        lock.unlock()
    }

    var all: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return values
    }
}

/// Records the places that ran off the isolation they should have run on.
final class IsolationProbe: @unchecked Sendable {
    // @unchecked: every field is used under `lock`.
    private let lock = NSLock()
    private var failures: [String] = []
    private var checks = 0

    func check(_ place: String, _ ok: Bool) {
        lock.lock()
        checks += 1
        if !ok { failures.append(place) }
        lock.unlock()
    }

    var offIsolation: [String] {
        lock.lock()
        defer { lock.unlock() }
        return failures
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return checks
    }
}

/// Counts the disposals (or other ends) of each instance id, from any thread.
final class Ends: @unchecked Sendable {
    // @unchecked: `counts` is used only under `lock`.
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]

    func add(_ id: Int) {
        lock.lock()
        counts[id, default: 0] += 1
        lock.unlock()
    }

    func count(_ id: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return counts[id] ?? 0
    }

    var twice: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return counts.filter { $0.value > 1 }.map(\.key).sorted()
    }

    var total: Int {
        lock.lock()
        defer { lock.unlock() }
        return counts.values.reduce(0, +)
    }
}

/// Errors a log handler received, from any thread.
final class LoggedErrors: @unchecked Sendable {
    // @unchecked: `errors` is used only under `lock`.
    private let lock = NSLock()
    private var errors: [DIError] = []

    func append(_ error: DIError) {
        lock.lock()
        errors.append(error)
        lock.unlock()
    }

    var all: [DIError] {
        lock.lock()
        defer { lock.unlock() }
        return errors
    }
}
