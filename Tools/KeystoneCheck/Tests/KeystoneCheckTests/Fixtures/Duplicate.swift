import Keystone

extension Container {
    func registerAll() {
        register(Logger.self) { _ in ConsoleLogger() }
        register(Logger.self, name: "file") { _ in FileLogger() }
        register(Logger.self) { _ in OSLogger() }
        register(Logger.self) { _, level: Int in ConsoleLogger(level: level) }
    }
}
