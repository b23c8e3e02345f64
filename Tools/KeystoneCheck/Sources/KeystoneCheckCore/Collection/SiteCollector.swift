import SwiftParser
import SwiftSyntax

/// Finds the registrations and the resolves on factory resolvers in one file.
final class SiteCollector: SyntaxVisitor {
    private static let registrationNames: Set<String> = ["register", "registerAsync"]
    private static let registrationLabels: Set<String> = ["name", "factory", "mainActorFactory"]
    /// The registrations of `Registry` modules and `DependencyRegistry`, which fill the process-wide
    /// container a `Container` may have as an ancestor.
    private static let frontRegistrationNames: Set<String> = ["lazy", "eager", "override"]
    private static let frontRegistrationLabels: Set<String> = ["serviceId", "factory", "instantiator"]
    private static let resolveNames: Set<String> = ["resolve", "resolveThrows", "resolveResult", "resolveAsync"]
    private static let loopingCalls: Set<String> = ["forEach", "map", "compactMap", "flatMap", "reduce"]
    /// Names an extension of a type declared elsewhere (the standard library's collections, `Result`,
    /// …) may use as generic parameters or associated types.
    private static let foreignGenericNames: Set<String> = [
        "Element", "Key", "Value", "Wrapped", "Index", "Indices", "Base", "Success", "Failure", "Iterator",
        "SubSequence", "Output", "Input", "Bound", "Pointee", "Body", "Content", "Label", "Root",
    ]

    /// Types of the Keystone library without generic parameters or associated types: an extension of
    /// one binds no names of its own.
    private static let plainLibraryTypes: Set<String> = [
        "Container", "Assembler", "Resolver", "Assembly", "Registry", "DependencyRegistry", "SynchronizedResolver",
        "ObjectScope",
    ]

    private enum ClosureRole {
        case factory
        case initCompleted
    }

    private struct OwnedClosure {
        var registration: Int
        var role: ClosureRole
        var resolver: String?
        var closure: ClosureExprSyntax
    }

    private let fileIndex: Int
    private let converter: SourceLocationConverter
    private let index: DeclarationIndex
    private let speller: TypeSpeller

    private(set) var registrations: [RegistrationSite] = []
    private(set) var resolves: [ResolveSite] = []
    private(set) var notCheckable = 0
    private var owned: [SyntaxIdentifier: OwnedClosure] = [:]
    private var resolveCalls: [(call: FunctionCallExprSyntax, receiver: String?)] = []

    init(fileIndex: Int, tree: SourceFileSyntax, fileName: String, index: DeclarationIndex, speller: TypeSpeller) {
        self.fileIndex = fileIndex
        self.converter = SourceLocationConverter(fileName: fileName, tree: tree)
        self.index = index
        self.speller = speller
        super.init(viewMode: .sourceAccurate)
    }

    /// Walks the tree, then settles every resolve against the factories found.
    func collect(_ tree: SourceFileSyntax) {
        walk(tree)
        for (call, receiver) in resolveCalls {
            if let site = resolveSite(call, receiver: receiver) {
                resolves.append(site)
            } else {
                notCheckable += 1
            }
        }
    }

