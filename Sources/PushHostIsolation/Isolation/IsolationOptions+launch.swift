#if canImport(Glibc)
import Glibc
import PushHostPlugins
#endif

extension IsolationOptions {
    /// How to start the worker of the plugin at `file`, with `settings`,
    /// its state (the token) in `stateDirectory`.
    package func launch(file: String, name: String, settings: [String: String], stateDirectory: String) -> WorkerLaunch {
        var arguments = ["--plugin", file, "--state", stateDirectory, "--host", "\(getpid())"]
        if sandbox != .off { arguments += ["--sandbox", sandbox.rawValue, "--name", name] }
        if memoryLimit > 0 { arguments += ["--memory-limit", "\(memoryLimit)"] }
        return WorkerLaunch(
            executable: Self.executable, arguments: arguments + WorkerOutput.inJSON(logArguments), walled: sandbox != .off,
            bus: sandbox == .off ? nil : (try? SandboxGrants(settings: settings))?.bus, settings: settings, handlerTimeout: handlerTimeout,
            stopTimeout: stopTimeout, crashLimit: crashLimit, crashWindow: crashWindow, memoryLimit: memoryLimit,
            largestFrame: 2 * maxBytes + (1 << 16))
    }

    /// How to start the program of the process plugin `manifest`, at
    /// `file`, with `settings`, its state folder in `stateDirectory`.
    package func launch(file: String, program manifest: ProcessManifest, settings: [String: String], stateDirectory: String) -> WorkerLaunch {
        var arguments = ["--program", "--plugin", file, "--state", stateDirectory, "--host", "\(getpid())", "--name", manifest.name]
        if sandbox != .off { arguments += ["--sandbox", sandbox.rawValue] }
        return WorkerLaunch(
            executable: Self.executable, arguments: arguments + WorkerOutput.inJSON(logArguments) + ["--"] + manifest.command, walled: sandbox != .off,
            bus: nil, settings: settings, handlerTimeout: handlerTimeout, stopTimeout: stopTimeout, crashLimit: crashLimit, crashWindow: crashWindow,
            memoryLimit: 0, largestFrame: 0)
    }

    /// This binary's path.
    static let executable: String = {
        var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &path, path.count - 1)
        return count > 0 ? String(decoding: path[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "/proc/self/exe"
    }()
}
