import SwiftSyntax

/// What the checked files declare that the spelling of keys depends on: type aliases, the types nested
/// in others, the generic parameters of types (for their extensions) and what they inherit, and whether
/// a container's default scope is changed.
struct DeclarationIndex {
    /// Type aliases declared at file level, by name; `nil` when ambiguous, generic, or declared inside a
    /// type or a function too (where it may mean something else, and types that conform may inherit it).
    var aliases: [String: TypeSyntax?] = [:]
    /// Type aliases declared in a type's (or an extension's) body, by the type's qualified spelling; `nil`
    /// when declared where generic parameters are in scope.
    var memberAliases: [String: [String: TypeSyntax?]] = [:]
    /// Every name a type alias has anywhere.
    var aliasNames: Set<String> = []
    /// The names of the types declared in a type's (or an extension's) body, by the type's qualified
    /// spelling.
    var nestedTypes: [String: Set<String>] = [:]
    /// Generic parameters and associated types of the types and protocols declared, by type name; a type
    /// nested in a generic type counts the enclosing type's parameters too.
    var genericNames: [String: Set<String>] = [:]
    /// What the types, protocols and extensions declared inherit or conform to, by type name.
    var inherited: [String: Set<String>] = [:]
    /// The names of the types and protocols declared.
    var nominalNames: Set<String> = []
    /// The names of the protocols declared.
    var protocolNames: Set<String> = []
    /// Whether some `Container(defaultObjectScope:)` makes a scope other than `.graph` the default, so
    /// that a registration without `inObjectScope` has a scope the check cannot tell.
    var changesDefaultScope = false

    /// The file-level aliases worth following: those declared once (or alike), under a name no type or
    /// protocol of the checked files also has and no alias inside a type or function has; the others map
    /// to `nil`.
    var followableAliases: [String: TypeSyntax?] {
        var result = aliases
        for name in aliases.keys where nominalNames.contains(name) {
            result[name] = .some(nil)
        }
        return result
    }

    /// The generic parameters and associated types a type (or protocol) has, its own and those of the
    /// protocols it inherits, transitively; `nil` when nothing of that name is declared. `foreign` is
    /// set when it inherits a protocol not declared in the checked files (whose associated types are
    /// unknown).
    func genericNames(of name: String, foreign: inout Bool) -> Set<String>? {
        guard nominalNames.contains(name) else { return nil }
        var result: Set<String> = []
        var visited: Set<String> = []
        var pending = [name]
        while let current = pending.popLast() {
            guard visited.insert(current).inserted else { continue }
            result.formUnion(genericNames[current] ?? [])
            for parent in inherited[current] ?? [] {
                if nominalNames.contains(parent) {
                    pending.append(parent)
                } else if protocolNames.contains(current) {
                    // A protocol refining one declared elsewhere may use its associated types.
                    foreign = true
                }
            }
        }
        return result
    }

    mutating func add(_ tree: SourceFileSyntax) {
        let visitor = DeclarationVisitor(viewMode: .sourceAccurate)
        visitor.walk(tree)
        for (name, target) in visitor.aliases {
            if let existing = aliases[name] {
                if existing?.trimmedDescription.withoutWhitespace != target?.trimmedDescription.withoutWhitespace {
                    aliases[name] = .some(nil)
                }
            } else {
                aliases[name] = .some(target)
            }
        }
        for name in visitor.scopedAliasNames {
            aliases[name] = .some(nil)
        }
        aliasNames.formUnion(visitor.aliases.map(\.0))
        aliasNames.formUnion(visitor.scopedAliasNames)
        for (path, members) in visitor.memberAliases {
            for (name, target) in members {
                if let existing = memberAliases[path]?[name],
                    existing?.trimmedDescription.withoutWhitespace != target?.trimmedDescription.withoutWhitespace
                {
                    memberAliases[path]?[name] = .some(nil)
                } else {
                    memberAliases[path, default: [:]][name] = .some(target)
                }
            }
        }
        for (path, names) in visitor.nestedTypes {
            nestedTypes[path, default: []].formUnion(names)
        }
        nominalNames.formUnion(visitor.nominalNames)
        protocolNames.formUnion(visitor.protocolNames)
        for (name, names) in visitor.genericNames {
            genericNames[name, default: []].formUnion(names)
        }
        for (name, names) in visitor.inherited {
            inherited[name, default: []].formUnion(names)
        }
        changesDefaultScope = changesDefaultScope || visitor.changesDefaultScope
    }

    /// The qualified spelling of the types and extensions around `node` (and of `node` itself when it
    /// is one), outermost first: `Feed` inside `extension Feed`, `Outer.Inner` inside `struct Inner`
    /// nested in `struct Outer`; `nil` outside every type.
    static func typePath(of node: Syntax) -> String? {
        var names: [String] = []
        var current: Syntax? = node
        while let candidate = current {
            if let name = typeName(of: candidate) {
                names.append(name)
                if candidate.is(ExtensionDeclSyntax.self) {
                    break
                }
            }
            current = candidate.parent
        }
        return names.isEmpty ? nil : names.reversed().joined(separator: ".")
    }

