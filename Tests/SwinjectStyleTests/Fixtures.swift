// Services of the app-style tests.

protocol Greeter {
    var greeting: String { get }
}

final class Hello: Greeter {
    let greeting: String

    init(_ greeting: String = "hello") {
        self.greeting = greeting
    }
}

final class Screen {
    let greeter: any Greeter
    let title: String

    init(greeter: any Greeter, title: String) {
        self.greeter = greeter
        self.title = title
    }
}

/// Never registered.
final class Missing {}
