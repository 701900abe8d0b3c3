/// What a reload changed, by plugin name, in load order: the line it logs
/// (`reloaded: added X, changed Y (settings), removed Z, unchanged 5`).
package struct PluginChanges {
    package var added: [String] = []
    /// Each changed plugin, with what changed (`file`, `settings`, `grants`, `isolation`).
    package var changed: [(name: String, what: String)] = []
    package var removed: [String] = []
    package var unchanged: [String] = []

    package init() {}

    /// Whether anything changed.
    package var isEmpty: Bool { added.isEmpty && changed.isEmpty && removed.isEmpty }

    /// `added X, changed Y (settings), removed Z, unchanged 5` (nothing: `nothing changed, unchanged 5`).
    package var summary: String {
        var parts: [String] = []
        if !added.isEmpty { parts.append("added " + added.joined(separator: ", ")) }
        if !changed.isEmpty { parts.append("changed " + changed.map { "\($0.name) (\($0.what))" }.joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("removed " + removed.joined(separator: ", ")) }
        if parts.isEmpty { parts.append("nothing changed") }
        parts.append("unchanged \(unchanged.count)")
        return parts.joined(separator: ", ")
    }

}
