import ArgumentParser
import Logging
import PushHostCore
import PushHostIntake
import PushHostMessage
import PushHostRecords
import PushHostSystem

#if canImport(Glibc)
import Glibc
import PushHostPipeline
import PushHostPlugins
#endif

/// `pushhost run`: load the plugins, then dispatch every record of standard input.
struct RunCommand: ParsableCommand, LoggingCommand {
    /// `_superCommandName` matters only when `run` is parsed alone
    /// (`PushHostCommand.command(from:)`): it spares that parse the check
    /// for `--generate-completion-script`, which the root answers.
    static let configuration = CommandConfiguration(
        commandName: "run",
        _superCommandName: "pushhost",
        abstract: "Load the plugins and dispatch the messages read from standard input and the spool (the default command).",
        discussion: """
            Standard input holds one JSON object per line: a push message (GCM/FCM legacy, FCM HTTP v1, \
            APNs, or bare data) or a host event ({"pushhost":"token"|"foreground"|"background"|"action",...}). \
            An action (a tap, a button, a reply) goes to the visible screen of its message's target, else \
            to the other plugins with on_action, and waits for that screen (--retain-for), across restarts. \
            With --watch DIR, files renamed into DIR/new are dispatched too (one JSON object or NDJSON \
            each), then moved to DIR/cur, or to DIR/failed with NAME.error.json; the host then runs \
            until SIGINT or SIGTERM, gives what is under way --stop-timeout, and exits 0. \
            SIGHUP reads the plugins and their settings files again and loads what changed, without \
            a restart: records under way finish with the plugins they began with, the next ones meet \
            the new set; a set that cannot be loaded changes nothing. \
            Exit status: 0 when the input ended and every record was handled, 1 for a setup error, \
            2 for a usage error, 3 under --strict when a record was rejected or failed, 4 when a \
            plugin handler did not return within --handler-timeout.
            """
    )

    @OptionGroup var plugins: PluginOptions

    @Option(name: .customLong("set"), help: ArgumentHelp("A plugin setting; wins over the plugin's .json file (repeatable).", valueName: "NAME.KEY=VALUE"))
    var settings: [String] = []

    @Flag(help: "Log a refused plugin and go on without it, instead of exiting 1.")
    var skipBadPlugins = false

    @Option(help: ArgumentHelp("Also take payload files from this spool directory (tmp/, new/, cur/, failed/).", valueName: "DIR"))
    var watch: String?

    @Option(help: ArgumentHelp("Whether a spool file may hold host events (token, foreground, background, action); even when on, only a file of the host's own user (or root) may.", valueName: "on|off"))
    var spoolEvents: Toggle = .on

    @Option(help: ArgumentHelp("Append one JSON line per input record to FILE (created with mode 0600; '-' for standard output; a symbolic link is refused).", valueName: "FILE"))
    var report: String?

    @Option(help: ArgumentHelp("Start in the foreground with these screens visible, top first.", valueName: "SCREEN[,SCREEN]"))
    var foreground: String?

    @Option(help: ArgumentHelp("The data key that holds a message's target.", valueName: "KEY"))
    var targetKey = "rx_gcm_key_target"

    @Option(help: ArgumentHelp("Merge this platform's FCM v1 block over the common fields.", valueName: "android|apns|webpush"))
    var platform: Platform?

    @Option(help: ArgumentHelp("Reject a record longer than this many bytes.", valueName: "BYTES"))
    var maxBytes = 65536

    @Option(help: ArgumentHelp("Count a pending data verdict as failed after this many seconds (fractions allowed).", valueName: "SECONDS"))
    var dataTimeout = 30.0

    @Option(help: ArgumentHelp("Pause reading while this many messages wait for complete.", valueName: "COUNT"))
    var maxPending = 1024

    @Option(help: ArgumentHelp("Give up on a plugin handler that has not returned after this many seconds: the host exits with status 4, and a spool file it was on counts a crash (0: no limit).", valueName: "SECONDS"))
    var handlerTimeout = 30.0

