import Keystone
import Testing

@Suite("More extension shapes: throwing, resolveThrows, @discardableResult, where clauses")
struct KeystoneExtensionShapesTests {
    @Test("Each shape calls the library's resolve and reports a missing registration its own way")
    func shapes() throws {
        let container = Container()
        container.register(Cat.self, name: "mimi") { _ in Cat(name: "Mimi") }
        let resolver: Resolver = container

        let thrown: Cat = try resolver.resolve(orThrow: "mimi")
        #expect(thrown.name == "Mimi")
        #expect(throws: LookupError.missing("tom")) {
            let _: Cat = try resolver.resolve(orThrow: "tom")
        }

        let inferred: Cat = try resolver.resolveThrows(inferring: "mimi")
        #expect(inferred.name == "Mimi")
        #expect(throws: DIError.self) {
            let _: Cat = try resolver.resolveThrows(inferring: nil)
        }

        resolver.warmUp(Cat.self)
        let tagged: Cat = container.resolve(tagged: "mimi")
        #expect(tagged.name == "Mimi")
        #expect(try container.resolveThrows(Cat.self, name: "mimi").name == "Mimi")
    }
}
