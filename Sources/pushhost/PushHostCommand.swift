import ArgumentParser
import PushHostCore
import PushHostSystem
import PushHostPlugins

/// `pushhost`: the root command; `run` is the default.
struct PushHostCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pushhost",
        abstract: "A host for push-notification handler plugins.",
        discussion: """
            Loads plugins (shared libraries exporting ph_plugin_entry, see include/pushhost.h), \
            reads push messages as NDJSON from standard input, and dispatches each one: the data \
            stage first, then exactly one UI route (background, target, mismatch).
            """,
        version: PushHostVersion.current,
        subcommands: [RunCommand.self, PluginsCommand.self, CheckCommand.self, TokenCommand.self, SendCommand.self, NewCommand.self, WorkerCommand.self],
        defaultSubcommand: RunCommand.self
    )
}

/// The plugin flags that `run` and `plugins` share.
struct PluginOptions: ParsableArguments {
    @Option(name: .customLong("plugins"), help: ArgumentHelp("Load every *.so, *.ffi.json and *.process.json in DIR, in byte order of the names (repeatable).", valueName: "DIR"))
    var directories: [String] = []

    @Option(name: .customLong("plugin"), help: ArgumentHelp("Load one plugin file, after the directories (repeatable).", valueName: "FILE"))
    var files: [String] = []

    @Option(name: .customLong("ffi"), help: ArgumentHelp("Load one ffi manifest (NAME.ffi.json: plain C functions as handlers), after the plugin files (repeatable).", valueName: "FILE"))
    var manifests: [String] = []

    @Option(name: .customLong("process"), help: ArgumentHelp("Load one process manifest (NAME.process.json: a program in any language that answers calls as JSON lines), after the ffi manifests (repeatable).", valueName: "FILE"))
    var processes: [String] = []

    var pluginFiles: PluginFiles {
        PluginFiles(directories: directories, files: files, manifests: manifests, processes: processes)
    }
}
