import Keystone
import ComposableArchitecture   // declares `struct StoreOf<State, Action>`-style generics outside the checked files

struct AppState {}
enum AppAction {}
final class Effects<Action> { init() {} }
extension ViewStore {
    static func registerEffects(in container: Container) {
        container.register(Effects<Action>.self) { _ in Effects() }
    }
}
final class Screen { init(effects: Effects<AppAction>) {} }
func setUpReducers(_ container: Container) {
    ViewStore<AppState, AppAction>.registerEffects(in: container)
    container.register(Screen.self) { r in Screen(effects: r.resolve(Effects<AppAction>.self)!) }
}
