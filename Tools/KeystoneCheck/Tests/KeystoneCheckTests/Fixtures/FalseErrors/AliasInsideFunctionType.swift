import Keystone
typealias UserID = String
final class Profile { init(id: UserID) {} }
final class ProfileList { init(makeProfile: @escaping (UserID) -> Profile) {} }
func registerProfiles(_ container: Container) {
    container.register(((UserID) -> Profile).self) { _ in { id in Profile(id: id) } }
    container.register(ProfileList.self) { r in
        ProfileList(makeProfile: r.resolve(((String) -> Profile).self)!)
    }
}
