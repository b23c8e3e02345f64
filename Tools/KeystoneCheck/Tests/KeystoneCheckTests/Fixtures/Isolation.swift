import Keystone

func makeContainer() -> Container {
    let container = Container()
    container.registerAsync(RemoteConfig.self) { _ in try await RemoteConfig.load() }
    container.registerAsync(Login.self) { _ in await Login() }.inObjectScope(.container)
    container.registerAsync(Token.self) { _, user: String in await Token(user: user) }.inObjectScope(.container)
    container.register(Screen.self, name: "main", mainActorFactory: { _ in Screen() })

    container.register(Api.self) { r in
        Api(
            config: r.resolve(RemoteConfig.self)!,
            login: r.resolve(Login.self)!,
            token: r.resolve(Token.self, argument: "me")!,
            screen: r.resolveResult(Screen.self, name: "main")
        )
    }
    container.registerAsync(AsyncApi.self) { r in
        AsyncApi(config: try await r.resolveAsync(RemoteConfig.self), again: r.resolve(RemoteConfig.self))
    }
    container.register(Window.self, name: "w", mainActorFactory: { r in
        Window(screen: r.resolve(Screen.self, name: "main")!, config: r.resolve(RemoteConfig.self))
    })
    container.register(Later.self) { r in
        Later(make: { r.resolve(RemoteConfig.self) })
    }
    .initCompleted { r, later in later.config = r.resolve(RemoteConfig.self) }
    return container
}
