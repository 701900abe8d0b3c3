import ArgumentParser
import Logging
import PushHostCore
import PushHostSystem
import PushHostPlugins

/// `pushhost plugins`: what would load, and what would be refused and why;
/// with `--check`, a dry run that creates and destroys each plugin.
struct PluginsCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the plugins that would load: name, version, file, roles, targets, ABI, whether run isolates it; or the refusal. --check creates each.",
        discussion: """
            Reads each plugin's descriptor and settings file without creating it. With the isolation flags of run \
            (--isolate, --set NAME.isolate=true, or a settings file's "isolate": true), says which plugins run \
            would isolate, and reads their descriptors in short-lived workers, as run does: a plugin whose library \
            crashes, hangs or exits while it loads is listed as refused. Exits 1 when any plugin would be refused. \
            With --check, a dry run: each plugin is also created with its settings (its settings file, then \
            --set), in a worker behind the same walls when run would isolate it, then destroyed; a source is \
            never started, nothing is read and no report is written, and the plugins' state folders are in a \
            throwaway state directory, removed at the end. Each plugin's block ends with the lines it logged and \
            "check: created" or "check: refused: REASON", REASON as run logs it; a crash or a hang (over \
            --handler-timeout) in create in a worker refuses the plugin. Exits 1 when any plugin is refused.
            """
    )

    @OptionGroup var plugins: PluginOptions

    @Option(name: .customLong("set"), help: ArgumentHelp("A plugin setting, as run takes it (repeatable); without --check only isolate and the sandbox grants matter.", valueName: "NAME.KEY=VALUE"))
    var settings: [String] = []

    @Flag(help: "Create each plugin with its settings as run would (in a worker when run would isolate it) and destroy it; exit 1 naming each refused.")
    var check = false

    @Option(help: ArgumentHelp("Say which plugins run --isolate would run in a worker process, and read (with --check, create) those in one; 'all' for every plugin (repeatable).", valueName: "NAME|all"))
    var isolate: [String] = []

    @Option(help: ArgumentHelp("Scan (with --check, create) the plugins run would isolate behind the walls run --sandbox puts up.", valueName: "off|on|strict"))
    var sandbox: SandboxMode = .on

    @Option(help: ArgumentHelp("Refuse a plugin whose scan in a worker has not finished loading it, or (--check) whose create in a worker has not returned, after this many seconds (0: no limit).", valueName: "SECONDS"))
    var handlerTimeout = 30.0

    @Flag(help: "Print one JSON object per plugin file.")
    var json = false

    @OptionGroup var log: LogOptions

    func validate() throws {
        guard handlerTimeout >= 0, handlerTimeout.isFinite else { throw ValidationError("--handler-timeout must be 0 or more seconds") }
    }

    func run() throws {
        let logger = Logger(label: "pushhost")
        let overrides = try settings.map { text throws(UsageError) in try SettingOverride(parsing: text) }
        var isolation = IsolationOptions(isolating: isolate)
        isolation.handlerTimeout = handlerTimeout
        isolation.sandbox = sandbox
        isolation.logArguments = try log.workerArguments()
        let catalog = PluginCatalog.scanning(paths: try plugins.pluginFiles.paths(), isolation: isolation, overrides: overrides)
        if catalog.entries.isEmpty {
            let place = plugins.directories.isEmpty ? "to list" : "in " + plugins.directories.joined(separator: ", ")
            logger.warning("no plugin \(place) (give --plugins DIR, --plugin FILE or --ffi FILE)")
        }
        let dryRun = check ? try DryRun(catalog: catalog, logger: logger) : nil
        print(json ? catalog.jsonListing(check: dryRun) : catalog.textListing(check: dryRun), terminator: "")
        if let dryRun {
            if let summary = dryRun.summary { logger.error("\(summary)") }
            if !dryRun.passed { throw ExitCode(1) }
        }
        if !catalog.refused.isEmpty { throw ExitCode(1) }
    }
}
