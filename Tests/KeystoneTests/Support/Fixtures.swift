import Foundation
import Keystone

// The domain of the DI Container guide, as it declares it, plus a few helpers shared by the tests.

protocol Animal {
    var name: String { get }
}

protocol Person {
    var name: String { get }
}

class Cat: Animal {
    let name: String

    init(name: String) {
        self.name = name
    }
}

class Dog: Animal {
    let name: String

    init(name: String) {
        self.name = name
    }
}

class Horse: Animal {
    let name: String
    let running: Bool

    convenience init(name: String) {
        self.init(name: name, running: false)
    }

    init(name: String, running: Bool) {
        self.name = name
        self.running = running
    }
}

class PetOwner: Person {
    let name: String
    let pet: Animal

    init(name: String, pet: Animal) {
        self.name = name
        self.pet = pet
    }
}

/// A value-type service.
struct Turtle: Animal {
    var name: String
}

/// An object with a settable dependency, for property and `initCompleted` injection.
final class Owner {
    var pet: Animal?
    var food: Food?
}

protocol Food: AnyObject {}
final class Sushi: Food {}

/// Counts events; safe to share between threads and tasks.
final class Counter: @unchecked Sendable {
    // @unchecked: `value` is only touched under `lock`.
    private let lock = NSLock()
    private var value = 0

    func increment() {
        _ = next()
    }

    /// Counts one more event and returns the count so far, from 1: a serial number.
    @discardableResult
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

/// An object whose deallocation a test can observe through a weak reference.
final class Tracked: Sendable {
    let id: Int
    init(id: Int = 0) { self.id = id }
}

/// A lock-guarded log of events, in order, written from any thread.
final class EventLog: @unchecked Sendable {
    // @unchecked: `events` is used only under `lock`.
    private let lock = NSLock()
    private var events: [String] = []

    func record(_ event: String) {
        lock.lock()
        events.append(event)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return events
    }
}

/// A behavior that runs `body` whenever a registration is made: a way to act while `register` runs.
final class RegistrationHook: Behavior {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
    func container<Type, Service>(
        _ container: Container,
        didRegisterType type: Type.Type,
        toService entry: ServiceEntry<Service>,
        withName name: String?
    ) {
        body()
    }
}

/// A gate a factory waits on until the test opens it.
final class Gate: @unchecked Sendable {
    // @unchecked: every field is used under `lock`.
    private let lock = NSLock()
    private var isOpen = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if isOpen {
                lock.unlock()
                continuation.resume()
            } else {
                waiting.append(continuation)
                lock.unlock()
            }
        }
    }

    func open() {
        lock.lock()
        isOpen = true
        let resumed = waiting
        waiting = []
        lock.unlock()
        for continuation in resumed {
            continuation.resume()
        }
    }
}
