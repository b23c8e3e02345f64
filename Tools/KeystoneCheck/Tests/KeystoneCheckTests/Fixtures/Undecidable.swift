import Keystone

// Every resolve below might succeed at run time; none may be reported.

struct ListViewModel<Item> {}
struct Article {}

func registerList<T>(_ item: T.Type, in container: Container) {
    container.register(ListViewModel<T>.self) { _ in ListViewModel<T>() }
}

func registerPlugins(_ container: Container, names: [String]) {
    for name in names {
        container.register(Plugin.self, name: name) { _ in Plugin(name: name) }
    }
    let flavour = names.first ?? "plain"
    container.register(Flavour.self, name: flavour) { _ in Flavour() }
    names.forEach { container.register(Theme.self, name: "\($0)") { _ in Theme() } }
}

func registerKnown(_ container: Container, other: Container, type: any Service.Type) {
    container.register(Screen.self) { r in
        Screen(
            list: r.resolve(ListViewModel<Article>.self)!,
            plugin: r.resolve(Plugin.self, name: "search")!,
            flavour: r.resolve(Flavour.self, name: "vanilla")!,
            theme: r.resolve(Theme.self, name: "dark")!,
            fromOther: other.resolve(Unregistered.self)!,
            named: r.resolve(Toolbar.self, name: flavourName())!,
            graph: r.resolve(GraphIdentifier.self)!,
            qualified: r.resolve(Foundation.Calendar.self)!,
            maybe: r.resolve(Unregistered?.self)
        )
    }
    container.register(Calendar.self) { _ in Calendar.current }
    container.register(Shadowed.self) { r in
        let r = other
        return Shadowed(r.resolve(Unregistered.self)!)
    }
    container.register(Nested.self) { r in
        Nested(make: { r in r.resolve(Unregistered.self)! })
    }
    container.register(Shorthand.self) {
        Shorthand(items: [1, 2].map { _ in $0.resolve(Unregistered.self)! })
    }
}

extension Container {
    func registerHelper<S>(_ type: S.Type, make: @escaping () -> S) {
        register(S.self) { _ in make() }
    }
}
