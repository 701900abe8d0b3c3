import Foundation

/// `--plugin FILE`, then `--set NAME.KEY=VALUE` for each of `settings`.
func loading(_ file: String, as name: String, _ settings: [String: String] = [:]) -> [String] {
    ["--plugin", file] + settings.sorted { $0.key < $1.key }.flatMap { ["--set", "\(name).\($0.key)=\($0.value)"] }
}

extension Scratch {
    /// `settings` with `key` (the file a plugin writes; `path` unless given)
    /// and a grant of that file alone, so that the plugin may write it behind
    /// the walls `--sandbox on` puts up.
    func writing(_ settings: [String: String], to path: String, as key: String = "log") -> [String: String] {
        var all = settings
        if all[key] == nil { all[key] = path }
        if let file = all[key], all["sandbox.write"] == nil {
            if !FileManager.default.fileExists(atPath: file) { FileManager.default.createFile(atPath: file, contents: nil) }
            all["sandbox.write"] = file
        }
        return all
    }
}
