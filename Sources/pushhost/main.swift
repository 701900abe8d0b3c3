import ArgumentParser
import Logging
import PushHostCore
import PushHostSystem

#if canImport(Glibc)
import Glibc
#endif

// A reader of the report that goes away makes writes fail with EPIPE, not kill the host.
signal(SIGPIPE, SIG_IGN)

let arguments = Array(CommandLine.arguments.dropFirst())
var logSettings = LogSettings()
var loggingReady = false

/// Sends log lines where `logSettings` says, from now on (once).
@MainActor func startLogging() {
    guard !loggingReady else { return }
    loggingReady = true
    let settings = logSettings
    LoggingSystem.bootstrap { label in LineLogHandler(source: label, settings: settings) }
}

// Exit statuses: 0 done, 1 setup error, 2 usage error, 3 `--strict` with a
// rejected or failed record, 4 a handler that never returned (RunCommand), 5 a
// report that differs from what was expected (CheckCommand).
// Every error is one `error pushhost:` log line.
do {
    try LogSettings.fromEnvironment(fallback: &logSettings)
    try PushHostCommand.checkCommandName(arguments)
    var command = try PushHostCommand.command(from: arguments)
    if let logging = command as? LoggingCommand { logSettings = logging.log.applied(to: logSettings) }
    startLogging()
    try command.run()
} catch let error as SetupError {
    startLogging()
    Logger(label: "pushhost").error("\(error)")
    exit(1)
} catch let error as UsageError {
    startLogging()
    Logger(label: "pushhost").error("\(error)")
    exit(2)
} catch {
    let code = PushHostCommand.exitCode(for: error)
    if code == .success {
        print(PushHostCommand.fullMessage(for: error))
        exit(0)
    }
    startLogging()
    if let problem = PushHostCommand.problem(in: error) { Logger(label: "pushhost").error("\(problem)") }
    exit(code == .validationFailure ? 2 : code.rawValue)
}