    @Option(help: ArgumentHelp("On SIGINT or SIGTERM, wait this many seconds for records under way; the rest stay for the next start.", valueName: "SECONDS"))
    var stopTimeout = 5.0

    @Option(help: ArgumentHelp("Move a spool file to failed/ once the host crashed this many times on it.", valueName: "COUNT"))
    var crashLimit = 3

    @Option(help: ArgumentHelp("Keep an action whose screen is not visible this long, waiting for it (s, m, h or d; plain seconds too).", valueName: "DURATION"))
    var retainFor = Duration(seconds: 24 * 3600)

    @Option(help: ArgumentHelp("Keep at least this many delivered messages (up to twice as many) in the state directory for actions.", valueName: "COUNT"))
    var storeLimit = 10_000

    @Option(help: ArgumentHelp("Whether a message already past its time to live when it arrives meets the data stage; it reaches no UI handler either way (status expired).", valueName: "on|off"))
    var expiredData: Toggle = .on

    @Option(help: ArgumentHelp("Keep the delivered messages in at most this many MiB of the state directory, the oldest dropped first.", valueName: "MIB"))
    var storeMib = DeliveredStore.defaultByteLimit >> 20

    @Option(help: ArgumentHelp("Where the token, the delivered messages and the retained actions are kept (default: $XDG_STATE_HOME/pushhost, else ~/.local/state/pushhost).", valueName: "DIR"))
    var state: String?

    @Flag(help: "Keep this run's state (the token, the delivered messages, the retained actions, the plugins' folders) in a new folder under $TMPDIR (else /tmp), removed when the run ends; the default state folder is left alone. Not with --state.")
    var ephemeral = false

    @Option(help: ArgumentHelp("Run plugin NAME in a worker process, so that a crash or a hang in it fails only the call under way; 'all' for every plugin (repeatable; a plugin's settings file can say \"isolate\": true).", valueName: "NAME|all"))
    var isolate: [String] = []

    @Option(help: ArgumentHelp("Disable an isolated plugin whose worker crashed more than this many times within --worker-crash-window.", valueName: "COUNT"))
    var workerCrashLimit = 5

    @Option(help: ArgumentHelp("The window of --worker-crash-limit.", valueName: "SECONDS"))
    var workerCrashWindow = 60.0

    @Option(help: ArgumentHelp("Restart a worker, between calls, once its resident memory goes over this many MiB (0: no limit).", valueName: "MIB"))
    var workerMemory = 0

    @Option(help: ArgumentHelp("Walls around each isolated plugin's worker: off; on (the walls the kernel allows, naming any that cannot stand); strict (a plugin whose walls cannot all stand is refused). A plugin's settings grant more under \"sandbox\".", valueName: "off|on|strict"))
    var sandbox: SandboxMode = .on

    @Flag(help: "Exit 3 when any record was rejected or failed.")
    var strict = false

    @OptionGroup var metrics: MetricsOptions

    @OptionGroup var log: LogOptions

    func validate() throws {
        guard maxBytes > 0 else { throw ValidationError("--max-bytes must be above 0") }
        guard dataTimeout >= 0, dataTimeout.isFinite else { throw ValidationError("--data-timeout must be 0 or more seconds") }
        guard maxPending > 0 else { throw ValidationError("--max-pending must be above 0") }
        guard handlerTimeout >= 0, handlerTimeout.isFinite else { throw ValidationError("--handler-timeout must be 0 or more seconds") }
        guard stopTimeout >= 0, stopTimeout.isFinite else { throw ValidationError("--stop-timeout must be 0 or more seconds") }
        guard crashLimit > 0 else { throw ValidationError("--crash-limit must be above 0") }
        guard storeLimit > 0 else { throw ValidationError("--store-limit must be above 0") }
        guard storeMib > 0 && storeMib <= 1 << 20 else { throw ValidationError("--store-mib must be from 1 to 1048576") }
        guard workerCrashLimit >= 0 else { throw ValidationError("--worker-crash-limit must be 0 or more") }
        guard workerCrashWindow > 0, workerCrashWindow.isFinite else { throw ValidationError("--worker-crash-window must be above 0 seconds") }
        guard workerMemory >= 0 else { throw ValidationError("--worker-memory must be 0 or more MiB") }
        guard !ephemeral || state == nil else {
            throw ValidationError("--ephemeral and --state cannot be used together: --ephemeral gives the run a state folder of its own")
        }
    }

