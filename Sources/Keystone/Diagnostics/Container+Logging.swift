import Foundation

extension Container {
    /// Receives every failure that an `Optional`-returning `resolve` turns into `nil`, from every
    /// container in the process. Set it to `nil` to silence Keystone.
    ///
    /// The default handler writes to standard error the failures that are bugs: cycles, failing
    /// factories, forwarding mismatches and deallocated containers. A missing registration is often
    /// an optional dependency left out on purpose, so it is written only when the environment variable
    /// `KEYSTONE_LOG_MISSING` is `1`.
    ///
    /// ```swift
    /// Container.logHandler = { error in logger.warning("\(error)") }
    /// ```
    public static var logHandler: (@Sendable (DIError) -> Void)? {
        // The struct comes out of `withLock`, not the closure: a closure returned through a generic
        // result would be wrapped in one more reabstraction thunk on every round trip.
        get { Log.handler.withLock { $0 }.body }
        set { Log.handler.withLock { $0 = Log.Handler(body: newValue) } }
    }

    /// The handler ``logHandler`` starts with.
    public static let defaultLogHandler: @Sendable (DIError) -> Void = { error in
        if case .notRegistered = error, !Log.logsMissingRegistrations {
            return
        }
        FileHandle.standardError.write(Data("Keystone: resolve returned nil. \(error)\n".utf8))
    }
}

/// Where `resolve` reports the failures it swallows.
@usableFromInline
enum Log {
    /// The handler, wrapped in a struct: a closure stored directly as a generic `Value` would be
    /// re-wrapped in a reabstraction thunk on every `inout` access, growing without bound.
    struct Handler {
        let body: (@Sendable (DIError) -> Void)?
    }

    static let handler = LockedValue(Handler(body: Container.defaultLogHandler))

    static let logsMissingRegistrations = ProcessInfo.processInfo.environment["KEYSTONE_LOG_MISSING"] == "1"

    @usableFromInline
    static func failure(_ error: DIError) {
        handler.withLock { $0 }.body?(error)
    }
}
