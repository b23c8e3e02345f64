import Keystone

func registerApp(_ container: Container) {
    container.register(Clock.self) { _ in SystemClock() }
}
