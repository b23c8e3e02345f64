import Keystone

protocol NetworkClient {}
protocol ArticleRepository {}
typealias Repository = ArticleRepository

final class NetworkAssembly: Assembly {
    func assemble(container: Container) {
        container.register(NetworkClient.self) { _ in HTTPNetworkClient() }
            .inObjectScope(.container)
        container.register(Decoder.self, name: "json") { _ in JSONDecoder() }
    }
}

final class ArticleAssembly: Assembly {
    func assemble(container: Container) {
        container.register(ArticleRepository.self) { resolver in
            RemoteArticles(
                client: resolver.resolve(NetworkClient.self)!,
                decoder: resolver.resolve(Decoder.self, name: "json")!
            )
        }
        container.register(ArticleListViewModel.self) { (r: Resolver, category: String) in
            ArticleListViewModel(repository: r.resolve(Repository.self)!, category: category)
        }
        container.register(ArticleScreen.self) { r in
            ArticleScreen(model: r.resolve(ArticleListViewModel.self, argument: "news")!)
        }
    }
}
