import Keystone

@MainActor
func bootstrap() async throws -> Container {
    let container = Container()
    container.registerAsync(Database.self) { _ in try await Database.open() }
        .inObjectScope(.container)
    container.registerAsync(Feed.self) { r in Feed(db: try await r.resolveAsync(Database.self)) }
    container.register(Cache.self) { r in Cache(db: try r.resolveThrows(Database.self)) }
    container.register(Window.self, mainActorFactory: { r in
        Window(root: r.resolve(RootView.self)!, cache: r.resolve(Cache.self)!)
    })
    container.register(RootView.self, mainActorFactory: { _ in RootView() })
    container.registerAsync(Screen.self) { r in
        Screen(feed: try await r.resolveAsync(Feed.self), window: try await r.resolveAsync(Window.self))
    }
    try await container.warmUp()
    return container
}
