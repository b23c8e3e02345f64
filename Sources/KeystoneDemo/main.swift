import Foundation
import Keystone

// A small bookshop wired with Keystone.
//
// - Modules (Registry) register the app-wide services into the app container and run startup and
//   shutdown code.
// - Each feature (catalog, checkout, recommendations) gets a child container of its own.
// - Worker threads take orders concurrently through one synchronized resolver.
// - One feature is misconfigured on purpose: verify() finds it before anything crashes.
// - At the end: the status report and the dependency graph, as Mermaid.

// MARK: - App-wide services

protocol Clock: Sendable {
    func now() -> Date
}

struct SystemClock: Clock {
    func now() -> Date { Date() }
}

/// Collects log lines from any thread; printed in order at the end.
final class Journal: @unchecked Sendable {
    // @unchecked: `lines` is only touched under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []

    func write(_ line: String) {
        lock.lock()
        lines.append(line)
        lock.unlock()
    }

    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return lines
    }
}

/// An in-memory table of orders, shared by every worker.
final class OrderBook: @unchecked Sendable {
    // @unchecked: `orders` is only touched under `lock`.
    private let lock = NSLock()
    private var orders: [Order] = []

    func record(_ order: Order) {
        lock.lock()
        orders.append(order)
        lock.unlock()
    }

    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return orders.count
    }

    var revenue: Cents {
        lock.lock()
        defer { lock.unlock() }
        return Cents(orders.reduce(0) { $0 + $1.total.value })
    }
}

enum CoreModule: RegistryModule {
    static func onStartup() {
        eager(Journal.self) { Journal() }
        register(Clock.self) { SystemClock() }
        register(OrderBook.self) { OrderBook() }
        Registry.resolve(Journal.self).write("core module started")
    }

    static func onShutdown() {
        Registry.resolve(Journal.self).write("core module stopped")
    }
}

enum PricingModule: RegistryModule {
    static func imports() -> [any RegistryModule.Type] { [CoreModule.self] }

    static func onStartup() {
        register(TaxPolicy.self) { TaxPolicy(percent: 7) }
        Registry.resolve(Journal.self).write("pricing module started")
    }

    static func onShutdown() {
        Registry.resolve(Journal.self).write("pricing module stopped")
    }
}

extension Registry: RegistryModule {
    /// The bookshop's feature modules, started before the root module.
    public static func imports() -> [any RegistryModule.Type] { [PricingModule.self] }
    /// Registers the services the whole bookshop shares.
    public static func onStartup() {}
}

struct TaxPolicy: Sendable {
    let percent: Int
    func gross(_ net: Cents) -> Cents { Cents(net.value + (net.value * percent + 50) / 100) }
}

/// An amount of money, in cents.
struct Cents: Sendable, CustomStringConvertible {
    let value: Int
    init(_ value: Int) { self.value = value }
    var description: String { "$\(value / 100).\(String(format: "%02d", value % 100))" }
}

// MARK: - Catalog feature

struct Book: Sendable {
    let isbn: String
    let title: String
    let price: Cents
}

protocol Catalog: Sendable {
    func book(isbn: String) -> Book?
    func search(_ words: String) -> [Book]
}

struct InMemoryCatalog: Catalog {
    let books: [Book]

    func book(isbn: String) -> Book? { books.first { $0.isbn == isbn } }

    func search(_ words: String) -> [Book] {
        books.filter { $0.title.localizedCaseInsensitiveContains(words) }
    }
}

// MARK: - Checkout feature

struct Order: Sendable {
    let customer: String
    let books: [Book]
    let total: Cents
}

final class CheckoutService: Sendable {
    let catalog: any Catalog
    let tax: TaxPolicy
    let orders: OrderBook
    let journal: Journal

    init(catalog: any Catalog, tax: TaxPolicy, orders: OrderBook, journal: Journal) {
        self.catalog = catalog
        self.tax = tax
        self.orders = orders
        self.journal = journal
    }

    func checkout(customer: String, isbns: [String]) -> Order {
        let books = isbns.compactMap(catalog.book(isbn:))
        let total = tax.gross(Cents(books.reduce(0) { $0 + $1.price.value }))
        let order = Order(customer: customer, books: books, total: total)
        orders.record(order)
        journal.write("\(customer) bought \(books.count) books for \(total)")
        return order
    }
}

// MARK: - Recommendations feature (misconfigured on purpose)

protocol RankingModel: Sendable {}

final class Recommender: Sendable {
    let catalog: any Catalog
    let model: any RankingModel
    init(catalog: any Catalog, model: any RankingModel) {
        self.catalog = catalog
        self.model = model
    }
}

// MARK: - Wiring

let app = Container()
Container.withCurrent(app) {
    Registry.performStartup()
}

let catalog = Container(parent: app)
catalog.register(Catalog.self) { _ in
    InMemoryCatalog(books: [
        Book(isbn: "978-0", title: "Swift in Depth", price: Cents(3900)),
        Book(isbn: "978-1", title: "Concurrency by Example", price: Cents(4500)),
        Book(isbn: "978-2", title: "The Container Handbook", price: Cents(2900)),
        Book(isbn: "978-3", title: "Deep Swift Generics", price: Cents(5200)),
    ])
}.inObjectScope(.container)

let checkout = Container(parent: catalog)
checkout.register(CheckoutService.self) { r in
    CheckoutService(
        catalog: try r.resolveThrows(Catalog.self),
        tax: try r.resolveThrows(TaxPolicy.self),
        orders: try r.resolveThrows(OrderBook.self),
        journal: try r.resolveThrows(Journal.self)
    )
}

let recommendations = Container(parent: catalog)
recommendations.register(Recommender.self) { r in
    // The ranking model was never registered: verify() reports it below.
    Recommender(catalog: try r.resolveThrows(Catalog.self), model: try r.resolveThrows(RankingModel.self))
}

// MARK: - Checking the wiring before use

print("== verify()")
for (name, feature) in [("checkout", checkout), ("recommendations", recommendations)] {
    let problems = feature.verify()
    print(problems.isEmpty ? "\(name): no problems" : "\(name): \(problems.count) problem(s)")
    for problem in problems {
        print(problem.description.split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
    }
}

// MARK: - Concurrent work

print("\n== Taking orders on 4 worker threads")
let resolver = checkout.synchronize()
let customers = ["ada", "grace", "linus", "barbara", "ken", "margaret", "dennis", "frances"]
let finished = DispatchGroup()
for worker in 0..<4 {
    finished.enter()
    Thread {
        defer { finished.leave() }
        for (index, customer) in customers.enumerated() where index % 4 == worker {
            guard let service = resolver.resolve(CheckoutService.self) else { continue }
            let wanted = service.catalog.search(index.isMultiple(of: 2) ? "swift" : "con").map(\.isbn)
            _ = service.checkout(customer: customer, isbns: wanted)
        }
    }.start()
}
finished.wait()
let orderBook = resolver.resolve(OrderBook.self)!
print("\(orderBook.count) orders, revenue \(orderBook.revenue)")

// MARK: - Reporting and shutting down

print("\n== Status of the checkout container")
checkout.printStatus()

print("\n== Dependency graph of the checkout container (Mermaid)")
print(checkout.dependencyGraph().mermaid)

let journal = resolver.resolve(Journal.self)!
Container.withCurrent(app) {
    Registry.performShutdown()
}

print("\n== Journal")
for line in journal.all {
    print(line)
}
