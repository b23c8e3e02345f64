import Keystone
import Testing

// The DependencyRegistry guide's examples, as written, each inside a container of its own.

/// Giving a short name to the registry
public typealias DI = DependencyRegistry

private protocol AnalyticsService: AnyObject {}
private class AnalyticsServiceProvider: AnalyticsService {}

private protocol NameService {
    var name: String { get }
}

private struct NameServiceProvider: NameService {
    let name = "Ada"
}

private protocol UserActionService: AnyObject {
    var nameService: NameService { get }
}

private class UserActionServiceProvider: UserActionService {
    let nameService: NameService
    init(nameService: NameService) {
        self.nameService = nameService
    }
}

/// "Registration": the guide's two registrations, plus the name service the second one needs.
private func registerTheGuideServices() {
    // Registering a concrete class against a protocol
    DI.register { () -> AnalyticsService in
        AnalyticsServiceProvider()  // A class confirming to AnalyticsService
    }

    DI.register { () -> NameService in NameServiceProvider() }

    // Registering a service which requires another service
    DI.register { () -> UserActionService in
        UserActionServiceProvider(nameService: DI.resolve())
    }
}

/// "Resolution": required and optional resolution as stored properties.
private final class Screen {
    var analyticsServiceProvider: AnalyticsService = DI.resolve()  // Required resolution
    var userActionServiceProvider: UserActionService? = DI.optional()  // Optional resolution
}

/// "Injecting in a constructor".
private class UserViewModel {

    private let analyticsServiceProvider: AnalyticsService

    init(analyticsServiceProvider: AnalyticsService = DI.resolve()) {
        self.analyticsServiceProvider = analyticsServiceProvider
    }

    var analytics: AnalyticsService { analyticsServiceProvider }
}

/// "Using @propertyWrapper".
private final class WrappedScreen {
    @Inject var analyticsServiceProvider: AnalyticsService  // Equivalent to DI.resolve()

    @Inject(scope: Scope.unique) var uniqueAnalytics: AnalyticsService
    @OptionalInject var userActionServiceProvider: UserActionService?  // Equivalent to DI.optional()

    @OptionalInject(scope: Scope.unique) var uniqueUserActions: UserActionService?
}

private protocol Unregistered: AnyObject {}

@Suite("The DependencyRegistry guide's examples")
struct DependencyRegistrySeedExamplesTests {
    @Test("Registration: a class against a protocol, and a service that requires another")
    func registration() {
        Container.withCurrent(Container()) {
            registerTheGuideServices()

            let userActions: UserActionService = DI.resolve()

            #expect(userActions.nameService.name == "Ada")
            #expect(DI.resolve() as AnalyticsService is AnalyticsServiceProvider)
        }
    }

    @Test("Registration: nothing is created until a resolve asks")
    func registrationIsLazy() {
        withRegistryTestbed { journal in
            final class Noisy {
                init() { FrontJournal.note("Noisy.init") }
            }
            DI.register { Noisy() }
            #expect(journal.count("Noisy.init") == 0)

            _ = DI.resolve() as Noisy
            #expect(journal.count("Noisy.init") == 1)
        }
    }

    @Test("Resolution: required, unique and optional resolves")
    func resolution() {
        Container.withCurrent(Container()) {
            registerTheGuideServices()

            let screen = Screen()
            // to resolve a new instance instead of a globally shared
            let unique: AnalyticsService = DI.resolve(scope: Scope.unique)
            let optionalUnique: UserActionService? = DI.optional(scope: Scope.unique)
            let missing: Unregistered? = DI.optional()

            #expect(screen.analyticsServiceProvider === DI.resolve() as AnalyticsService)
            #expect(unique !== screen.analyticsServiceProvider)
            #expect(screen.userActionServiceProvider === DI.resolve() as UserActionService)
            #expect(optionalUnique != nil)
            #expect(optionalUnique !== screen.userActionServiceProvider)
            #expect(missing == nil)
        }
    }

