import Keystone
protocol Analytics {}
protocol Logger {}
final class DebugAnalytics: Analytics { init(logger: Logger) {} }
final class LiveAnalytics: Analytics {}
final class ConsoleLogger: Logger {}
final class RemoteLogger: Logger { init(analytics: Analytics) {} }

func registerTelemetry(_ container: Container) {
    container.register(Analytics.self) { r in
        #if DEBUG
        return DebugAnalytics(logger: r.resolve(Logger.self)!)
        #else
        return LiveAnalytics()
        #endif
    }
    container.register(Logger.self) { r in
        #if DEBUG
        return ConsoleLogger()
        #else
        return RemoteLogger(analytics: r.resolve(Analytics.self)!)
        #endif
    }
}
