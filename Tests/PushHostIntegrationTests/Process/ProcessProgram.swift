import Foundation

extension Scratch {
    /// Writes the process manifest `NAME.process.json` with `roles` (and
    /// `screens`, `settings`, `sandbox` when given) whose program is the
    /// fixture `probe.py` copied into its subfolder `NAME/`, or `command`
    /// with the files `files`; its path.
    @discardableResult
    func program(
        _ name: String, roles: [String], screens: [String]? = nil, settings: [String: String] = [:], sandbox: String? = nil,
        command: [String]? = nil, files: [String: String] = [:]
    ) throws -> String {
        let probe = try String(contentsOf: Paths.fixtures.appendingPathComponent("programs/probe.py"), encoding: .utf8)
        let given = command == nil ? ["\(name)/probe.py": probe] : files
        for (file, text) in given { try write(file, text) }
        var members = [#""command": \#(Self.json(command ?? ["python3", "\(name)/probe.py"]))"#, #""roles": \#(Self.json(roles))"#]
        if let screens { members.append(#""screens": \#(Self.json(screens))"#) }
        if !settings.isEmpty {
            let pairs = settings.sorted { $0.key < $1.key }.map { #""\#($0.key)": "\#($0.value)""# }
            members.append(#""settings": {\#(pairs.joined(separator: ", "))}"#)
        }
        if let sandbox { members.append(#""sandbox": \#(sandbox)"#) }
        return try write("\(name).process.json", "{\(members.joined(separator: ", "))}\n")
    }

    /// The calls the program `name` noted (probe.py's calls.log in its state folder).
    func programCalls(_ name: String) -> [String] {
        read("state/plugins/\(name)/calls.log").split(separator: "\n").map(String.init)
    }

    private static func json(_ strings: [String]) -> String {
        "[" + strings.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
    }
}

/// A message for probe.py: `id`, with `data` fields that drive its answer.
func programMessage(_ id: String, _ data: [String: String] = [:], target: String? = nil) -> String {
    let all = data.merging(target.map { ["rx_gcm_key_target": $0] } ?? [:]) { $1 }
    let fields = all.sorted { $0.key < $1.key }.map { #""\#($0.key)":"\#($0.value)""# }.joined(separator: ",")
    return #"{"message_id":"\#(id)","notification":{"title":"T \#(id)","body":"B"},"data":{\#(fields)}}"#
}
