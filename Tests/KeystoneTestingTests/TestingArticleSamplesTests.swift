// swift-format-ignore-file
// (The samples here mirror the Testing article's text line for line: see ArticleSamplesTests in
// KeystoneTests, which looks for every sample here too.)
import Keystone
import KeystoneTesting
import Testing

@Test(.container { c in c.register(Store.self) { _ in StubStore(items: ["first", "second"]) } })
func theScreenShowsTheStubbedItems() {
    #expect(FeedScreen().items == ["first", "second"])
}

@Suite(.container { c in c.register(Store.self) { _ in StubStore(items: ["cached"]) } })
struct FeedScreenTests {
    @Test func showsTheCachedItems() {
        #expect(FeedScreen().items == ["cached"])
    }

    @Test(.container { c in c.register(Store.self) { _ in StubStore(items: []) } })
    func showsNothingForAnEmptyStore() {
        #expect(FeedScreen().items.isEmpty)
    }
}

// The samples of TestingWithKeystone.md that use the KeystoneTesting trait, verbatim. The article's
// types are declared at file scope, after the samples, as an app's would be, so that the samples read as written.

private protocol Store: AnyObject {
    var items: [String] { get }
}

private final class StubStore: Store {
    let items: [String]
    init(items: [String]) { self.items = items }
}

private final class FeedScreen {
    @Inject var store: Store
    var items: [String] { store.items }
}

