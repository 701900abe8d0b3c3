#if canImport(Glibc)
import Glibc
#endif

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
    /// The flags a worker takes to log as the host does.
    package var logArguments: [String] = []
    /// How the host reads records (`--platform`, `--target-key`): the worker reads them alike.
    package var platform: Platform?
    package var targetKey = ""
    package var handlerTimeout = 30.0
    package var stopTimeout = 5.0

    package init() {}

    /// Whether the plugin `name`, whose settings are `settings`, runs in a worker.
    func isolates(_ name: String, settings: [String: String]) -> Bool {
        all || names.contains(name) || settings["isolate"] == "true"
    }

    /// How to start the worker of the plugin at `file`, with `settings`,
    /// its state (the token) in `stateDirectory`.
    func launch(file: String, settings: [String: String], stateDirectory: String) -> WorkerLaunch {
        var arguments = ["--plugin", file, "--state", stateDirectory, "--host", "\(getpid())", "--target-key", targetKey]
        if let platform { arguments += ["--platform", platform.rawValue] }
        if memoryLimit > 0 { arguments += ["--memory-limit", "\(memoryLimit)"] }
        for (key, value) in settings.sorted(by: { $0.key < $1.key }) {
            arguments += ["--setting", key + "=" + value]
        }
        return WorkerLaunch(
            executable: Self.executable, arguments: arguments + logArguments, handlerTimeout: handlerTimeout,
            stopTimeout: stopTimeout, crashLimit: crashLimit, crashWindow: crashWindow, memoryLimit: memoryLimit)
    }

    /// This binary's path.
    private static let executable: String = {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &path, path.count - 1)
        return count > 0 ? String(decoding: path[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "/proc/self/exe"
    }()
}
