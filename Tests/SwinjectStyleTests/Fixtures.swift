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

// The domain of the migration guide's samples.

protocol Animal {
    var name: String { get }
}

final class Cat: Animal {
    let name: String

    init(name: String) {
        self.name = name
    }
}
