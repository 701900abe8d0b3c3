#if canImport(Glibc)
import Glibc
#endif

/// How a worker's walls stand (`--sandbox`): not at all, as many as the
/// kernel allows (a wall that cannot stand is named once), or all of them
/// or the plugin is refused.
package enum SandboxMode: String, Sendable, CaseIterable {
    case off
    case on
    case strict
}

/// What an isolated plugin's settings grant it beyond its walls' default
/// (`"sandbox": {...}` in its settings file, `--set NAME.sandbox.KEY=VALUE`):
/// files to read and to write, TCP ports to connect to, a D-Bus bus, the
/// network, new processes, and its limits.
///
/// In the flat settings a plugin sees, each key is `sandbox.KEY`, and a list
/// is its items one per line.
package struct SandboxGrants {
    package var read: [String] = []
    package var write: [String] = []
    /// `HOST:PORT` each.
    package var connect: [(host: String, port: UInt16)] = []
    /// `session` or `system`.
    package var bus: String?
    package var network = false
    package var exec = false
    /// MiB of address space beyond the worker's own at start, and open files; nil for no limit.
    package var memory: Int?
    package var files: Int?
    /// CPU seconds each call may take (and `create`).
    package var cpu: Int?

    /// The settings keys a grant is read from, and which of them take a list.
    static let keys: Set<String> = ["read", "write", "connect", "bus", "network", "exec", "memory", "files", "cpu"]
    static let listKeys: Set<String> = ["read", "write", "connect"]
    package static let prefix = "sandbox."

    /// No grant: the walls' default.
    package init() {}

    /// The grants in `settings`; why not, naming the setting, when one is
    /// malformed or names a path that does not exist.
    package init(settings: [String: String]) throws(SandboxProblem) {
        for (key, value) in settings where key.hasPrefix(Self.prefix) {
            let name = String(key.dropFirst(Self.prefix.count))
            let items = value.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
            switch name {
            case "read": read = try items.map { path throws(SandboxProblem) in try Self.existing(path, key: key) }
            case "write": write = try items.map { path throws(SandboxProblem) in try Self.existing(path, key: key) }
            case "connect": connect = try items.map { item throws(SandboxProblem) in try Self.endpoint(item, key: key) }
            case "bus":
                guard value == "session" || value == "system" else { throw SandboxProblem("\(key) is \(value): expected session or system") }
                bus = value
            case "network": network = try Self.flag(value, key: key)
            case "exec": exec = try Self.flag(value, key: key)
            case "memory": memory = try Self.count(value, key: key)
            case "files": files = try Self.count(value, key: key)
            case "cpu": cpu = try Self.count(value, key: key)
            default: throw SandboxProblem("\(key) is no grant (there are \(Self.keys.sorted().joined(separator: ", ")))")
            }
        }
    }

    private static func existing(_ path: String, key: String) throws(SandboxProblem) -> String {
        guard path.hasPrefix("/") else { throw SandboxProblem("\(key): \(path) is not an absolute path") }
        var info = stat()
        guard stat(path, &info) == 0 else { throw SandboxProblem("\(key): \(path): \(String(cString: strerror(errno)))") }
        return path
    }

    private static func endpoint(_ text: String, key: String) throws(SandboxProblem) -> (host: String, port: UInt16) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]), port > 0 else {
            throw SandboxProblem("\(key): \(text) is not HOST:PORT")
        }
        return (String(text[..<colon]), port)
    }

    private static func flag(_ text: String, key: String) throws(SandboxProblem) -> Bool {
        switch text {
        case "true": return true
        case "false": return false
        default: throw SandboxProblem("\(key) is \(text): expected true or false")
        }
    }

    private static func count(_ text: String, key: String) throws(SandboxProblem) -> Int {
        guard let count = Int(text), count > 0 else { throw SandboxProblem("\(key) is \(text): expected a number above 0") }
        return count
    }

    /// `settings` with `overrides` (`--set`) applied: a list grant given
    /// with `--set` adds to the settings file's, any other setting replaces it.
    static func merge(_ settings: [String: String], _ overrides: [(key: String, value: String)]) -> [String: String] {
        var merged = settings
        for (key, value) in overrides {
            if key.hasPrefix(prefix), listKeys.contains(String(key.dropFirst(prefix.count))), let before = merged[key], !before.isEmpty {
                merged[key] = before + "\n" + value
            } else {
                merged[key] = value
            }
        }
        return merged
    }
}

/// Why a plugin's grants cannot be used.
package struct SandboxProblem: Error, CustomStringConvertible {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}
