import SwiftSyntax

/// What the checked files declare that the spelling of keys depends on: type aliases, the generic
/// parameters of types (for their extensions), and whether a container's default scope is changed.
struct DeclarationIndex {
    /// Type aliases by name; `nil` when ambiguous or generic.
    var aliases: [String: TypeSyntax?] = [:]
    /// Generic parameters and associated types of the types and protocols declared, by type name.
    var genericNames: [String: Set<String>] = [:]
    /// Whether some `Container(defaultObjectScope:)` makes a scope other than `.graph` the default, so
    /// that a registration without `inObjectScope` has a scope the check cannot tell.
    var changesDefaultScope = false

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

    override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind {
        aliases.append((node.name.text, node.genericParameterClause == nil ? node.initializer.value : nil))
        return .visitChildren
    }

    private func note(_ name: String, _ clause: GenericParameterClauseSyntax?) {
        let names = clause.map { Set($0.parameters.map(\.name.text)) } ?? []
        genericNames[name, default: []].formUnion(names)
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        note(node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        note(node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind {
        note(node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: ActorDeclSyntax) -> SyntaxVisitorContinueKind {
        note(node.name.text, node.genericParameterClause)
        return .visitChildren
    }

    override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind {
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
