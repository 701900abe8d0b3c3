/// Where a report line differs from what was expected of it: the path of
/// the field (`status`, `data[0].verdict`), what was expected, and what the
/// line has (nil: the field is absent).
package struct FieldDifference: Equatable, Sendable {
    package let path: String
    package let expected: JSONTree
    package let actual: JSONTree?

    /// The differences of `actual` from `expected`. An object need only
    /// hold the members expected of it (others are not compared), at any
    /// depth; arrays are compared element by element and must be as long;
    /// numbers by value; anything else must be equal.
    static func between(expected: JSONTree, actual: JSONTree, path: String = "") -> [FieldDifference] {
        switch (expected, actual) {
        case (.object(let members), .object):
            return members.flatMap { member -> [FieldDifference] in
                let inner = path.isEmpty ? member.key : path + "." + member.key
                guard let value = actual[member.key] else { return [FieldDifference(path: inner, expected: member.value, actual: nil)] }
                return between(expected: member.value, actual: value, path: inner)
            }
        case (.array(let wanted), .array(let found)) where wanted.count == found.count:
            return zip(wanted, found).enumerated().flatMap { index, pair in
                between(expected: pair.0, actual: pair.1, path: "\(path)[\(index)]")
            }
        default:
            return expected == actual ? [] : [FieldDifference(path: path, expected: expected, actual: actual)]
        }
    }

    /// `status: expected "delivered", got "failed"`.
    package var description: String {
        "\(path): expected \(expected.json), " + (actual.map { "got \($0.json)" } ?? "the line has no such field")
    }
}
