import Keystone

func registerDynamic(_ container: Container, type: any Service.Type) {
    container.register(type) { _ in ServiceImpl() }
    container.register(Consumer.self) { r in Consumer(r.resolve(Anything.self)!) }
}