    @Test("Resolution: the .global scope shares reference types only; a value type is always new")
    func globalScopeIsForReferenceTypes() {
        withRegistryTestbed { journal in
            struct Stamp {
                init() { FrontJournal.note("Stamp.init") }
            }
            DI.register { Stamp() }

            _ = DI.resolve() as Stamp
            _ = DI.resolve() as Stamp

            #expect(journal.count("Stamp.init") == 2)
        }
    }

    @Test("Injecting in a constructor: the default argument resolves")
    func constructorInjection() {
        Container.withCurrent(Container()) {
            registerTheGuideServices()

            let viewModel = UserViewModel()
            let injected = UserViewModel(analyticsServiceProvider: AnalyticsServiceProvider())

            #expect(viewModel.analytics === DI.resolve() as AnalyticsService)
            #expect(injected.analytics !== viewModel.analytics)
        }
    }

    @Test("Using @propertyWrapper: @Inject and @OptionalInject, shared and unique")
    func propertyWrappers() {
        Container.withCurrent(Container()) {
            registerTheGuideServices()

            let one = WrappedScreen()
            let two = WrappedScreen()

            #expect(one.analyticsServiceProvider === two.analyticsServiceProvider)
            #expect(one.uniqueAnalytics !== two.uniqueAnalytics)
            #expect(one.uniqueAnalytics !== one.analyticsServiceProvider)
            #expect(one.userActionServiceProvider === two.userActionServiceProvider)
            #expect(one.uniqueUserActions !== two.uniqueUserActions)
            #expect(one.uniqueUserActions != nil)
        }
    }

    @Test("Using @propertyWrapper: @OptionalInject is nil when nothing is registered")
    func optionalInjectWithoutRegistration() {
        Container.withCurrent(Container()) {
            let screen = Container.withCurrent(Container()) { () -> WrappedScreen? in
                DI.register { () -> AnalyticsService in AnalyticsServiceProvider() }
                return WrappedScreen()
            }

            #expect(screen?.userActionServiceProvider == nil)
            #expect(screen?.uniqueUserActions == nil)
        }
    }

    @Test("Typealias Instantiator: a stored instantiator registers like a closure")
    func instantiatorTypealias() {
        Container.withCurrent(Container()) {
            let instantiator: DI.Instantiator<AnalyticsService> = { AnalyticsServiceProvider() }
            DI.register(instantiator: instantiator)

            #expect(DI.optional() as AnalyticsService? != nil)
        }
    }

    @Test("register: registering an optional always results in resolution to nil")
    func registeringAnOptional() {
        Container.withCurrent(Container()) {
            DI.register { () -> AnalyticsService? in AnalyticsServiceProvider() }

            let optional: AnalyticsService? = DI.optional()
            let resolved: AnalyticsService? = DI.resolve()

            #expect(optional == nil)
            #expect(resolved == nil)
        }
    }

    @Test("register: re-registration overrides the previous one and removes its global instance")
    func reRegistration() {
        Container.withCurrent(Container()) {
            final class Other: AnalyticsService {}
            DI.register { () -> AnalyticsService in AnalyticsServiceProvider() }
            let global: AnalyticsService = DI.resolve()

            DI.register { () -> AnalyticsService in Other() }

            // Keystone keeps the guide's first note: the global instance is removed on re-registration.
            #expect(DI.resolve() as AnalyticsService is Other)
            #expect(DI.resolve() as AnalyticsService !== global)
            #expect(DI.resolve(scope: .unique) as AnalyticsService is Other)
        }
    }

    @Test("reset: resets the registrations and service instances")
    func reset() {
        Container.withCurrent(Container()) {
            registerTheGuideServices()
            let before: AnalyticsService = DI.resolve()

            DI.reset()

            #expect(DI.optional() as AnalyticsService? == nil)
            DI.register { () -> AnalyticsService in AnalyticsServiceProvider() }
            #expect(DI.resolve() as AnalyticsService !== before)
        }
    }
}
