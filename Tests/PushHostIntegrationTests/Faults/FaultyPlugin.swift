import Foundation

extension PluginSource {
    /// A plugin named `faulty` whose handler for `role` (`on_data` or
    /// `on_background`) misbehaves as a message's `data.fault` says:
    /// `segv` (a write through NULL), `abort`, or `hang` (never returns).
    /// Every other message passes; each call first appends
    /// `HANDLER ID` to the file at the `log` setting
    /// (Tests/Fixtures/plugins/faulty.c).
    static func faulty(role: String) throws -> String {
        try fixture("faulty", defines: ["HANDLER \(role)"])
    }
}

extension Scratch {
    /// The `faulty` plugin with its misbehaving handler for `role`, logging
    /// its calls into `faulty.log`: the arguments that load it.
    func faulty(_ role: String = "on_data") throws -> [String] {
        let path = try plugin("faulty.so", PluginSource.faulty(role: role))
        return ["--plugin", path, "--set", "faulty.log=\(file("faulty.log"))"]
    }

    /// The `faulty` plugin's calls so far, `HANDLER ID` each.
    var faultyCalls: [String] {
        read("faulty.log").split(separator: "\n").map(String.init)
    }
}
