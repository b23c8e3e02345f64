import Hummingbird
import Keystone
import RequestScopes

// The orders server on 127.0.0.1:8080, printing each request's log lines:
//
//     curl -X POST 'http://127.0.0.1:8080/orders/book?quantity=2'
//
// Ctrl-C stops it; the app's services are then disposed of (the order store is closed).
let app = AppServices { container in
    container.register(AccessLog.self) { _ in AccessLog(echo: true) }
}
try await buildApplication(app: app).runService()
let orders = app.resolver.resolve(OrderStore.self)?.committedOrderCount ?? 0
try await app.shutdown()
print("Stopped after \(app.metrics.scopesEnded) request(s), \(orders) order(s) committed.")
