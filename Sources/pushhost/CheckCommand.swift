import ArgumentParser
import PushHostCheck
import PushHostCore
import PushHostPlugins

/// `pushhost check`: a report against the lines expected of it.
struct CheckCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Compare a report with the lines expected of it; exit 5 when they differ.",
        discussion: """
            EXPECTED holds one JSON object per line (blank lines and lines starting with # are left out). \
            Each expected line takes one report line, in the order written: one with an "id" the next report \
            line with that id, one without the next report line not yet taken. Only the fields an expected \
            line names are compared, at any depth; arrays element by element. Every expected line must \
            match and every report line must be taken. Prints what differs, line by line; exits 0 when all \
            match, 5 when something differs, 1 when a file cannot be read or EXPECTED has a line that is no \
            JSON object. With --update, writes EXPECTED from REPORT instead, less what changes from run to \
            run (source, retained_at, and ids the host made up, such as stdin-7).
            """
    )

    /// The exit status of a report that differs from what was expected.
    static let differs: Int32 = 5

    @Argument(help: ArgumentHelp("The report (NDJSON, as run --report writes it); - for standard input.", valueName: "REPORT"))
    var report: String

    @Argument(help: ArgumentHelp("The expected lines (NDJSON).", valueName: "EXPECTED"))
    var expected: String

    @Option(help: ArgumentHelp("Also write the result as JUnit XML: one test case per expected line.", valueName: "FILE"))
    var junit: String?

    @Flag(help: "Write EXPECTED from REPORT (less source, retained_at and made-up ids) and exit 0.")
    var update = false

    @OptionGroup var log: LogOptions

    func validate() throws {
        if update && junit != nil { throw ValidationError("--update writes EXPECTED; --junit has nothing to say then") }
    }

    func run() throws {
        let lines = NumberedLine.lines(of: try CheckFiles.text(report), comments: false)
        if update {
            try CheckFiles.write(lines.map { $0.expectedLine + "\n" }.joined(), to: expected)
            print("check: wrote \(lines.count) expected line\(lines.count == 1 ? "" : "s") to \(expected)")
            return
        }
        let check = ReportCheck(expected: try CheckFiles.expected(expected), report: lines)
        if let junit { try CheckFiles.write(check.junit(suite: expected), to: junit) }
        print(check.text, terminator: "")
        if !check.passed { throw ExitCode(Self.differs) }
    }
}
