import ArgumentParser
import Logging
import PushHostCore

/// `pushhost run`: load the plugins, then dispatch every record of the input.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Load the plugins and dispatch the messages read from standard input (the default command)."
    )

    @OptionGroup var plugins: PluginOptions

    @Option(name: .customLong("set"), help: ArgumentHelp("A plugin setting; wins over the plugin's .json file (repeatable).", valueName: "NAME.KEY=VALUE"))
    var settings: [String] = []

    @Flag(help: "Log a refused plugin and go on without it, instead of exiting 1.")
    var skipBadPlugins = false

    @Option(help: ArgumentHelp("Where the token is kept (default: $XDG_STATE_HOME/pushhost, else ~/.local/state/pushhost).", valueName: "DIR"))
    var state: String?

    func run() throws {
        let logger = Logger(label: "pushhost")
        let overrides = try settings.map { text throws(UsageError) in try SettingOverride(parsing: text) }
        let tokens = try TokenStore(directory: StateDirectory.resolve(state))
        let host = try PluginHost(
            catalog: PluginCatalog(paths: plugins.pluginFiles.paths()),
            overrides: overrides,
            skipBadPlugins: skipBadPlugins,
            tokens: tokens,
            logger: logger
        )
        host.shutdown()
    }
}
