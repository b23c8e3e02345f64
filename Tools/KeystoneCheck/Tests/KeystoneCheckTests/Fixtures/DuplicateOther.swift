import Keystone

func registerMore(_ container: Container) {
    container.register(Logger.self, name: "file") { _ in FileLogger() }
}
