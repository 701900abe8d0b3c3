import ArgumentParser
import PushHostCore
import PushHostIntake
import PushHostPlugins

/// `pushhost send`: drop a payload into a spool directory, durably.
struct SendCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Write a payload into a spool directory: DIR/tmp, fsync, rename into DIR/new, fsync.",
        discussion: """
            The payload (one JSON object, or NDJSON) is checked first; a bad one is refused with \
            the reason and exit 1, and nothing is written. Once send exits 0 the payload survives \
            a power failure. Prints the path of the file in DIR/new.
            """
    )

    @Option(help: ArgumentHelp("The spool directory (created when missing).", valueName: "DIR"))
    var to: String

    @Argument(help: ArgumentHelp("The payload file; '-' or nothing for standard input.", valueName: "FILE"))
    var file: String = "-"

    @Option(help: ArgumentHelp("Refuse a record longer than this many bytes.", valueName: "BYTES"))
    var maxBytes = 65536

    @OptionGroup var log: LogOptions

    func run() throws {
        let spool = try Spool(directory: to)
        let path = try SpoolSender(spool: spool, maxBytes: maxBytes).send(contentsOf: file)
        print(path)
    }
}
