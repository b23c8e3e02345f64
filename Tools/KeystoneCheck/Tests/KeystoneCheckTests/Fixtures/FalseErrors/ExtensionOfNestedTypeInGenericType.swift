import Keystone
final class Cache<Value> { init() {} }
struct Outer<T> {
    struct Inner {}
}
extension Outer.Inner {
    static func register(_ container: Container) {
        container.register(Cache<T>.self) { _ in Cache() }
    }
}
final class Consumer { init(cache: Cache<Int>) {} }
func setUpOuter(_ container: Container) {
    Outer<Int>.Inner.register(container)
    container.register(Consumer.self) { r in Consumer(cache: r.resolve(Cache<Int>.self)!) }
}
