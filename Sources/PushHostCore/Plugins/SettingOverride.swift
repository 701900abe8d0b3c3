/// One `--set NAME.KEY=VALUE`: a setting for one plugin that wins over its
/// settings file.
public struct SettingOverride: Sendable, Equatable {
    public let plugin: String
    public let key: String
    public let value: String

    /// Parses `NAME.KEY=VALUE`; the name ends at the first `.`, the key at the first `=`.
    public init(parsing text: String) throws(UsageError) {
        guard let equals = text.firstIndex(of: "=") else {
            throw UsageError("--set \(text): expected NAME.KEY=VALUE (no '=')")
        }
        let path = text[..<equals]
        guard let dot = path.firstIndex(of: "."), dot != path.startIndex, path.index(after: dot) != equals else {
            throw UsageError("--set \(text): expected NAME.KEY=VALUE (the plugin name and the key are separated by '.')")
        }
        plugin = String(path[..<dot])
        key = String(path[path.index(after: dot)...])
        value = String(text[text.index(after: equals)...])
    }
}

/// A mistake in how the command was called (exit status 2).
public struct UsageError: Error, CustomStringConvertible, Sendable {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
