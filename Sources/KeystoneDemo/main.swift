import Foundation
import Keystone

// A small app wired with Keystone: an app container, a feature container as its child, and worker
// threads that resolve through a synchronized view.

protocol Clock: Sendable {
    func now() -> Date
}

struct SystemClock: Clock {
    func now() -> Date { Date() }
}

protocol Greeter: Sendable {
    func greet(_ name: String) -> String
}

struct TimedGreeter: Greeter {
    let clock: any Clock
    func greet(_ name: String) -> String {
        let hour = Calendar(identifier: .gregorian).component(.hour, from: clock.now())
        return (hour < 12 ? "Good morning, " : "Hello, ") + name
    }
}

let app = Container()
app.register(Clock.self) { _ in SystemClock() }.inObjectScope(.container)

let feature = Container(parent: app)
feature.register(Greeter.self) { r in TimedGreeter(clock: try r.resolveThrows(Clock.self)) }

let resolver = feature.synchronize()
let lines = await withTaskGroup(of: String.self) { group in
    for worker in 0..<4 {
        group.addTask { resolver.resolve(Greeter.self)!.greet("worker \(worker)") }
    }
    var lines: [String] = []
    for await line in group {
        lines.append(line)
    }
    return lines
}
print(lines.sorted().joined(separator: "\n"))

do {
    _ = try feature.resolveThrows(Greeter.self, name: "formal")
} catch {
    print("\nA deliberate mistake, explained:\n\(error)")
}

print()
feature.printStatus()
