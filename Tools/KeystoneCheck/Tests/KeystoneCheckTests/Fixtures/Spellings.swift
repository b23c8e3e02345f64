import Keystone
struct Outer { struct Inner {} }
extension Outer {
    func wire(_ c: Container) {
        c.register(Outer.Inner.self) { _ in Inner() }
        c.register(User.self) { r in User(r.resolve(Inner.self)!) }
    }
}
struct Box<T> {}
extension Box {
    func wire(_ c: Container) {
        c.register(Holder.self) { r in Holder(r.resolve(T.self)!, r.resolve(Box<T>.self)!) }
    }
}
protocol Feature { associatedtype Model }
extension Feature {
    func wire(_ c: Container) {
        c.register(Screen2.self) { r in Screen2(r.resolve(Model.self)!) }
    }
}
func f(_ c: Container) {
    c.register(Foo.Type.self) { _ in Foo.self }
    c.register(Meta.self) { r in Meta(r.resolve(Foo.Type.self)!) }
    c.register(((Int) -> String).self) { _ in { "\($0)" } }
    c.register(Fn.self) { r in Fn(r.resolve(((Int)->String).self)!) }
    c.register([String: Int].self) { _ in [:] }
    c.register(Dict.self) { r in Dict(r.resolve(Dictionary<String, Int>.self)!) }
    c.register((any P & Q).self) { _ in PQ() }
    c.register(Comp.self) { r in Comp(r.resolve((Q & P).self)!) }
    c.register(N.self, name: nil) { _ in N() }
    c.register(UsesN.self) { r in UsesN(r.resolve(N.self, name: nil)!) }
    c.register(Esc.self, name: "a\"b") { _ in Esc() }
    c.register(UsesEsc.self) { r in UsesEsc(r.resolve(Esc.self, name: "a\"b")!) }
    c.register(Tup.self) { (r: any Resolver, a: Int, b: String) -> Tup in Tup(a, b) }
    c.register(UsesTup.self) { r in UsesTup(r.resolve(Tup.self, arguments: 1, "x")!) }
    #if DEBUG
    c.register(Mode.self) { _ in Debug() }
    #else
    c.register(Mode.self) { _ in Release() }
    #endif
    c.register(Raw.self, name: #"raw"#) { _ in Raw() }
    c.register(UsesRaw.self) { r in UsesRaw(r.resolve(Raw.self, name: "raw")!) }
    c.register(Weak.self) { [weak c] r in Weak(r.resolve(N.self)!) }
    c.register(Lz.self) { r in Lz(r.resolve(Lazy<Unknown>.self)!) }
}
