import ArgumentParser
import Logging
import PushHostCore

/// `pushhost plugins`: what would load, and what would be refused and why.
struct PluginsCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the plugins that would load: name, version, file, roles, targets, ABI, whether run isolates it; or the refusal.",
        discussion: """
            Reads each plugin's descriptor and settings file without creating it. With the isolation flags of run \
            (--isolate, --set NAME.isolate=true, or a settings file's "isolate": true), says which plugins run \
            would isolate, and reads their descriptors in short-lived workers, as run does: a plugin whose library \
            crashes, hangs or exits while it loads is listed as refused. Exits 1 when any plugin would be refused.
            """
    )

    @OptionGroup var plugins: PluginOptions

    @Option(name: .customLong("set"), help: ArgumentHelp("A plugin setting, as run takes it; only isolate matters here (repeatable).", valueName: "NAME.KEY=VALUE"))
    var settings: [String] = []

    @Option(help: ArgumentHelp("Say which plugins run --isolate would run in a worker process, and read those in one; 'all' for every plugin (repeatable).", valueName: "NAME|all"))
    var isolate: [String] = []

    @Option(help: ArgumentHelp("Scan the plugins run would isolate behind the walls run --sandbox puts up.", valueName: "off|on|strict"))
    var sandbox: SandboxMode = .on

    @Option(help: ArgumentHelp("Refuse a plugin whose scan in a worker has not finished loading it after this many seconds (0: no limit).", valueName: "SECONDS"))
    var handlerTimeout = 30.0

    @Flag(help: "Print one JSON object per plugin file.")
    var json = false

    @OptionGroup var log: LogOptions

    func validate() throws {
        guard handlerTimeout >= 0, handlerTimeout.isFinite else { throw ValidationError("--handler-timeout must be 0 or more seconds") }
    }

    func run() throws {
        let overrides = try settings.map { text throws(UsageError) in try SettingOverride(parsing: text) }
        var isolation = IsolationOptions(isolating: isolate)
        isolation.handlerTimeout = handlerTimeout
        isolation.sandbox = sandbox
        isolation.logArguments = try log.workerArguments()
        let catalog = PluginCatalog(paths: try plugins.pluginFiles.paths(), isolation: isolation, overrides: overrides)
        if catalog.entries.isEmpty {
            let place = plugins.directories.isEmpty ? "to list" : "in " + plugins.directories.joined(separator: ", ")
            Logger(label: "pushhost").warning("no plugin \(place) (give --plugins DIR, --plugin FILE or --ffi FILE)")
        }
        print(json ? catalog.jsonListing() : catalog.textListing(), terminator: "")
        if !catalog.refused.isEmpty { throw ExitCode(1) }
    }
}
