import ArgumentParser
import Logging
import PushHostCore

/// `pushhost plugins`: what would load, and what would be refused and why.
struct PluginsCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugins",
        abstract: "List the plugins that would load: name, version, file, roles, targets, ABI; or the refusal.",
        discussion: "Reads each plugin's descriptor and settings file without creating it. Exits 1 when any plugin would be refused."
    )

    @OptionGroup var plugins: PluginOptions

    @Flag(help: "Print one JSON object per plugin file.")
    var json = false

    @OptionGroup var log: LogOptions

    func run() throws {
        let catalog = PluginCatalog(paths: try plugins.pluginFiles.paths())
        if catalog.entries.isEmpty {
            let place = plugins.directories.isEmpty ? "to list" : "in " + plugins.directories.joined(separator: ", ")
            Logger(label: "pushhost").warning("no plugin \(place) (give --plugins DIR, --plugin FILE or --ffi FILE)")
        }
        print(json ? catalog.jsonListing() : catalog.textListing(), terminator: "")
        if !catalog.refused.isEmpty { throw ExitCode(1) }
    }
}
