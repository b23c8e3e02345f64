/// The services of a small news reader, wired in `NewsAssembly`.
protocol HTTPClient: Sendable {
    func get(_ path: String) -> String
}

final class StubHTTPClient: HTTPClient {
    func get(_ path: String) -> String { "[\(path)]" }
}

protocol ArticleStore: Sendable {
    func headlines() -> [String]
}

final class RemoteArticleStore: ArticleStore {
    let client: any HTTPClient
    let section: String

    init(client: any HTTPClient, section: String) {
        self.client = client
        self.section = section
    }

    func headlines() -> [String] { [client.get("/\(section)/1"), client.get("/\(section)/2")] }
}

final class Analytics: @unchecked Sendable {
    private(set) var events: [String] = []
    func track(_ event: String) { events.append(event) }
}

final class HeadlinesViewModel: @unchecked Sendable {
    let store: any ArticleStore
    let analytics: Analytics
    var router: Router?

    init(store: any ArticleStore, analytics: Analytics) {
        self.store = store
        self.analytics = analytics
    }

    func render() -> String {
        analytics.track("headlines shown")
        return store.headlines().joined(separator: "\n")
    }
}

final class Router: @unchecked Sendable {
    let headlines: HeadlinesViewModel

    init(headlines: HeadlinesViewModel) {
        self.headlines = headlines
    }
}
