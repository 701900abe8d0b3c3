import ArgumentParser
import Logging
import PushHostCore
import PushHostMessage
import PushHostSystem

#if canImport(Glibc)
import Glibc
import PushHostIsolation
import PushHostPlugins
#endif

/// `pushhost worker`: the inside of a worker process, which `run --isolate`
/// starts with its socket as fd 3; with `--scan`, the inside of a scan,
/// which reads one plugin's descriptor for the host and answers on fd 3;
/// with `--program`, the start of a process plugin's program. Not for
/// people to run.
struct WorkerCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "worker",
        abstract: "Serve one plugin's handlers for pushhost run --isolate (started by the host).",
        shouldDisplay: false
    )

    @Option(help: "The plugin file.")
    var plugin: String

    @Flag(help: "Read the plugin's descriptor, answer it on fd 3 and exit, creating nothing.")
    var scan = false

    @Option(help: "The host's state directory (the current token); not for --scan.")
    var state: String?

    @Option(help: "The host's process id; the worker ends when it is not its parent.")
    var host: Int32

    @Option(help: "End after a call that takes the worker over this many MiB of resident memory (0: no limit).")
    var memoryLimit = 0

    @Option(help: "The walls to put up before the plugin is opened.")
    var sandbox: SandboxMode = .off

    @Option(help: "Why the host could not start the worker in namespaces of its own (a wall that did not stand).")
    var namespaceFailure: String?

    @Option(help: "The plugin's name, as the host's scan read it (its state folder is granted by it).")
    var name: String?

    @Flag(help: "Start a process plugin's program (--plugin: its manifest) behind the walls, with the command after --.")
    var program = false

    @Argument(parsing: .postTerminator, help: "The program and its arguments, with --program.")
    var command: [String] = []

    @OptionGroup var log: LogOptions

    func run() throws {
        if program {
            guard let state, let name, !command.isEmpty else { throw UsageError("--program needs --state, --name and a command after --") }
            ProgramStart.exec(
                command: command, manifest: plugin, name: name, stateDirectory: state, host: host, sandbox: sandbox, namespaceFailure: namespaceFailure,
                logger: Logger(label: "pushhost"))
        }
        if scan { PluginScan.serve(file: plugin, host: host, sandbox: sandbox, namespaceFailure: namespaceFailure, logger: Logger(label: "pushhost")) }
        guard let state else { throw UsageError("--state is needed, except with --scan") }
        // Its state folder, the one folder it may write, is granted by name.
        if sandbox != .off && name == nil { throw UsageError("--sandbox \(sandbox.rawValue) needs --name") }
        WorkerLoop(
            file: plugin, stateDirectory: state, memoryLimit: memoryLimit, host: host,
            sandbox: sandbox, namespaceFailure: namespaceFailure, name: name, logger: Logger(label: "pushhost")
        ).run()
    }
}
