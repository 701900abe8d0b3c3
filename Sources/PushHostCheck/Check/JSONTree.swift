import PushHostJSON

/// A JSON value held whole, for comparing a report line with an expected
/// one: `pushhost check` reads few lines and keeps them, where dispatch
/// reads each record once through ``JSONReader``'s tape.
package indirect enum JSONTree: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number's value, and its text as written (for showing it).
    case number(Double, text: String)
    case string(String)
    case array([JSONTree])
    /// Members in the order written.
    case object([Member])

    package struct Member: Equatable, Sendable {
        package let key: String
        package let value: JSONTree
    }

    /// `text` parsed; the reason (`byte 4: invalid literal`) when it is no JSON.
    package static func parse(_ text: some StringProtocol) -> Result<JSONTree, JSONTreeError> {
        var reader = JSONReader()
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { buffer -> Result<JSONTree, JSONTreeError> in
            do throws(JSONError) {
                return .success(JSONTree(try reader.parse(buffer).root))
            } catch {
                return .failure(JSONTreeError(reason: "byte \(error.offset): \(error.reason)"))
            }
        }
    }

    init(_ value: JSONValue) {
        switch value.kind {
        case .null: self = .null
        case .true: self = .bool(true)
        case .false: self = .bool(false)
        case .number: self = .number(Double(value.text) ?? .nan, text: value.text)
        case .string: self = .string(value.text)
        case .array: self = .array(value.elements.map(JSONTree.init))
        case .object: self = .object(value.members.map { Member(key: $0.key.text, value: JSONTree($0.value)) })
        }
    }

    /// The value of member `key` of an object; nil for a missing member or another kind.
    package subscript(key: String) -> JSONTree? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The object without the members `drop` names; other kinds as they are.
    func removing(_ drop: (String, JSONTree) -> Bool) -> JSONTree {
        guard case .object(let members) = self else { return self }
        return .object(members.filter { !drop($0.key, $0.value) })
    }

    /// Compact JSON, members in the order written.
    package var json: String {
        switch self {
        case .null: "null"
        case .bool(let value): value ? "true" : "false"
        case .number(_, let text): text
        case .string(let text): JSONWriter.quoted(text)
        case .array(let elements): "[" + elements.map(\.json).joined(separator: ",") + "]"
        case .object(let members): "{" + members.map { JSONWriter.quoted($0.key) + ":" + $0.value.json }.joined(separator: ",") + "}"
        }
    }

    /// Numbers are equal by value (`1.0` is `1`), whatever their text.
    package static func == (a: JSONTree, b: JSONTree) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x, _), .number(let y, _)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x == y
        default: false
        }
    }
}

/// Why a text is no JSON.
package struct JSONTreeError: Error, Equatable {
    package let reason: String
}
