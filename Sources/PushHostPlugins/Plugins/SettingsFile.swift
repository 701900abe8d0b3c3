import PushHostSystem
import PushHostJSON

/// A plugin's settings file: the file beside it with the same stem and
/// `.json` (`cache.so` -> `cache.json`), a flat JSON object whose values are
/// strings, numbers or booleans (given to the plugin as their text).
///
/// The file may be a symbolic link (settings are often kept elsewhere and
/// linked in), followed like any program would; what it leads to must be a
/// regular file that can be read. Anything else refuses the plugin, never
/// silently dropping its settings: `settings file PATH: a directory`,
/// `a FIFO` (opened without blocking, so it cannot hang the start),
/// `a symbolic link to a file that does not exist`, or the system's reason.
package enum SettingsFile {
    /// The settings beside `pluginPath`, or none when there is no such file.
    static func read(besides pluginPath: String) throws(PluginRefusal) -> [String: String] {
        let file = path(besides: pluginPath)
        let contents: [UInt8]?
        do throws(FileProblem) {
            contents = try RegularFile.read(file, links: .follow)
        } catch {
            throw .badSettings(file: file, reason: error.description)
        }
        guard let bytes = contents else { return [:] }
        return try parse(bytes, file: file)
    }

    /// The settings of the plugin at `path`: a library's settings file
    /// beside it; an ffi manifest's `"sandbox"` member (a manifest takes
    /// no other settings: its functions' arguments are in it); a process
    /// manifest's `"settings"` and `"sandbox"` members.
    package static func of(plugin path: String) throws(PluginRefusal) -> [String: String] {
        let isProcess = path.hasSuffix(ProcessManifest.suffix)
        guard isProcess || path.hasSuffix(FFIManifest.suffix) else { return try read(besides: path) }
        let contents: [UInt8]?
        do throws(FileProblem) {
            contents = try RegularFile.read(path, links: .follow)
        } catch {
            throw .badSettings(file: path, reason: error.description)
        }
        var reader = JSONReader()
        let found = (contents ?? []).withUnsafeBytes { buffer in
            Result { () throws(PluginRefusal) -> [String: String] in
                // A manifest that does not parse is refused by its own reader, with why.
                guard let document = try? reader.parse(buffer), document.root.kind == .object else { return [:] }
                var settings: [String: String] = [:]
                for (key, value) in document.root.members where value.kind == .object {
                    if key.text == "sandbox" { try sandbox(value, file: path, into: &settings) }
                    if key.text == "settings" && isProcess { settings.merge(try plain(value, file: path)) { _, sandbox in sandbox } }
                }
                return settings
            }
        }
        return try found.get()
    }

    /// `dir/name.so` -> `dir/name.json`.
    static func path(besides pluginPath: String) -> String {
        let slash = pluginPath.lastIndex(of: "/")
        let nameStart = slash.map { pluginPath.index(after: $0) } ?? pluginPath.startIndex
        let stemEnd = pluginPath[nameStart...].lastIndex(of: ".") ?? pluginPath.endIndex
        return String(pluginPath[..<stemEnd]) + ".json"
    }

    static func parse(_ bytes: [UInt8], file: String) throws(PluginRefusal) -> [String: String] {
        var reader = JSONReader()
        let parsed = bytes.withUnsafeBytes { buffer in
            Result { () throws(PluginRefusal) -> [String: String] in
                let document: JSONDocument
                do throws(JSONError) {
                    document = try reader.parse(buffer)
                } catch {
                    throw .badSettings(file: file, reason: "\(error.reason) at byte \(error.offset)")
                }
                guard document.root.kind == .object else {
                    throw .badSettings(file: file, reason: "expected one JSON object of settings")
                }
                return try plain(document.root, file: file)
            }
        }
        return try parsed.get()
    }

    /// The settings of the object `object`: its strings, numbers and
    /// booleans as their text, and its `"sandbox"` object's grants.
    private static func plain(_ object: JSONValue, file: String) throws(PluginRefusal) -> [String: String] {
        var settings: [String: String] = [:]
        for (key, value) in object.members {
            switch value.kind {
            case .string, .number, .true, .false:
                settings[key.text] = value.text
            case .null:
                continue
            case .object where key.text == "sandbox":
                try sandbox(value, file: file, into: &settings)
            case .object, .array:
                throw .badSettings(file: file, reason: "the value of \"\(key.text)\" must be a string, number or boolean")
            }
        }
        return settings
    }

    /// The `"sandbox"` object's grants, as `sandbox.KEY` settings (a list
    /// as its items one per line; ``SandboxGrants``).
    private static func sandbox(_ object: JSONValue, file: String, into settings: inout [String: String]) throws(PluginRefusal) {
        for (key, value) in object.members {
            let name = "sandbox." + key.text
            switch value.kind {
            case .string, .number, .true, .false:
                settings[name] = value.text
            case .array:
                var items: [String] = []
                for item in value.elements {
                    guard item.kind == .string, !item.text.contains("\n") else {
                        throw .badSettings(file: file, reason: "each item of \"sandbox\": {\"\(key.text)\"} must be a string on one line")
                    }
                    items.append(item.text)
                }
                settings[name] = items.joined(separator: "\n")
            case .null:
                continue
            case .object:
                throw .badSettings(file: file, reason: "the value of \"sandbox\": {\"\(key.text)\"} must be a string, number, boolean or list")
            }
        }
    }
}