    override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
        guard let (name, base, nameToken) = calledName(node) else { return .visitChildren }
        if Self.registrationNames.contains(name) {
            if !recordRegistration(node, name: name, nameToken: nameToken) {
                recordFrontRegistration(node, name: name, nameToken: nameToken)
            }
        } else if Self.frontRegistrationNames.contains(name) {
            recordFrontRegistration(node, name: name, nameToken: nameToken)
        } else if Self.resolveNames.contains(name), let first = node.arguments.first, first.label == nil {
            resolveCalls.append((node, base?.as(DeclReferenceExprSyntax.self)?.baseName.text))
        }
        return .visitChildren
    }

    // MARK: - Registrations

    /// A registration through a front (`Registry` modules, `DependencyRegistry`): its key's name and
    /// arguments are the front's business, so it answers its type under every name; a type inferred
    /// from the factory's result, or every type when even that is not spelled out.
    private func recordFrontRegistration(_ call: FunctionCallExprSyntax, name: String, nameToken: TokenSyntax) {
        var arguments = Array(call.arguments)
        var type: TypeSpec?
        if let first = arguments.first, first.label == nil {
            type = typeSpec(of: first.expression, at: Syntax(call))
            arguments.removeFirst()
        }
        var factory: ClosureExprSyntax? = call.trailingClosure
        for argument in arguments {
            guard let label = argument.label?.text, Self.frontRegistrationLabels.contains(label) else { return }
            if label != "serviceId" {
                guard factory == nil else { return }
                factory = argument.expression.as(ClosureExprSyntax.self)
                if factory == nil { type = type ?? .unknown }
            }
        }
        guard factory != nil || type != nil, arguments.count + (call.trailingClosure == nil ? 0 : 1) > 0 else { return }
        if type == nil, let factory {
            type = inferredType(of: factory, at: Syntax(call))
        }
        registrations.append(
            RegistrationSite(
                location: location(of: nameToken),
                type: type ?? .unknown,
                name: .unknown,
                argumentCount: nil,
                kind: .synchronous,
                inLoop: false,
                scope: .unknown,
                forwarded: [],
                enclosingScope: enclosingScope(of: Syntax(call))
            ))
    }

    /// The type a factory closure returns, when its signature or its single `Type(...)` expression says.
    private func inferredType(of closure: ClosureExprSyntax, at site: Syntax) -> TypeSpec {
        if let returned = closure.signature?.returnClause?.type {
            let context = context(around: site)
            let spelling = context.speller.spell(type: returned)
            let generic = spelling.identifiers.intersection(context.generic)
            return spelling.isOpaque || !generic.isEmpty || context.leavesUndecided(spelling, index: index)
                ? .unknown : .exact(spelling.text)
        }
        guard closure.statements.count == 1, let item = closure.statements.first else { return .unknown }
        if let cast = item.item.as(AsExprSyntax.self), cast.questionOrExclamationMark == nil {
            let context = context(around: site)
            let spelling = context.speller.spell(type: cast.type)
            let generic = spelling.identifiers.intersection(context.generic)
            return spelling.isOpaque || !generic.isEmpty || context.leavesUndecided(spelling, index: index)
                ? .unknown : .exact(spelling.text)
        }
        guard let call = item.item.as(FunctionCallExprSyntax.self) else { return .unknown }
        let called = call.calledExpression
        guard called.is(DeclReferenceExprSyntax.self) || called.is(GenericSpecializationExprSyntax.self),
            let first = called.trimmedDescription.first, first.isUppercase
        else { return .unknown }
        var parser = Parser(called.trimmedDescription)
        let type = TypeSyntax.parse(from: &parser)
        let context = context(around: site)
        let spelling = context.speller.spell(type: type)
        let generic = spelling.identifiers.intersection(context.generic)
        if spelling.isOpaque || !generic.isEmpty || type.hasError || context.leavesUndecided(spelling, index: index) {
            return .unknown
        }
        return .exact(spelling.text)
    }

    /// Records a registration of a `Container`; `false` when the call has another shape.
    @discardableResult
    private func recordRegistration(_ call: FunctionCallExprSyntax, name: String, nameToken: TokenSyntax) -> Bool {
        let arguments = Array(call.arguments)
        guard let first = arguments.first, first.label == nil else { return false }
        var nameSpec = NameSpec.none
        var factory: ExprSyntax?
        var kind: FactoryKind = name == "registerAsync" ? .asynchronous : .synchronous
        for argument in arguments.dropFirst() {
            guard let label = argument.label?.text, Self.registrationLabels.contains(label) else { return false }
            switch label {
            case "name":
                nameSpec = self.name(of: argument.expression)
            case "mainActorFactory":
                guard name == "register", factory == nil else { return false }
                factory = argument.expression
                kind = .mainActor
            default:
                guard factory == nil else { return false }
                factory = argument.expression
            }
        }
        if let trailing = call.trailingClosure {
            guard factory == nil else { return false }
            factory = ExprSyntax(trailing)
        }
        guard let factory else { return false }

        let type = typeSpec(of: first.expression, at: Syntax(call))
        var argumentCount: Int?
        var resolver: String?
        let closure = factory.as(ClosureExprSyntax.self)
        if let closure {
            let parameters = parameterNames(of: closure)
            argumentCount = max(0, parameters.count - 1)
            resolver = parameters.first
        }
        let registrationIndex = registrations.count
        if let closure {
            owned[closure.id] = OwnedClosure(
                registration: registrationIndex, role: .factory, resolver: resolver, closure: closure)
        }

        // The chain: `.inObjectScope(…)`, `.initCompleted { … }`, `.implements(…)`.
        var scope: ScopeSpec?
        var forwarded: [(type: TypeSpec, name: NameSpec)] = []
        var node = ExprSyntax(call)
        while let member = node.parent?.as(MemberAccessExprSyntax.self), member.base?.id == node.id,
            let outer = member.parent?.as(FunctionCallExprSyntax.self), outer.calledExpression.id == member.id
        {
            switch member.declName.baseName.text {
            case "inObjectScope":
                let value = outer.arguments.first?.expression.trimmedDescription.withoutWhitespace ?? ""
                switch value {
                case ".container", "ObjectScope.container": scope = .container
                case ".graph", ".transient", ".weak", "ObjectScope.graph", "ObjectScope.transient",
                    "ObjectScope.weak":
                    scope = .other
                default: scope = .unknown
                }
            case "initCompleted":
                let action = outer.trailingClosure ?? outer.arguments.first?.expression.as(ClosureExprSyntax.self)
                if let action {
                    owned[action.id] = OwnedClosure(
                        registration: registrationIndex, role: .initCompleted,
                        resolver: parameterNames(of: action).first, closure: action)
                }
            case "implements":
                var forwardedName = NameSpec.none
                var types: [TypeSpec] = []
                for argument in outer.arguments {
                    if argument.label?.text == "name" {
                        forwardedName = self.name(of: argument.expression)
                    } else {
                        types.append(typeSpec(of: argument.expression, at: Syntax(outer)))
                    }
                }
                forwarded += types.map { ($0, forwardedName) }
            default:
                break
            }
            node = ExprSyntax(outer)
        }
        // An entry kept in a variable or returned may be configured elsewhere.
        let isStatement = node.parent?.is(CodeBlockItemSyntax.self) == true
        let isDiscarded =
            node.parent?.is(InfixOperatorExprSyntax.self) == true
            && node.parent?.as(InfixOperatorExprSyntax.self)?.leftOperand.is(DiscardAssignmentExprSyntax.self) == true
        if !isStatement && !isDiscarded {
            scope = .unknown
        }
        let resolvedScope = scope ?? (index.changesDefaultScope ? .unknown : .other)

        var site = RegistrationSite(
            location: location(of: nameToken),
            type: type,
            name: nameSpec,
            argumentCount: argumentCount,
            kind: kind,
            inLoop: isInLoop(Syntax(call)),
            scope: resolvedScope,
            forwarded: forwarded,
            enclosingScope: enclosingScope(of: Syntax(call))
        )
        site.conditions = conditions(around: Syntax(call))
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self), let base = member.base {
            site.receiver = base.trimmedDescription.withoutWhitespace
        }
        registrations.append(site)
        return true
    }

    /// The closure's parameter names, in order; `$0`, `$1`, … for a closure without a signature that uses
    /// them, none for one that uses none.
    private func parameterNames(of closure: ClosureExprSyntax) -> [String] {
        if let clause = closure.signature?.parameterClause {
            switch clause {
            case .simpleInput(let list):
                return list.map(\.name.text)
            case .parameterClause(let parameters):
                return parameters.parameters.map { ($0.secondName ?? $0.firstName).text }
            }
        }
        let finder = ShorthandFinder(viewMode: .sourceAccurate)
        finder.walk(closure.statements)
        guard finder.highest >= 0 else { return [] }
        return (0...finder.highest).map { "$\($0)" }
    }

    private func conditions(around start: Syntax) -> [Int: Int] {
        var found: [Int: Int] = [:]
        var node = start.parent
        while let current = node {
            if let clause = current.as(IfConfigClauseSyntax.self), let list = clause.parent?.as(IfConfigClauseListSyntax.self),
                let index = list.firstIndex(where: { $0.id == clause.id })
            {
                found[list.position.utf8Offset] = list.distance(from: list.startIndex, to: index)
            }
            if let branch = current.as(CodeBlockSyntax.self), let statement = branch.parent?.as(IfExprSyntax.self) {
                found[statement.position.utf8Offset] = statement.body.id == branch.id ? 0 : 1
            }
            if let switchCase = current.as(SwitchCaseSyntax.self), let list = switchCase.parent?.as(SwitchCaseListSyntax.self),
                let index = list.firstIndex(where: { $0.id == switchCase.id })
            {
                found[list.position.utf8Offset] = list.distance(from: list.startIndex, to: index)
            }
            node = current.parent
        }
        return found
    }

    private func enclosingScope(of start: Syntax) -> String {
        var node = start.parent
        while let current = node {
            if current.is(FunctionDeclSyntax.self) || current.is(InitializerDeclSyntax.self)
                || current.is(AccessorDeclSyntax.self) || current.is(DeinitializerDeclSyntax.self)
            {
                return "\(fileIndex):\(current.position.utf8Offset)"
            }
            node = current.parent
        }
        return "\(fileIndex)"
    }

    private func isInLoop(_ start: Syntax) -> Bool {
        var node = start.parent
        while let current = node {
            if current.is(ForStmtSyntax.self) || current.is(WhileStmtSyntax.self) || current.is(RepeatStmtSyntax.self) {
                return true
            }
            if current.is(FunctionDeclSyntax.self) || current.is(InitializerDeclSyntax.self)
                || current.is(AccessorDeclSyntax.self)
            {
                return false
            }
            if let closure = current.as(ClosureExprSyntax.self), let call = enclosingCall(of: closure),
                let (name, _, _) = calledName(call), Self.loopingCalls.contains(name)
            {
                return true
            }
            node = current.parent
        }
        return false
    }

    private func enclosingCall(of closure: ClosureExprSyntax) -> FunctionCallExprSyntax? {
        if let call = closure.parent?.as(FunctionCallExprSyntax.self) {
            return call
        }
        if closure.parent?.is(LabeledExprSyntax.self) == true {
            return closure.parent?.parent?.parent?.as(FunctionCallExprSyntax.self)
        }
        if closure.parent?.is(MultipleTrailingClosureElementSyntax.self) == true {
            return closure.parent?.parent?.parent?.as(FunctionCallExprSyntax.self)
        }
        return nil
    }

    // MARK: - Resolves

    private func resolveSite(_ call: FunctionCallExprSyntax, receiver: String?) -> ResolveSite? {
        guard let receiver, receiver != "_" else { return nil }
        // The registration closure whose resolver the receiver names.
        var crossed = false
        var node = Syntax(call).parent
        var owner: OwnedClosure?
        while let current = node {
            if let closure = current.as(ClosureExprSyntax.self) {
                if let candidate = owned[closure.id], candidate.resolver == receiver {
                    owner = candidate
                    break
                }
                crossed = true
            } else if current.is(FunctionDeclSyntax.self) || current.is(AccessorDeclSyntax.self)
                || current.is(InitializerDeclSyntax.self)
            {
                crossed = true
            }
            node = current.parent
        }
        guard let owner else { return nil }
        if receiver.hasPrefix("$") && crossed {
            return nil
        }
        let binder = BindingFinder(name: receiver)
        binder.walk(owner.closure.statements)
        if binder.found {
            return nil
        }
        guard let calledName = calledName(call) else { return nil }

        let arguments = Array(call.arguments)
        guard case .exact(let type) = typeSpec(of: arguments[0].expression, at: Syntax(call)) else { return nil }
        var name: String?
        var argumentCount = 0
        var index = 1
        if index < arguments.count, arguments[index].label?.text == "name" {
            switch self.name(of: arguments[index].expression) {
            case .none: name = nil
            case .literal(let literal): name = literal
            case .unknown: return nil
            }
            index += 1
        }
        if index < arguments.count {
            switch arguments[index].label?.text {
            case "argument":
                guard index == arguments.count - 1 else { return nil }
                argumentCount = 1
            case "arguments":
                guard arguments[(index + 1)...].allSatisfy({ $0.label == nil }) else { return nil }
                argumentCount = arguments.count - index
            default:
                return nil
            }
        }
        guard call.trailingClosure == nil else { return nil }
        let role: ResolveRole =
            switch (owner.role, crossed) {
            case (.factory, false): .factoryBody
            case (.factory, true): .nestedInFactory
            case (.initCompleted, false): .initCompleted
            case (.initCompleted, true): .nestedInInitCompleted
            }
        return ResolveSite(
            location: location(of: calledName.token),
            registration: owner.registration,
            role: role,
            isAsync: calledName.name == "resolveAsync",
            key: Key(type: type, name: name, argumentCount: argumentCount),
            configuration: configuration(around: Syntax(call))
        )
    }

    /// The `#if` clauses around `start`, spelled so that the same condition written in two places
    /// reads alike.
    private func configuration(around start: Syntax) -> Set<String> {
        var found: Set<String> = []
        var node = start.parent
        while let current = node {
            if let clause = current.as(IfConfigClauseSyntax.self), let list = clause.parent?.as(IfConfigClauseListSyntax.self),
                let position = list.firstIndex(where: { $0.id == clause.id })
            {
                let number = list.distance(from: list.startIndex, to: position)
                let first = list.first?.condition?.trimmedDescription.withoutWhitespace
                if number == 0, let first {
                    found.insert("if:" + first)
                } else if number == 1, list.count == 2, clause.condition == nil, let first {
                    found.insert("not:" + first)
                } else {
                    found.insert("at:\(fileIndex):\(list.position.utf8Offset):\(number)")
                }
            }
            node = current.parent
        }
        return found
    }

    // MARK: - Pieces

    private func calledName(_ call: FunctionCallExprSyntax) -> (name: String, base: ExprSyntax?, token: TokenSyntax)? {
        if let member = call.calledExpression.as(MemberAccessExprSyntax.self), member.declName.argumentNames == nil {
            return (member.declName.baseName.text, member.base, member.declName.baseName)
        }
        if let reference = call.calledExpression.as(DeclReferenceExprSyntax.self), reference.argumentNames == nil {
            return (reference.baseName.text, nil, reference.baseName)
        }
        return nil
    }

    private func name(of expression: ExprSyntax) -> NameSpec {
        if expression.is(NilLiteralExprSyntax.self) {
            return .none
        }
        guard let literal = expression.as(StringLiteralExprSyntax.self) else { return .unknown }
        var text = ""
        for segment in literal.segments {
            guard let plain = segment.as(StringSegmentSyntax.self) else { return .unknown }
            text += plain.content.text
        }
        // Escapes are not decoded: a name with one is left unchecked.
        if text.contains("\\") {
            return .unknown
        }
        return .literal(text)
    }

    /// The type of a `X.self` argument, judged where it is written.
    private func typeSpec(of expression: ExprSyntax, at site: Syntax) -> TypeSpec {
        let context = context(around: site)
        guard let member = expression.as(MemberAccessExprSyntax.self), member.declName.baseName.text == "self",
            let base = member.base, let spelling = context.speller.spell(typeExpression: base)
        else { return .unknown }
        // `value.self` is the value: a lowercase first word is taken for a variable.
        if let first = base.trimmedDescription.first, first.isLowercase || first == "$" || first == "_" {
            return .unknown
        }
        if spelling.isOpaque {
            return .unknown
        }
        let unknown = spelling.identifiers.intersection(context.generic).union(context.undecided(in: spelling, index: index))
        if !unknown.isEmpty {
            return .shaped(TypePattern(spelling: spelling.text, unknown: unknown))
        }
        return .exact(spelling.text)
    }

    /// How type names read at one place.
    private struct NameContext {
        /// The speller with the names the enclosing declarations bind.
        var speller: TypeSpeller
        /// The generic parameters and associated types in scope (and `Self`).
        var generic: Set<String>
        /// Whether the place is in an extension of a type not declared in the checked files (or of a
        /// protocol refining one), whose generic parameters and associated types are unknown.
        var foreign: Bool

        /// The names in the spelling the place leaves open: in a foreign extension, any name that is not
        /// a type of the checked files may be one of the extended type's parameters.
        func undecided(in spelling: TypeSpeller.Spelling, index: DeclarationIndex) -> Set<String> {
            guard foreign else { return [] }
            return spelling.identifiers.filter { !generic.contains($0) && !index.nominalNames.contains($0) }
        }

        func leavesUndecided(_ spelling: TypeSpeller.Spelling, index: DeclarationIndex) -> Bool {
            !undecided(in: spelling, index: index).isEmpty
        }
    }

    /// The names bound around `site`, innermost first: generic parameters, type aliases and nested types
    /// of the enclosing declarations, associated types of the protocols they inherit.
    private func context(around site: Syntax) -> NameContext {
        var local: [String: TypeSpeller.Binding] = ["Self": .generic]
        func bind(_ name: String, _ binding: TypeSpeller.Binding) {
            if local[name] == nil {
                local[name] = binding
            }
        }
        var foreign = false
        var foreignNames = false
        var node = site.parent
        while let current = node {
            if let declaration = current.asProtocol((any WithGenericParametersSyntax).self),
                let clause = declaration.genericParameterClause
            {
                for parameter in clause.parameters {
                    bind(parameter.name.text, .generic)
                }
            }
            // Aliases local to a function or closure (file-level ones are the speller's own).
            if let block = current.as(CodeBlockItemListSyntax.self), !(block.parent?.is(SourceFileSyntax.self) ?? false) {
                for item in block {
                    if let alias = item.item.as(TypeAliasDeclSyntax.self) {
                        bind(alias.name.text, .alias(alias.genericParameterClause == nil ? alias.initializer.value : nil))
                    }
                }
            }
            if current.isProtocol((any DeclGroupSyntax).self), let path = DeclarationIndex.typePath(of: current) {
                let components = path.split(separator: ".").map(String.init)
                var scopeIsGeneric = false
                var typeNames: Set<String> = []
                for component in components {
                    var foreignInheritance = false
                    if let names = index.genericNames(of: component, foreign: &foreignInheritance) {
                        typeNames.formUnion(names)
                    } else if current.is(ExtensionDeclSyntax.self) {
                        foreignNames = true
                        if !Self.plainLibraryTypes.contains(components.last ?? "") {
                            foreign = true
                        }
                    }
                    foreign = foreign || foreignInheritance
                }
                if let declaration = current.as(ProtocolDeclSyntax.self) {
                    var foreignInheritance = false
                    typeNames.formUnion(index.genericNames(of: declaration.name.text, foreign: &foreignInheritance) ?? [])
                    foreign = foreign || foreignInheritance
                }
                if !typeNames.isEmpty {
                    scopeIsGeneric = true
                }
                for (name, target) in index.memberAliases[path] ?? [:] {
                    bind(name, .alias(target))
                }
                for name in index.nestedTypes[path] ?? [] {
                    // Nested in a generic type, `Inner` is `Outer<T>.Inner`: left open.
                    bind(name, scopeIsGeneric ? .alias(nil) : .nested(path + "." + name))
                }
                for name in typeNames {
                    bind(name, .generic)
                }
            }
            node = current.parent
        }
        if foreign || foreignNames {
            for name in Self.foreignGenericNames {
                bind(name, .generic)
            }
        }
        var speller = self.speller
        speller.local = local
        let generic = Set(local.compactMap { name, binding in
            if case .generic = binding { name } else { nil }
        })
        return NameContext(speller: speller, generic: generic, foreign: foreign)
    }

    private func location(of token: TokenSyntax) -> Location {
        let position = token.startLocation(converter: converter)
        return Location(file: fileIndex, line: position.line, column: position.column)
    }
}

