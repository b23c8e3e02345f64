import Foundation
import Keystone

// A small bookshop wired with Keystone.
//
// - The launch is profiled: every factory call of the registrations, the warm-up of the async services
//   and the first resolves, printed as a table of the slowest registrations. `--trace FILE` also writes
//   the profile as a Chrome trace (open it in Perfetto or chrome://tracing, or draw it with
//   Scripts/render-profile.py).
// - Modules (Registry) register the app-wide services into the app container and run startup and
//   shutdown code.
// - Three app-wide services load asynchronously; warmUp() creates them side by side at launch.
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

// MARK: - Services loaded asynchronously at launch

/// Waits as a slow source would (a file, the network) before handing back what it loaded.
func load<Value>(_ value: Value, after milliseconds: Int) async throws -> Value {
    try await Task.sleep(for: .milliseconds(milliseconds))
    return value
}

/// Exchange rates, fetched at launch.
final class ExchangeRates: Sendable {
    let perDollar: [String: Double]
    init(perDollar: [String: Double]) { self.perDollar = perDollar }
}

/// How many copies of each book are in the warehouse, read at launch.
final class StockLevels: Sendable {
    let copies: [String: Int]
    init(copies: [String: Int]) { self.copies = copies }
}

/// Readers' average ratings, read at launch.
final class ReviewScores: Sendable {
    let stars: [String: Double]
    init(stars: [String: Double]) { self.stars = stars }
}

/// The shop front's prices in other currencies: a synchronous service built on an async one, which
/// warmUp() creates after the async ones.
final class PriceBoard: Sendable {
    let rates: ExchangeRates
    let tax: TaxPolicy
    init(rates: ExchangeRates, tax: TaxPolicy) {
        self.rates = rates
        self.tax = tax
    }

    func price(_ net: Cents, in currency: String) -> String {
        let amount = Double(tax.gross(net).value) / 100 * (rates.perDollar[currency] ?? 1)
        return String(format: "%.2f %@", amount, currency)
    }
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

// MARK: - Wiring, profiled

let app = Container()
let catalog = Container(parent: app)
let checkout = Container(parent: catalog)
let recommendations = Container(parent: catalog)

/// Registers every service and starts the modules: the launch the profile below measures.
@MainActor func registerServices() {
    Container.withCurrent(app) {
        Registry.performStartup()
    }

    app.registerAsync(ExchangeRates.self) { _ in
        ExchangeRates(perDollar: try await load(["EUR": 0.92, "GBP": 0.79, "JPY": 151.2], after: 30))
    }.inObjectScope(.container)
    app.registerAsync(StockLevels.self) { _ in
        StockLevels(copies: try await load(["978-0": 12, "978-1": 3, "978-2": 0, "978-3": 7], after: 20))
    }.inObjectScope(.container)
    app.registerAsync(ReviewScores.self) { r in
        let journal = try await r.resolveAsync(Journal.self)
        let scores = ReviewScores(stars: try await load(["978-0": 4.6, "978-1": 4.1, "978-3": 3.8], after: 10))
        journal.write("loaded \(scores.stars.count) review scores")
        return scores
    }.inObjectScope(.container)
    app.register(PriceBoard.self) { r in
        PriceBoard(rates: try r.resolveThrows(ExchangeRates.self), tax: try r.resolveThrows(TaxPolicy.self))
    }.inObjectScope(.container)

    catalog.register(Catalog.self) { _ in
        InMemoryCatalog(books: [
            Book(isbn: "978-0", title: "Swift in Depth", price: Cents(3900)),
            Book(isbn: "978-1", title: "Concurrency by Example", price: Cents(4500)),
            Book(isbn: "978-2", title: "The Container Handbook", price: Cents(2900)),
            Book(isbn: "978-3", title: "Deep Swift Generics", price: Cents(5200)),
        ])
    }.inObjectScope(.container)

    checkout.register(CheckoutService.self) { r in
        CheckoutService(
            catalog: try r.resolveThrows(Catalog.self),
            tax: try r.resolveThrows(TaxPolicy.self),
            orders: try r.resolveThrows(OrderBook.self),
            journal: try r.resolveThrows(Journal.self)
        )
    }

    recommendations.register(Recommender.self) { r in
        // The ranking model was never registered: verify() reports it below.
        Recommender(catalog: try r.resolveThrows(Catalog.self), model: try r.resolveThrows(RankingModel.self))
    }
}

/// The launch: registrations and module startup, the async services created side by side, then the
/// first resolve of what the shop front needs.
@MainActor func launch() async throws -> PriceBoard {
    registerServices()
    let warmUpStarted = ContinuousClock.now
    try await app.warmUp()
    let (seconds, attoseconds) = (ContinuousClock.now - warmUpStarted).components
    let milliseconds = Double(seconds) * 1000 + Double(attoseconds) / 1e15
    print(
        "warmUp(): 3 async services that wait 30, 20 and 10 ms, all ready in "
            + String(format: "%.1f ms", milliseconds) + " (they overlap)"
    )
    _ = try checkout.resolveThrows(CheckoutService.self)
    return try app.resolveThrows(PriceBoard.self)
}

print("== Launch, profiled")
let (priceBoard, launchProfile) = try await app.profilingCreations {
    try await launch()
}
print(launchProfile.table(top: 10))
// Made by warmUp(): synchronous code now finds them without awaiting.
let inStock = app.resolve(StockLevels.self)?.copies["978-0"] ?? 0
let stars = app.resolve(ReviewScores.self)?.stars["978-0"] ?? 0
print("\"Swift in Depth\": \(priceBoard.price(Cents(3900), in: "EUR")), \(inStock) in stock, rated \(stars)")

let arguments = CommandLine.arguments.dropFirst()
if let flag = arguments.firstIndex(of: "--trace") {
    guard arguments.index(after: flag) < arguments.endIndex else {
        print("usage: KeystoneDemo [--trace FILE]")
        exit(2)
    }
    let path = arguments[arguments.index(after: flag)]
    try launchProfile.chromeTrace.write(toFile: path, atomically: true, encoding: .utf8)
    print("Wrote the launch's Chrome trace to \(path)")
}

// MARK: - Checking the wiring before use

print("\n== verify()")
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
