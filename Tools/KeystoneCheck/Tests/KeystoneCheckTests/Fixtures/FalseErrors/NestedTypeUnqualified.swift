import Keystone
enum Feed {
    final class ViewModel {}
    final class Screen { init(viewModel: ViewModel) {} }
}
extension Feed {
    static func register(in container: Container) {
        container.register(ViewModel.self, name: "preview") { _ in ViewModel() }
        container.register(Screen.self) { r in Screen(viewModel: r.resolve(ViewModel.self)!) }
    }
}