/// The highest `$N` used in a closure, not counting closures nested in it.
private final class ShorthandFinder: SyntaxVisitor {
    var highest = -1

    override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind {
        .skipChildren
    }

    override func visit(_ token: TokenSyntax) -> SyntaxVisitorContinueKind {
        if case .dollarIdentifier(let text) = token.tokenKind, let number = Int(text.dropFirst()) {
            highest = max(highest, number)
        }
        return .visitChildren
    }
}

/// Whether a body declares something under a given name (a constant, a variable, a parameter of a
/// nested closure or function, an optional binding, a pattern), which would shadow a factory's resolver.
private final class BindingFinder: SyntaxVisitor {
    let name: String
    var found = false

    init(name: String) {
        self.name = name
        super.init(viewMode: .sourceAccurate)
    }

    override func visit(_ node: IdentifierPatternSyntax) -> SyntaxVisitorContinueKind {
        if node.identifier.text == name { found = true }
        return .visitChildren
    }

    override func visit(_ node: ClosureShorthandParameterSyntax) -> SyntaxVisitorContinueKind {
        if node.name.text == name { found = true }
        return .visitChildren
    }

    override func visit(_ node: ClosureParameterSyntax) -> SyntaxVisitorContinueKind {
        if (node.secondName ?? node.firstName).text == name { found = true }
        return .visitChildren
    }

    override func visit(_ node: FunctionParameterSyntax) -> SyntaxVisitorContinueKind {
        if (node.secondName ?? node.firstName).text == name { found = true }
        return .visitChildren
    }
}
