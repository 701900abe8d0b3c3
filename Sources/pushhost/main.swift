import ArgumentParser
import Logging
import PushHostCore

#if canImport(Glibc)
import Glibc
#endif

LoggingSystem.bootstrap { label in LineLogHandler(source: label) }
// A reader of the report that goes away makes writes fail with EPIPE, not kill the host.
signal(SIGPIPE, SIG_IGN)

/// Writes `text` and a newline to standard error.
func printError(_ text: String) {
    var line = Array((text + "\n").utf8)
    _ = line.withUnsafeMutableBytes { write(2, $0.baseAddress, $0.count) }
}

// Exit statuses: 0 done, 1 setup error, 2 usage error, 3 `--strict` with a
// rejected or failed record.
do {
    var command = try PushHostCommand.parseAsRoot()
    try command.run()
} catch let error as SetupError {
    Logger(label: "pushhost").error("\(error)")
    exit(1)
} catch let error as UsageError {
    printError("pushhost: \(error)")
    exit(2)
} catch {
    let code = PushHostCommand.exitCode(for: error)
    let message = PushHostCommand.fullMessage(for: error)
    if code == .success {
        print(message)
        exit(0)
    }
    if !message.isEmpty { printError(message) }
    exit(code == .validationFailure ? 2 : code.rawValue)
}
