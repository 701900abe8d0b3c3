#if canImport(Glibc)
import Glibc
#endif
import PushHostMessage

/// Which plugins run in worker processes, and the limits their workers are
/// kept to (`--isolate`, a sidecar's `"isolate": true`, `--worker-*`).
package struct IsolationOptions: Sendable {
    /// The plugins named by `--isolate NAME`.
    package var names: Set<String> = []
    /// `--isolate all`.
    package var all = false
    package var crashLimit = 5
    package var crashWindow = 60.0
    /// MiB of resident memory over which a worker is restarted; 0 for no limit.
    package var memoryLimit = 0
    /// The flags a worker takes to log as the host does (in JSON lines, which the host reads: ``WorkerOutput``).
    package var logArguments: [String] = []
    package var handlerTimeout = 30.0
    /// `--max-bytes`: the largest record, which bounds a call's frame.
    package var maxBytes = 65536
    package var stopTimeout = 5.0
    /// `--sandbox`: the walls around each worker.
    package var sandbox = SandboxMode.on

    package init() {}

    /// What `--isolate NAME|all`, given `flags` times, asks for.
    package init(isolating flags: [String]) {
        all = flags.contains("all")
        names = Set(flags.filter { $0 != "all" })
    }

    /// Whether the plugin `name`, whose settings are `settings`, runs in a
    /// worker (a process plugin always runs in its own process).
    package func isolates(_ name: String, settings: [String: String]) -> Bool {
        all || names.contains(name) || settings["isolate"] == "true"
    }

    /// Why every process plugin runs apart, as `pushhost plugins` says it.
    package static let processReason = "a process plugin, always"

    /// Why the plugin `name` at `file` runs in a worker, as `pushhost plugins`
    /// says it (`--isolate all`, `--set NAME.isolate=true`, ...), or nil when
    /// it runs in the host: as ``isolates(_:settings:)`` decides with
    /// `settings` (its settings file's) and then `overrides`.
    package func reason(_ name: String, file: String, settings: [String: String], overrides: [SettingOverride]) -> String? {
        if file.hasSuffix(ProcessManifest.suffix) { return Self.processReason }
        if all { return "--isolate all" }
        if names.contains(name) { return "--isolate \(name)" }
        if let set = overrides.last(where: { $0.plugin == name && $0.key == "isolate" }) {
            return set.value == "true" ? "--set \(name).isolate=true" : nil
        }
        return settings["isolate"] == "true" ? "\"isolate\": true in \(SettingsFile.path(besides: file))" : nil
    }

    /// Whether a plugin file whose settings file holds `settings` is read by
    /// a scan in a worker (``PluginScans``), so that no code of its library
    /// runs in the host. A plugin's name comes from its descriptor, so when
    /// `--isolate` names any plugin, or a `--set NAME.isolate=true` is
    /// given, every file is scanned in a worker; otherwise only the ones
    /// whose settings file says `"isolate": true`.
    func scansInWorker(settings: [String: String], overrides: [SettingOverride]) -> Bool {
        all || !names.isEmpty || overrides.contains { $0.key == "isolate" && $0.value == "true" } || settings["isolate"] == "true"
    }
}
