import Foundation

/// Whether the code running now is on the main actor, asked without stopping the program when it is not.
///
/// The main actor's jobs run on the main dispatch queue; on Linux, under `swift test`, that queue is not
/// always drained by the main thread. So: the main thread, or any thread draining the main queue (told by
/// a queue-specific value set on it once).
@usableFromInline
enum MainActorCheck {
    private static let key: DispatchSpecificKey<UInt8> = {
        let key = DispatchSpecificKey<UInt8>()
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return key
    }()

    @usableFromInline
    static var isCurrent: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: key) == 1
    }
}
