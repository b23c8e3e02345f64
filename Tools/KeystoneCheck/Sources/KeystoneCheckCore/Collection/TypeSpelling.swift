import SwiftParser
import SwiftSyntax

/// Spells a type the one way the check compares keys: no whitespace, `Optional<T>` as `T?`, `Array<T>`
/// as `[T]`, `Dictionary<K, V>` as `[K:V]`, `any P` as `P`, `()` as `Void`, redundant parentheses and the
/// parameter labels of function types dropped, and the type aliases declared in the checked files
/// followed.
struct TypeSpeller {
    /// What a name means where a type is spelled, before the file-level aliases are looked at.
    enum Binding {
        /// A generic parameter, an associated type or `Self`: any type.
        case generic
        /// A type alias declared in an enclosing type (`nil`: one the check does not follow).
        case alias(TypeSyntax?)
        /// A type nested in an enclosing type, by its qualified spelling (`Feed.ViewModel`).
        case nested(String)
    }

    /// Type aliases declared at file level, by name; `nil` when a name is declared more than once with
    /// different targets, with generic parameters, or also inside a type (then it is not followed).
    var aliases: [String: TypeSyntax?] = [:]
    /// Names declared around the spelled type, innermost first: they shadow the file-level aliases.
    var local: [String: Binding] = [:]
    /// Every name some type alias has, wherever declared: `Legacy.Store` may name an alias.
    var aliasNames: Set<String> = []

    /// The spelling of a type, and the identifiers it names (for the generic-parameter test).
    struct Spelling {
        var text: String
        var identifiers: Set<String>
        /// The type names something the spelling cannot settle (`some P`, an alias with parameters, …).
        var isOpaque: Bool
    }

    /// Spells the type written as the base of `X.self`, or `nil` when the expression names no type.
    func spell(typeExpression expression: ExprSyntax) -> Spelling? {
        let source = expression.trimmedDescription
        var parser = Parser(source)
        let type = TypeSyntax.parse(from: &parser)
        guard !type.hasError, type.trimmedDescription == source.trimmingWhitespaceAndComments() else {
            return nil
        }
        var identifiers = Set<String>()
        var opaque = false
        let text = render(type, identifiers: &identifiers, opaque: &opaque, depth: 0)
        return Spelling(text: text, identifiers: identifiers, isOpaque: opaque)
    }

    /// Spells a type written in a declaration (an alias target).
    func spell(type: TypeSyntax) -> Spelling {
        var identifiers = Set<String>()
        var opaque = false
        let text = render(type, identifiers: &identifiers, opaque: &opaque, depth: 0)
        return Spelling(text: text, identifiers: identifiers, isOpaque: opaque)
    }

