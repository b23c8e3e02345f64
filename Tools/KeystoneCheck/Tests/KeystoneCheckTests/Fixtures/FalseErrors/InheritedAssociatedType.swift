import Keystone
protocol Module {
    associatedtype Model
    var sample: Model { get }
}
protocol ListModule: Module {}
final class Store<Model> { init() {} }
final class Screen<Model> { init(store: Store<Model>) {} }
extension ListModule {
    func register(in container: Container) {
        container.register(Store<Model>.self) { _ in Store() }
    }
}
struct Song {}
struct SongModule: ListModule { var sample: Song { Song() } }
func setUpSongs(_ container: Container) {
    SongModule().register(in: container)
    container.register(Screen<Song>.self) { r in Screen(store: r.resolve(Store<Song>.self)!) }
}
