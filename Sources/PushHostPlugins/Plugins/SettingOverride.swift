import PushHostSystem

/// One `--set NAME.KEY=VALUE`: a setting for one plugin that wins over its
/// settings file.
package struct SettingOverride: Sendable, Equatable {
    package let plugin: String
    package let key: String
    package let value: String

    /// Parses `NAME.KEY=VALUE`; the name ends at the first `.`, the key at the first `=`.
    package init(parsing text: String) throws(UsageError) {
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
