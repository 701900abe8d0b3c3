import Foundation
import Testing

/// A plugins folder that a test changes under a running host, as an
/// operator does: a new library or settings file is written beside and
/// moved into place whole, then the host gets SIGHUP.
struct PluginFolder {
    let scratch: Scratch
    /// The file every plugin of the folder writes its calls to (``Call``).
    let log: String

    init(_ scratch: Scratch) throws {
        self.scratch = scratch
        log = scratch.file("calls.log")
        try FileManager.default.createDirectory(atPath: scratch.file("plugins"), withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: log, contents: nil)
    }

    var path: String { scratch.file("plugins") }

    /// Builds Tests/Fixtures/plugins/versioned.c as the plugin `name` in
    /// `version` (with `defines`), and moves it into place as `NAME.so`,
    /// with its settings file (`settings`, the log and its grant added).
    func install(_ name: String, version: String, defines: [String] = [], settings: [String: String] = [:]) throws {
        let source = try PluginSource.fixture("versioned", defines: [#"NAME "\#(name)""#, #"VERSION "\#(version)""#] + defines)
        try install(name, source: source, settings: settings)
    }

    /// Builds the plugin `name` in `version` now, so that ``install(_:version:defines:settings:)`` later takes no time.
    func prepare(_ name: String, version: String, defines: [String] = []) throws {
        let source = try PluginSource.fixture("versioned", defines: [#"NAME "\#(name)""#, #"VERSION "\#(version)""#] + defines)
        try scratch.plugin("builds/\(name)-\(PluginBuilds.fnv1a64([source])).so", source)
    }

    /// Builds `source` and moves it into place as `NAME.so`, with its
    /// settings file (`settings`, the log, and grants to write it and `writes`).
    func install(_ name: String, source: String, settings: [String: String], writes: [String] = []) throws {
        let built = try scratch.plugin("builds/\(name)-\(PluginBuilds.fnv1a64([source])).so", source)
        try write(name + ".json", settingsText(settings, writes: writes))
        try move(built, to: name + ".so", link: true)
    }

    /// Writes `NAME.json` anew, moved into place.
    func configure(_ name: String, _ settings: [String: String], writes: [String] = []) throws {
        try write(name + ".json", settingsText(settings, writes: writes))
    }

    /// Takes `NAME.so` and its settings file out of the folder.
    func remove(_ name: String) throws {
        try FileManager.default.removeItem(atPath: path + "/" + name + ".so")
        try? FileManager.default.removeItem(atPath: path + "/" + name + ".json")
    }

    /// The calls the plugins wrote so far.
    var calls: [Call] {
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap(Call.init)
    }

    private func settingsText(_ settings: [String: String], writes: [String] = []) throws -> String {
        var object: [String: Any] = settings
        object["log"] = log
        object["sandbox"] = ["write": [log] + writes]
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    private func write(_ name: String, _ text: String) throws {
        let temporary = scratch.file("staging-" + name)
        try text.write(toFile: temporary, atomically: false, encoding: .utf8)
        try move(temporary, to: name, link: false)
    }

    /// Renames `from` over `NAME` in the folder (a link to `from`'s target for a built library).
    private func move(_ from: String, to name: String, link: Bool) throws {
        var source = from
        if link {
            source = scratch.file("staging-" + name)
            try? FileManager.default.removeItem(atPath: source)
            try FileManager.default.createSymbolicLink(atPath: source, withDestinationPath: try FileManager.default.destinationOfSymbolicLink(atPath: from))
        }
        guard rename(source, path + "/" + name) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// One line of the plugins' log: `NAME VERSION TAG data|background ID`.
    struct Call: Hashable {
        let plugin: String
        let version: String
        let tag: String
        let handler: String
        let id: String

        init?(_ line: Substring) {
            let words = line.split(separator: " ").map(String.init)
            guard words.count == 5 else { return nil }
            (plugin, version, tag, handler, id) = (words[0], words[1], words[2], words[3], words[4])
        }

        /// `one 2 blue`: which instance it was.
        var instance: String { "\(plugin) \(version) \(tag)" }
    }
}
