import Foundation
import Testing

/// The log's level and look: `--log-level` and `PUSHHOST_LOG_LEVEL`,
/// `--log-format text|json`, timestamps, and `<N>` priorities when standard
/// error is the journal.
@Suite struct LogFormatTests {
    /// A plugin that says one line at each level when it is created.
    static let talker = PluginSource.descriptor(
        #".name = "talker", .create = create"#,
        prelude: """
            static void *create(const ph_host *h, const ph_config *c) {
                (void)c;
                h->log(h, PH_LOG_DEBUG, "said at debug");
                h->log(h, PH_LOG_INFO, "said at info");
                h->log(h, PH_LOG_WARNING, "said at warning");
                h->log(h, PH_LOG_ERROR, "said at error\\nwith a second line");
                return (void *)h;
            }
            """)

    /// Runs the host with the talker, no input, and returns standard error as written.
    static func talk(_ scratch: Scratch, _ flags: [String] = [], environment: [String: String] = [:]) throws -> Command {
        let plugin = try scratch.plugin("libtalker.so", talker)
        var cleared = ["PUSHHOST_LOG_LEVEL": "", "PUSHHOST_LOG_FORMAT": "", "JOURNAL_STREAM": ""]
        cleared.merge(environment) { $1 }
        return try Command.pushhost(["run", "--plugin", plugin, "--state", scratch.file("state")] + flags, environment: cleared)
    }

    static func said(_ result: Command) -> [String] {
        result.stderr.split(separator: "\n").compactMap { line in
            line.range(of: "said at ").map { String(line[$0.upperBound...].prefix { $0 != "\\" }) }
        }
    }

    @Test(arguments: [
        ([String](), [String: String](), ["info", "warning", "error"]),
        (["--log-level", "debug"], [:], ["debug", "info", "warning", "error"]),
        (["--log-level", "error"], [:], ["error"]),
        ([], ["PUSHHOST_LOG_LEVEL": "warning"], ["warning", "error"]),
        ([], ["PUSHHOST_LOG_LEVEL": "DEBUG"], ["debug", "info", "warning", "error"]),
        (["--log-level", "info"], ["PUSHHOST_LOG_LEVEL": "error"], ["info", "warning", "error"]),
    ])
    func theLevelKeepsWhatIsAtOrAboveIt(flags: [String], environment: [String: String], kept: [String]) throws {
        let result = try Self.talk(Scratch(), flags, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Self.said(result) == kept, "\(result.stderr)")
    }

    @Test(arguments: [("PUSHHOST_LOG_LEVEL", "loud", "not a level (trace, debug, info, notice, warning, error, critical)"),
                      ("PUSHHOST_LOG_FORMAT", "xml", "not a format (text, json)")])
    func aBadEnvironmentValueIsAUsageError(variable: String, value: String, reason: String) throws {
        let result = try Self.talk(Scratch(), environment: [variable: value])
        #expect(result.status == 2)
        #expect(result.stderr == "error pushhost: \(variable)=\(value): \(reason)\n")
    }

    /// A text line starts with the time in UTC, to the millisecond.
    @Test func textLinesStartWithTheTime() throws {
        let before = Date()
        let result = try Self.talk(Scratch())
        let lines = result.rawStderr.split(separator: "\n")
        #expect(lines.count == 3, "\(result.rawStderr)")
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for line in lines {
            #expect(LogText.isTimestamped(line), "\(line)")
            let stamp = try #require(parser.date(from: String(line.prefix(LogText.stampLength))), "\(line)")
            #expect(abs(stamp.timeIntervalSince(before)) < 60, "\(line)")
        }
        #expect(lines.last?.hasSuffix(#"error talker: said at error\nwith a second line"#) == true, "\(result.rawStderr)")
    }

    @Test(arguments: [["--log-format", "json"], []])
    func jsonLinesAreOneObjectEach(flags: [String]) throws {
        let result = try Self.talk(Scratch(), flags + ["--log-level", "debug"], environment: flags.isEmpty ? ["PUSHHOST_LOG_FORMAT": "json"] : [:])
        #expect(result.status == 0)
        let lines = result.rawStderr.split(separator: "\n")
        #expect(lines.count == 4, "\(result.rawStderr)")
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String], "\($0)") }
        #expect(objects.map { $0["level"] } == ["debug", "info", "warning", "error"])
        #expect(objects.allSatisfy { $0["source"] == "talker" })
        #expect(objects.last?["message"] == "said at error\nwith a second line")
        #expect(objects.allSatisfy { LogText.isTimestamped(Substring(($0["time"] ?? "") + " ")) }, "\(objects)")
    }

    /// Under systemd, with standard error on the journal, a line carries its
    /// syslog priority and no time: the journal keeps the time itself.
    @Test func theJournalGetsPrioritiesInsteadOfTimes() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("libtalker.so", Self.talker)
        let errors = scratch.file("stderr.log")
        let fd = open(errors, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        var info = stat()
        #expect(fstat(fd, &info) == 0)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Paths.pushhost)
        process.arguments = ["run", "--plugin", plugin, "--state", scratch.file("state"), "--log-level", "debug"]
        process.environment = ProcessInfo.processInfo.environment.merging(["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"]) { $1 }
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let lines = scratch.read("stderr.log").split(separator: "\n")
        #expect(lines == [
            "<7>debug talker: said at debug", "<6>info talker: said at info", "<4>warning talker: said at warning",
            #"<3>error talker: said at error\nwith a second line"#,
        ])
    }

    /// A JOURNAL_STREAM inherited from a service by a program whose standard
    /// error went elsewhere names another file: text lines keep their time.
    @Test func aJournalStreamNamingAnotherFileIsIgnored() throws {
        let scratch = try Scratch()
        var info = stat()
        #expect(stat(scratch.path, &info) == 0)
        let result = try Self.talk(scratch, environment: ["JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"])
        #expect(result.rawStderr.split(separator: "\n").allSatisfy { LogText.isTimestamped($0) }, "\(result.rawStderr)")
    }
}
