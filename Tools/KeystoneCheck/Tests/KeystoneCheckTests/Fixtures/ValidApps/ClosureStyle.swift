import Keystone

enum AppContainer {
    static func make() -> Container {
        Container(defaultObjectScope: .graph) { c in
            c.register(Clock.self) { _ in SystemClock() }
            c.register(Logger.self, name: "console") { _ in ConsoleLogger() }
            c.register(Scheduler.self) {
                Scheduler(clock: $0.resolve(Clock.self)!, log: $0.resolve(Logger.self, name: "console")!)
            }
            c.register(Job.self) { r, name, priority in
                Job(name: name, priority: priority, scheduler: r.resolve(Scheduler.self)!)
            }
            c.register(Queue.self) { r in
                Queue(makeJob: { name in r.resolve(Job.self, arguments: name, 1)! })
            }
            c.register(Parent.self) { r in Parent(child: r.resolve(Child.self)!) }
                .inObjectScope(.container)
            c.register(Child.self) { _ in Child() }
                .initCompleted { r, child in child.parent = r.resolve(Parent.self) }
            c.register(Timer.self) { TickTimer() }
        }
    }
}
