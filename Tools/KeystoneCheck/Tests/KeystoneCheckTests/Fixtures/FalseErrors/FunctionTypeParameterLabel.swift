import Keystone
final class DetailViewModel { init(id: String) {} }
final class ListScreen { init(makeDetail: @escaping (String) -> DetailViewModel) {} }
typealias DetailFactory = (_ id: String) -> DetailViewModel
func registerClosures(_ container: Container) {
    container.register(DetailFactory.self) { _ in { id in DetailViewModel(id: id) } }
    container.register(ListScreen.self) { r in
        ListScreen(makeDetail: r.resolve(((String) -> DetailViewModel).self)!)
    }
}
