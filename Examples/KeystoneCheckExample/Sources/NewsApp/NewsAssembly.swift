import Keystone

typealias Sections = [String]

/// Every registration of the app. The build-tool plugin checks them before the target compiles.
struct NewsAssembly: Assembly {
    func assemble(container: Container) {
        container.register(HTTPClient.self) { _ in StubHTTPClient() }
            .inObjectScope(.container)
        container.register(Analytics.self) { _ in Analytics() }
            .inObjectScope(.container)
        container.register(Sections.self) { _ in ["world", "science"] }
        container.register(ArticleStore.self) { r, section in
            RemoteArticleStore(client: r.resolve(HTTPClient.self)!, section: section)
        }
        container.register(HeadlinesViewModel.self, name: "front") { r in
            let section = r.resolve([String].self)!.first ?? "world"
            return HeadlinesViewModel(
                store: r.resolve(ArticleStore.self, argument: section)!,
                analytics: r.resolve(Analytics.self)!
            )
        }
        // The router and the view model need each other: the cycle is broken in initCompleted.
        container.register(Router.self) { r in Router(headlines: r.resolve(HeadlinesViewModel.self, name: "front")!) }
            .initCompleted { r, router in router.headlines.router = r.resolve(Router.self) }
    }
}