    private func render(_ type: TypeSyntax, identifiers: inout Set<String>, opaque: inout Bool, depth: Int) -> String {
        guard depth < 32 else {
            opaque = true
            return type.trimmedDescription.withoutWhitespace
        }
        func sub(_ type: TypeSyntax) -> String {
            render(type, identifiers: &identifiers, opaque: &opaque, depth: depth + 1)
        }
        if let identifier = type.as(IdentifierTypeSyntax.self) {
            let name = identifier.name.text
            let arguments = identifier.genericArgumentClause?.arguments.map { argument -> String in
                if case .type(let type) = argument.argument {
                    return sub(type)
                }
                opaque = true
                return argument.argument.trimmedDescription.withoutWhitespace
            }
            if let arguments {
                switch (name, arguments.count) {
                case ("Optional", 1): return Self.optional(arguments[0])
                case ("Array", 1): return "[\(arguments[0])]"
                case ("Dictionary", 2): return "[\(arguments[0]):\(arguments[1])]"
                default: break
                }
            }
            switch local[name] {
            case .generic:
                identifiers.insert(name)
                return name + (arguments.map { "<" + $0.joined(separator: ",") + ">" } ?? "")
            case .alias(let alias):
                guard let target = alias, arguments == nil else {
                    identifiers.insert(name)
                    opaque = true
                    return name + (arguments.map { "<" + $0.joined(separator: ",") + ">" } ?? "")
                }
                return sub(target)
            case .nested(let qualified):
                identifiers.insert(name)
                return qualified + (arguments.map { "<" + $0.joined(separator: ",") + ">" } ?? "")
            case nil:
                break
            }
            if name == "Void" && arguments == nil {
                return "Void"
            }
            if let alias = aliases[name] {
                guard let target = alias, arguments == nil else {
                    identifiers.insert(name)
                    opaque = true
                    return name + (arguments.map { "<" + $0.joined(separator: ",") + ">" } ?? "")
                }
                return sub(target)
            }
            identifiers.insert(name)
            return name + (arguments.map { "<" + $0.joined(separator: ",") + ">" } ?? "")
        }
        if let member = type.as(MemberTypeSyntax.self) {
            let base = sub(member.baseType)
            let name = member.name.text
            // `Legacy.Store` may name an alias nested in a type: not compared.
            if aliasNames.contains(name) {
                opaque = true
            }
            let arguments = member.genericArgumentClause?.arguments.map { argument -> String in
                if case .type(let type) = argument.argument {
                    return sub(type)
                }
                opaque = true
                return argument.argument.trimmedDescription.withoutWhitespace
            }
            if base == "Swift", let arguments {
                switch (name, arguments.count) {
                case ("Optional", 1): return Self.optional(arguments[0])
                case ("Array", 1): return "[\(arguments[0])]"
                case ("Dictionary", 2): return "[\(arguments[0]):\(arguments[1])]"
                default: break
                }
            }
            return base + "." + name + (arguments.map { "<" + $0.joined(separator: ",") + ">" } ?? "")
        }
        if let optional = type.as(OptionalTypeSyntax.self) {
            return Self.optional(sub(optional.wrappedType))
        }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return Self.optional(sub(unwrapped.wrappedType))
        }
        if let array = type.as(ArrayTypeSyntax.self) {
            return "[\(sub(array.element))]"
        }
        if let dictionary = type.as(DictionaryTypeSyntax.self) {
            return "[\(sub(dictionary.key)):\(sub(dictionary.value))]"
        }
        if let tuple = type.as(TupleTypeSyntax.self) {
            if tuple.elements.isEmpty {
                return "Void"
            }
            if tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil,
                only.ellipsis == nil
            {
                return sub(only.type)
            }
            let elements = tuple.elements.map { element -> String in
                let label = element.firstName.map { $0.text + ":" } ?? ""
                return label + sub(element.type)
            }
            return "(" + elements.joined(separator: ",") + ")"
        }
        if let some = type.as(SomeOrAnyTypeSyntax.self) {
            if some.someOrAnySpecifier.tokenKind == .keyword(.any) {
                return sub(some.constraint)
            }
            opaque = true
            return "some" + sub(some.constraint)
        }
        if let composition = type.as(CompositionTypeSyntax.self) {
            return composition.elements.map { sub($0.type) }.sorted().joined(separator: "&")
        }
        if let metatype = type.as(MetatypeTypeSyntax.self) {
            return sub(metatype.baseType) + "." + metatype.metatypeSpecifier.text
        }
        if let function = type.as(FunctionTypeSyntax.self) {
            // Parameter labels are no part of a function's type: `(_ id: String) -> T` is `(String) -> T`.
            let parameters = function.parameters.map { parameter -> String in
                sub(parameter.type) + (parameter.ellipsis == nil ? "" : "...")
            }
            var effects = ""
            if let specifiers = function.effectSpecifiers {
                if specifiers.asyncSpecifier != nil { effects += "async" }
                if let clause = specifiers.throwsClause {
                    effects += "throws"
                    if let thrown = clause.type {
                        effects += "(" + sub(thrown) + ")"
                    }
                }
            }
            return "(" + parameters.joined(separator: ",") + ")" + effects + "->" + sub(function.returnClause.type)
        }
        if let attributed = type.as(AttributedTypeSyntax.self) {
            // `@Sendable`, `@MainActor`, `inout`, … stay part of the spelling; `@escaping` says nothing
            // about the type.
            var prefix = ""
            for specifier in attributed.specifiers {
                prefix += specifier.trimmedDescription.withoutWhitespace
            }
            for attribute in attributed.attributes {
                let text = attribute.trimmedDescription.withoutWhitespace
                if text != "@escaping" {
                    prefix += text
                }
            }
            return prefix + sub(attributed.baseType)
        }
        // The rest: the text without whitespace, and every identifier in it counted (so a generic
        // parameter inside is still seen); not compared.
        opaque = true
        for token in type.tokens(viewMode: .sourceAccurate) {
            if case .identifier(let name) = token.tokenKind {
                identifiers.insert(name)
            }
        }
        return type.trimmedDescription.withoutWhitespace
    }

    private static func optional(_ wrapped: String) -> String {
        // `(A) -> B` and `A & B` need parentheses to take a `?`.
        if wrapped.contains("->") || wrapped.contains("&") {
            return "(\(wrapped))?"
        }
        return wrapped + "?"
    }
}

extension String {
    /// The text with every whitespace character removed.
    var withoutWhitespace: String {
        String(unicodeScalars.filter { !$0.properties.isWhitespace }.map(Character.init))
    }

    /// The text without leading and trailing whitespace (comments inside a type are not expected).
    func trimmingWhitespaceAndComments() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        return String(scalars)
    }
}

/// A type spelling with some parts unknown, matching every spelling of that shape: the pattern of
/// `ListViewModel<T>` (T generic) matches `ListViewModel<Article>`.
struct TypePattern: Sendable, Equatable {
    /// Literal pieces; between two consecutive pieces stands one unknown part. A pattern of one empty
    /// piece list matches everything.
    private var pieces: [String]
    private let matchesEverything: Bool

    /// A pattern matching every type.
    static let anything = TypePattern(pieces: [], matchesEverything: true)

    private init(pieces: [String], matchesEverything: Bool) {
        self.pieces = pieces
        self.matchesEverything = matchesEverything
    }

    /// The pattern of `spelling`, where each identifier in `unknown` stands for any type.
    init(spelling: String, unknown: Set<String>) {
        var pieces: [String] = []
        var current = ""
        var word = ""
        func flushWord() {
            if unknown.contains(word) {
                pieces.append(current)
                current = ""
            } else {
                current += word
            }
            word = ""
        }
        for character in spelling {
            if character.isLetter || character.isNumber || character == "_" {
                word.append(character)
            } else {
                flushWord()
                current.append(character)
            }
        }
        flushWord()
        pieces.append(current)
        self.init(pieces: pieces, matchesEverything: false)
    }

    /// Whether `spelling` could be a type of this shape.
    func matches(_ spelling: String) -> Bool {
        if matchesEverything { return true }
        guard pieces.count > 1 else { return pieces.first == spelling }
        let text = Array(spelling)
        // A glob match where each gap stands for a non-empty run of characters.
        func match(_ pieceIndex: Int, _ position: Int) -> Bool {
            let piece = Array(pieces[pieceIndex])
            guard position + piece.count <= text.count, Array(text[position..<position + piece.count]) == piece
            else { return false }
            let next = position + piece.count
            if pieceIndex == pieces.count - 1 {
                return next == text.count
            }
            var gapEnd = next + 1
            while gapEnd <= text.count {
                if match(pieceIndex + 1, gapEnd) { return true }
                gapEnd += 1
            }
            return false
        }
        return match(0, 0)
    }
}
