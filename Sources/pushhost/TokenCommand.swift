import ArgumentParser
import PushHostCore
import PushHostJSON
import PushHostRecords
import PushHostSystem

/// `pushhost token`: the stored registration token, or with
/// `--subscription` the Web Push subscription a server needs.
struct TokenCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print the stored registration token; exit 1 when there is none yet.",
        discussion: """
            With --subscription, print the Web Push subscription a server encrypts to, as one JSON \
            object: {"endpoint":TOKEN,"keys":{"p256dh":...,"auth":...}} (the keys come with the token \
            event, as the unifiedpush plugin sends them); exit 1 when the token has no keys.
            """
    )

    @Option(help: ArgumentHelp("Where the token is kept (default: $XDG_STATE_HOME/pushhost, else ~/.local/state/pushhost).", valueName: "DIR"))
    var state: String?

    @Flag(help: "Print the Web Push subscription (endpoint and keys) as JSON.")
    var subscription = false

    @OptionGroup var log: LogOptions

    func run() throws {
        let directory = try StateDirectory.resolve(state)
        guard let token = try TokenStore.read(directory + "/token") else {
            throw SetupError("no token stored in \(directory) yet")
        }
        guard subscription else {
            print(token)
            return
        }
        guard let keys = try TokenStore.keys(directory + "/token.keys") else {
            throw SetupError("the token stored in \(directory) has no Web Push keys (a token event gives them in \"keys\")")
        }
        print(#"{"endpoint":\#(JSONWriter.quoted(token)),"keys":\#(keys.json)}"#)
    }
}
