import Keystone
struct Article {}
struct Video {}
final class Repository<Model> { init() {} }
final class ListViewModel<Model> { init(repository: Repository<Model>) {} }
final class ArticleScreen {
    typealias Model = Article
}
final class ListAssembly<Model> {
    func assemble(_ container: Container) {
        container.register(ListViewModel<Model>.self) { r in
            ListViewModel(repository: r.resolve(Repository<Model>.self)!)
        }
    }
}
func setUp(_ container: Container) {
    container.register(Repository<Video>.self) { _ in Repository() }
    ListAssembly<Video>().assemble(container)
}
