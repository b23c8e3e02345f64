import Foundation
import Keystone
final class APIClient { init(session: URLSession) {} }
func setUpNetworking(_ container: Container) {
    container.register(Foundation.URLSession.self) { _ in URLSession(configuration: .default) }
    container.register(URLSession.self, name: "background") { _ in URLSession(configuration: .background(withIdentifier: "bg")) }
    container.register(APIClient.self) { r in APIClient(session: r.resolve(URLSession.self)!) }
}