    /// The name a type declaration declares, or the extended type of an extension without generic
    /// arguments (`Outer.Inner`).
    static func typeName(of node: Syntax) -> String? {
        if let declaration = node.as(StructDeclSyntax.self) { return declaration.name.text }
        if let declaration = node.as(ClassDeclSyntax.self) { return declaration.name.text }
        if let declaration = node.as(EnumDeclSyntax.self) { return declaration.name.text }
        if let declaration = node.as(ActorDeclSyntax.self) { return declaration.name.text }
        if let declaration = node.as(ProtocolDeclSyntax.self) { return declaration.name.text }
        if let declaration = node.as(ExtensionDeclSyntax.self) {
            return extendedComponents(declaration.extendedType).joined(separator: ".")
        }
        return nil
    }

    /// The components of an extended type without generic arguments: `Outer<Int>.Inner` as
    /// `["Outer", "Inner"]`.
    static func extendedComponents(_ type: TypeSyntax) -> [String] {
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            return [identifier.name.text]
        }
        if let member = type.as(MemberTypeSyntax.self) {
            return extendedComponents(member.baseType) + [member.name.text]
        }
        return [type.trimmedDescription.withoutWhitespace]
    }
}

private final class DeclarationVisitor: SyntaxVisitor {
    /// File-level aliases.
    var aliases: [(String, TypeSyntax?)] = []
    /// Names of aliases declared inside a type or a function.
    var scopedAliasNames: Set<String> = []
    var memberAliases: [String: [String: TypeSyntax?]] = [:]
    var nestedTypes: [String: Set<String>] = [:]
    var genericNames: [String: Set<String>] = [:]
    var inherited: [String: Set<String>] = [:]
    var changesDefaultScope = false
    var nominalNames: Set<String> = []
    var protocolNames: Set<String> = []

    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
        // An alias with parameters, or declared where generic parameters are in scope, means a
        // different type in each specialization: it is not followed.
        var generic = node.genericParameterClause != nil
        var scoped = false
        var ancestor = node.parent
        while let current = ancestor {
            if let declaration = current.asProtocol((any WithGenericParametersSyntax).self),
                declaration.genericParameterClause != nil
            {
                generic = true
            }
            if current.is(ProtocolDeclSyntax.self) {
                generic = true
            }
            if let extensionDecl = current.as(ExtensionDeclSyntax.self), extensionDecl.genericWhereClause != nil {
                generic = true
            }
            if current.isProtocol((any DeclGroupSyntax).self) || current.is(FunctionDeclSyntax.self) || current.is(ClosureExprSyntax.self)
                || current.is(AccessorDeclSyntax.self) || current.is(InitializerDeclSyntax.self)
                || current.is(SubscriptDeclSyntax.self) || current.is(DeinitializerDeclSyntax.self)
            {
                scoped = true
            }
            ancestor = current.parent
        }
        let target = generic ? nil : node.initializer.value
        if !scoped {
            aliases.append((node.name.text, target))
            return .visitChildren
        }
        scopedAliasNames.insert(node.name.text)
        // A member of a type or an extension applies inside it (and its extensions).
        if let owner = node.parent?.parent?.parent?.parent, owner.isProtocol((any DeclGroupSyntax).self),
            let path = DeclarationIndex.typePath(of: owner)
        {
            memberAliases[path, default: [:]][node.name.text] = .some(target)
        }
        return .visitChildren
    }

    private func note(_ node: some DeclGroupSyntax, name: String, _ clause: GenericParameterClauseSyntax?) {
        nominalNames.insert(name)
        var names = clause.map { Set($0.parameters.map(\.name.text)) } ?? []
        // A type nested in a generic type has its parameters in scope.
        var ancestor = node.parent
        while let current = ancestor {
            if let declaration = current.asProtocol((any WithGenericParametersSyntax).self),
                let outer = declaration.genericParameterClause
            {
                names.formUnion(outer.parameters.map(\.name.text))
            }
            ancestor = current.parent
        }
        genericNames[name, default: []].formUnion(names)
        noteInheritance(name, node.inheritanceClause)
        if let owner = node.parent?.parent?.parent?.parent, owner.isProtocol((any DeclGroupSyntax).self),
            let path = DeclarationIndex.typePath(of: owner)
        {
            nestedTypes[path, default: []].insert(name)
        }
    }

    private func noteInheritance(_ name: String, _ clause: InheritanceClauseSyntax?) {
        for entry in clause?.inheritedTypes ?? [] {
            let components = DeclarationIndex.extendedComponents(entry.type)
            if let last = components.last {
                inherited[name, default: []].insert(last)
            }
        }
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        note(node, name: node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        note(node, name: node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        note(node, name: node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
        note(node, name: node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind {
        note(node, name: node.name.text, nil)
        protocolNames.insert(node.name.text)
        var names = Set(node.primaryAssociatedTypeClause?.primaryAssociatedTypes.map(\.name.text) ?? [])
        for member in node.memberBlock.members {
            if let associated = member.decl.as(AssociatedTypeDeclSyntax.self) {
                names.insert(associated.name.text)
            }
        }
        genericNames[node.name.text, default: []].formUnion(names)
        return .visitChildren
    }

    override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind {
        if let last = DeclarationIndex.extendedComponents(node.extendedType).last {
            noteInheritance(last, node.inheritanceClause)
        }
        return .visitChildren
    }

    override func visit(_ node: LabeledExprSyntax) -> SyntaxVisitorContinueKind {
        if node.label?.text == "defaultObjectScope" {
            let value = node.expression.trimmedDescription.withoutWhitespace
            if value != ".graph" && value != "ObjectScope.graph" {
                changesDefaultScope = true
            }
        }
        return .visitChildren
    }
}
