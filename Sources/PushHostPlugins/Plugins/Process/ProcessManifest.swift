import CPushHost
import PushHostRecords

/// A process manifest `NAME.process.json` as read and checked
/// (docs/process-plugins.md): a program in any language, started by the
/// host, that takes the calls of one plugin named NAME as JSON lines on
/// its standard input and answers them on its standard output.
package struct ProcessManifest: Sendable {
    package let name: String
    /// The program and its arguments: the first looked up on `PATH`, run in ``folder``.
    package let command: [String]
    /// The manifest's folder, where the program runs (its relative paths are from there).
    package let folder: String
    let version: String
    let summary: String
    let roles: [PluginRole]
    /// A screen's targets.
    let screens: [String]

    /// `inbox.process.json` -> `inbox`.
    package static let suffix = ".process.json"

    /// The handlers its roles give: a screen has both `on_target` and `on_mismatch`.
    var handlers: Set<PluginHandler> {
        var handlers: Set<PluginHandler> = []
        for role in roles {
            switch role {
            case .data: handlers.insert(.onData)
            case .background: handlers.insert(.onBackground)
            case .screen: handlers.formUnion([.onTarget, .onMismatch])
            case .token: handlers.insert(.onToken)
            case .action: handlers.insert(.onAction)
            }
        }
        return handlers
    }

    /// The plugin it makes, which always runs in a process of its own.
    func descriptor() -> PluginDescriptor {
        PluginDescriptor(
            raw: ph_plugin(), abiMajor: HostABI.major, abiMinor: HostABI.minor, name: name, version: version, summary: summary, targets: screens,
            roles: roles, extensions: [], handlers: handlers, ffi: nil, process: self, manifest: nil, isScanned: false)
    }
}
