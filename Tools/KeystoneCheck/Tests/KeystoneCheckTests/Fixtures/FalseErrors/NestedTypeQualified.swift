import Keystone
func registerFeed(_ container: Container) {
    container.register(Feed.ViewModel.self) { _ in Feed.ViewModel() }
    Feed.register(in: container)
}
