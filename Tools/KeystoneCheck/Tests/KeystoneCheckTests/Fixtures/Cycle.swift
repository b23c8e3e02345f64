import Keystone

let container = Container { c in
    c.register(Ship.self) { r in Ship(captain: r.resolve(Captain.self)!) }
    c.register(Captain.self) { r in Captain(ship: r.resolve(Ship.self)!) }

    c.register(Engine.self) { r in Engine(self: try r.resolveThrows(Engine.self)) }

    c.register(Parent.self) { r in Parent(child: r.resolve(Child.self)!) }
        .inObjectScope(.container)
    c.register(Child.self) { _ in Child() }
        .initCompleted { r, child in child.parent = r.resolve(Parent.self) }

    c.register(Feed.self) { r in Feed(store: r.resolve(Lazy<Store>.self)!) }
    c.register(Store.self) { r in Store(feed: r.resolve(Provider<Feed>.self)!) }

    c.register(North.self) { r in North(r.resolve(East.self)!) }
    c.register(East.self) { r in East(r.resolve(South.self)!, r.resolve(North.self)!) }
    c.register(South.self) { r in South(r.resolve(North.self)!) }
}
