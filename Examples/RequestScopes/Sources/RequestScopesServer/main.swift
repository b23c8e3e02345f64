import Hummingbird
import Keystone
import RequestScopes

// The orders server on 127.0.0.1:8080, printing each request's log lines:
//
//     curl -X POST 'http://127.0.0.1:8080/orders/book?quantity=2'
//
// Options: `--port N` listens on port N instead (0 picks a free one); `--quiet` prints no request's lines
// (for measuring, `measure.sh`).
//
// Ctrl-C stops it; the app's services are then disposed of (the order store is closed).
struct Options {
    var port = 8080
    var echo = true

    init(_ arguments: [String]) {
        var arguments = arguments[...]
        while let argument = arguments.popFirst() {
            switch argument {
            case "--port":
                guard let value = arguments.popFirst().flatMap({ Int($0) }), (0...65_535).contains(value) else {
                    fatalError("--port needs a port number")
                }
                port = value
            case "--quiet":
                echo = false
            default:
                fatalError("unknown option \(argument); the options are --port N and --quiet")
            }
        }
    }
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let echo = options.echo
let app = AppServices { container in
    container.register(AccessLog.self) { _ in AccessLog(echo: echo) }
}
try await buildApplication(app: app, configuration: .init(address: .hostname("127.0.0.1", port: options.port))).runService()
let orders = app.resolver.resolve(OrderStore.self)?.committedOrderCount ?? 0
try await app.shutdown()
print("Stopped after \(app.metrics.scopesEnded) request(s), \(orders) order(s) committed.")
