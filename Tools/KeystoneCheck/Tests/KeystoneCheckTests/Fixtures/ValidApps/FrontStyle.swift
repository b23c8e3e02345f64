import Keystone

extension Registry: RegistryModule {
    static func onStartup() {
        eager(Journal.self) { Journal() }
        register(serviceId: "memory") { MemoryStore() as Store }
    }
}

func checkout() -> Container {
    let container = Container()
    container.register(Checkout.self) { r in Checkout(journal: try r.resolveThrows(Journal.self)) }
    container.register(Payment.self) { r in
        Payment(card: r.resolve(Card.self)!)
    }
    .implements(Billing.self)
    container.register(Card.self) { _ in Card() }
    container.register(Invoice.self) { r in Invoice(billing: r.resolve(Billing.self)!) }
    return container
}
