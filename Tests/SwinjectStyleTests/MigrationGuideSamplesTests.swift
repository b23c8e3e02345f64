// swift-format-ignore-file
// (The samples here mirror the article's text line for line: see ArticleSamplesTests.)
import Keystone
import Testing

// The samples of MigratingFromSwinject.md that use an app's own extensions of `Resolver`, verbatim (see
// ArticleSamplesTests); the extension itself opens NonOptionalResolves.swift.

@Suite("Article: Migrating from Swinject, your own extensions of Resolver")
struct MigrationGuideSamplesTests {
    @Test("A String name picks the app's method, an Optional result or no name picks Keystone's")
    func whichMethodACallPicks() {
        let container = Container()
        container.register(Animal.self, name: "cat") { _ in Cat(name: "Mimi") }

        let cat: Animal = container.resolve(name: "cat")                  // your method
        let named = container.resolve(Animal.self, name: "cat")           // your method too: Animal
        let maybe: Animal? = container.resolve(Animal.self, name: "cat")  // Keystone's: Animal?
        let unnamed = container.resolve(Animal.self)                      // Keystone's: Animal?, here nil

        #expect(cat.name == "Mimi")
        #expect(named.name == "Mimi")
        #expect(maybe?.name == "Mimi")
        #expect(unnamed == nil)
    }
}
