import Keystone

let container = Container()
NewsAssembly().assemble(container: container)

let problems = container.verify()
guard problems.isEmpty else {
    fatalError("The graph has problems: \(problems)")
}
let router = container.resolve(Router.self)!
print(router.headlines.render())
