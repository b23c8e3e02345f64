import SwiftSyntax

/// What the checked files declare that the spelling of keys depends on: type aliases, the generic
/// parameters of types (for their extensions), and whether a container's default scope is changed.
struct DeclarationIndex {
    /// Type aliases by name; `nil` when ambiguous or generic.
    var aliases: [String: TypeSyntax?] = [:]
    /// Generic parameters and associated types of the types and protocols declared, by type name.
    var genericNames: [String: Set<String>] = [:]
    /// The names of the types and protocols declared.
    var nominalNames: Set<String> = []
    /// Whether some `Container(defaultObjectScope:)` makes a scope other than `.graph` the default, so
    /// that a registration without `inObjectScope` has a scope the check cannot tell.
    var changesDefaultScope = false

    /// The aliases worth following: those declared once (or alike), outside generic contexts, under a
    /// name no type or protocol of the checked files also has; the others map to `nil`.
    var followableAliases: [String: TypeSyntax?] {
        var result = aliases
        for name in aliases.keys where nominalNames.contains(name) {
            result[name] = .some(nil)
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
        nominalNames.formUnion(visitor.nominalNames)
        for (name, names) in visitor.genericNames {
            genericNames[name, default: []].formUnion(names)
        }
        changesDefaultScope = changesDefaultScope || visitor.changesDefaultScope
    }
}

private final class DeclarationVisitor: SyntaxVisitor {
    var aliases: [(String, TypeSyntax?)] = []
    var genericNames: [String: Set<String>] = [:]
    var changesDefaultScope = false

    var nominalNames: Set<String> = []

    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
        // An alias with parameters, or declared where generic parameters are in scope, means a
        // different type in each specialization: it is not followed.
        var generic = node.genericParameterClause != nil
        var ancestor = node.parent
        while let current = ancestor, !generic {
            if let declaration = current.asProtocol((any WithGenericParametersSyntax).self),
                declaration.genericParameterClause != nil
            {
                generic = true
            }
            if current.is(ProtocolDeclSyntax.self) || current.is(ExtensionDeclSyntax.self) {
                generic = true
            }
            ancestor = current.parent
        }
        aliases.append((node.name.text, generic ? nil : node.initializer.value))
        return .visitChildren
    }

    private func note(_ name: String, _ clause: GenericParameterClauseSyntax?) {
        let names = clause.map { Set($0.parameters.map(\.name.text)) } ?? []
        genericNames[name, default: []].formUnion(names)
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        nominalNames.insert(node.name.text)
        note(node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        nominalNames.insert(node.name.text)
        note(node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        nominalNames.insert(node.name.text)
        note(node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
        nominalNames.insert(node.name.text)
        note(node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind {
        nominalNames.insert(node.name.text)
        var names = Set(node.primaryAssociatedTypeClause?.primaryAssociatedTypes.map(\.name.text) ?? [])
        for member in node.memberBlock.members {
            if let associated = member.decl.as(AssociatedTypeDeclSyntax.self) {
                names.insert(associated.name.text)
            }
        }
        genericNames[node.name.text, default: []].formUnion(names)
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