    func run() throws {
        let logger = Logger(label: "pushhost")
        let overrides = try settings.map { text throws(UsageError) in try SettingOverride(parsing: text) }
        var options = RunOptions()
        options.targetKey = targetKey
        options.platform = platform
        options.maxBytes = maxBytes
        options.dataTimeout = dataTimeout
        options.maxPending = maxPending
        options.foreground = foreground.map { $0.split(separator: ",").map(String.init) }
        options.report = report
        options.spoolEvents = spoolEvents == .on
        options.expiredData = expiredData == .on
        options.handlerTimeout = handlerTimeout
        options.stopTimeout = stopTimeout
        options.crashLimit = crashLimit
        options.retainFor = retainFor.seconds
        options.storeLimit = storeLimit
        options.storeBytes = storeMib << 20
        options.isolation = try isolation()
        Host.takeServiceEnvironment(logger: logger)
        let served = try metrics.start(logger: logger)
        defer { served?.1.close() }
        options.metrics = served?.0
        let ephemeralState = try ephemeral ? EphemeralState(logger: logger) : nil
        // Declared before the host: runs after its shutdown, once its workers are gone.
        defer { ephemeralState?.remove() }
        // A signal while the plugins are created ends the process: without the folder.
        let setupSignals = ephemeralState.map { state in SetupSignals { state.remove() } }
        options.ephemeral = ephemeralState
        let tokens = try TokenStore(directory: ephemeralState?.path ?? StateDirectory.resolve(state), logger: logger)
        let spool = try watch.map { directory throws(SetupError) in try Spool(directory: directory) }
        let isolation = options.isolation
        let files = plugins.pluginFiles
        let host = try Host(
            catalog: PluginCatalog.scanning(paths: files.paths(), isolation: isolation, overrides: overrides),
            rescan: { () throws(SetupError) in PluginCatalog.scanning(paths: try files.paths(), isolation: isolation, overrides: overrides) },
            spool: spool,
            overrides: overrides,
            skipBadPlugins: skipBadPlugins,
            tokens: tokens,
            options: options,
            logger: logger
        )
        do {
            defer { host.shutdown() }
            setupSignals?.handOver()
            if isatty(0) == 1 {
                logger.notice("reading messages from standard input, which is a terminal: one JSON object per line, Ctrl-D to end (or pipe a file in: pushhost run ... < messages.ndjson)")
            }
            try host.run()
        }
        if host.gaveUpAtStop {
            throw ExitCode(Host.gaveUpStatus)
        }
        if strict && (host.rejectedCount > 0 || host.failedCount > 0) {
            throw ExitCode(3)
        }
    }
}

extension RunCommand {
    /// `--isolate` and the `--worker-*` flags; a worker, and a scan, logs as
    /// this run does, and a scan has `--handler-timeout`.
    private func isolation() throws(UsageError) -> IsolationOptions {
        var isolation = IsolationOptions(isolating: isolate)
        isolation.crashLimit = workerCrashLimit
        isolation.crashWindow = workerCrashWindow
        isolation.memoryLimit = workerMemory
        isolation.sandbox = sandbox
        isolation.handlerTimeout = handlerTimeout
        isolation.logArguments = try log.workerArguments()
        return isolation
    }
}

extension Platform: ExpressibleByArgument {}

/// A setting that is `on` or `off`.
enum Toggle: String, ExpressibleByArgument, CaseIterable {
    case on
    case off
}
