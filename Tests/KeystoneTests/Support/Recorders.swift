import Foundation

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
