#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostJSON
import PushHostPlugins

/// [in the started process] How a process plugin's program begins: the
/// host starts `pushhost worker --program` from its own binary, as it
/// starts a worker (in namespaces of its own when walled), and this ties
/// its life to the host's, puts up the walls with the grants of the
/// manifest (and `exec`, to start the program, and a read of what its
/// command names in the manifest's folder: ``reads(_:in:)``), and then
/// becomes the program (`execvp`), which keeps them.
///
/// The program gets its calls on its standard input (the host's pipe, fd
/// 3 until then), answers on its standard output, and its standard error
/// is logged; it runs in its manifest's folder, with its name, its state
/// folder, its settings and the protocol's version in its environment
/// (docs/process-plugins.md).
package enum ProgramStart {
    /// Where the host hands it the pipe of its calls, which becomes its standard input.
    static let callsFD: Int32 = 3
    /// The protocol version the host speaks, which the program's first line names.
    package static let protocolVersion = 1

    /// Never returns: the program runs, or the process exits 127 (it
    /// cannot start: why, on standard error), or ``WorkerLaunch/wallsFailed``.
    package static func exec(
        command: [String], manifest: String, name: String, stateDirectory: String, host: pid_t, sandbox: SandboxMode, namespaceFailure: String?,
        logger: Logger
    ) -> Never {
        WorkerSpawn.standInIfFirst()
        var settings = WorkerSettings.read()
        guard dup2(callsFD, 0) == 0 else { exit(127) }
        WorkerSpawn.closeInherited(from: callsFD)
        // Ignored as the worker's are (a stop is the host's to make); the rest as a program expects them.
        signal(SIGINT, SIG_IGN)
        signal(SIGTERM, SIG_IGN)
        signal(SIGPIPE, SIG_DFL)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        pthread_sigmask(SIG_SETMASK, &unblocked, nil)
        WorkerSpawn.dieWithParent()
        if WorkerSpawn.hostGone(host) { exit(1) }
        let folder = PluginCatalog.realPath(PluginCatalog.directory(of: manifest)) ?? PluginCatalog.directory(of: manifest)
        let state = stateDirectory + "/plugins/" + name
        let environment = [
            ("PUSHHOST_PROTOCOL", "\(protocolVersion)"), ("PUSHHOST_PLUGIN", name), ("PUSHHOST_STATE", state),
            // The grants are the host's, not the program's to read.
            ("PUSHHOST_SETTINGS", settingsJSON(settings.filter { !$0.key.hasPrefix(SandboxGrants.prefix) })),
        ]
        if sandbox != .off {
            settings[SandboxGrants.prefix + "exec"] = "true"
            for path in reads(command, in: folder) { settings[SandboxGrants.prefix + "read", default: ""] += "\n" + path }
            _ = WorkerLoop.raiseWalls(
                sandbox, file: manifest, name: name, settings: settings, stateDirectory: stateDirectory, namespaceFailure: namespaceFailure,
                logger: logger)
        } else if let problem = PluginStateFolder.make(stateDirectory + "/plugins") ?? PluginStateFolder.make(state) {
            logger.error("plugin \(name): no state folder: \(problem)")
        }
        for (key, value) in environment { setenv(key, value, 1) }
        guard chdir(folder) == 0 else { fail("cannot enter \(folder)", logger) }
        let argv = command.map { strdup($0) } + [nil]
        execvp(command[0], argv)
        fail("cannot start \(command[0])", logger)
    }

    /// What of its manifest's `folder` a program reads: each file its
    /// command names there (`handler.py`), and the subfolder a file it names
    /// is in (`inbox/main.py`: all of `inbox`, its modules beside it); not
    /// the folder itself, where other plugins and their settings are.
    static func reads(_ command: [String], in folder: String) -> [String] {
        var paths: [String] = []
        for item in command where !item.hasPrefix("/") {
            let parts = item.split(separator: "/").drop { $0 == "." }
            guard let first = parts.first, first != "..", let real = PluginCatalog.realPath(folder + "/" + parts.joined(separator: "/")),
                  real.hasPrefix(folder + "/")
            else { continue }
            guard parts.count > 1 else {
                paths.append(real)
                continue
            }
            // The subfolder as it is, not a link out of the folder.
            if let subfolder = PluginCatalog.realPath(folder + "/" + first), subfolder.hasPrefix(folder + "/") { paths.append(subfolder) }
        }
        return paths
    }

    private static func fail(_ what: String, _ logger: Logger) -> Never {
        logger.error("\(what): \(String(cString: strerror(errno)))")
        exit(127)
    }

    /// The settings as one JSON object of strings.
    private static func settingsJSON(_ settings: [String: String]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "{")]
        for (key, value) in settings.sorted(by: { $0.key < $1.key }) {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSONWriter.appendString(value, to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
