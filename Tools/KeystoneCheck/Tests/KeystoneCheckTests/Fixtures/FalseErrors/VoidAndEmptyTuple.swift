import Keystone
final class Signal<Value> { init() {} }
final class Screen { init(done: Signal<Void>, handler: @escaping () -> Void) {} }
func registerSignals(_ container: Container) {
    container.register(Signal<()>.self) { _ in Signal() }
    container.register((() -> ()).self) { _ in {} }
    container.register(Screen.self) { r in
        Screen(done: r.resolve(Signal<Void>.self)!, handler: r.resolve((() -> Void).self)!)
    }
}
