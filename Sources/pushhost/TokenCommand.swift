import ArgumentParser
import PushHostCore

/// `pushhost token`: the stored registration token.
struct TokenCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print the stored registration token; exit 1 when there is none yet."
    )

    @Option(help: ArgumentHelp("Where the token is kept (default: $XDG_STATE_HOME/pushhost, else ~/.local/state/pushhost).", valueName: "DIR"))
    var state: String?

    @OptionGroup var log: LogOptions

    func run() throws {
        let directory = try StateDirectory.resolve(state)
        guard let token = try TokenStore.read(directory + "/token") else {
            throw SetupError("no token stored in \(directory) yet")
        }
        print(token)
    }
}
