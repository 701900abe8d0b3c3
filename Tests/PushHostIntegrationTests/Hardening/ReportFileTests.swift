import Foundation
import Testing

/// The report file keeps its history, keeps to itself, and never follows a
/// path somewhere else; a report that cannot be written is said loudly.
@Suite struct ReportFileTests {
    /// The permission bits of `path`, without following a symbolic link.
    static func mode(_ path: String) -> mode_t? {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    @Test func eachRunAppendsAndANewReportIsPrivate() throws {
        let scratch = try Scratch()
        let report = scratch.file("report.ndjson")
        for run in 1...2 {
            let result = try Command.pushhost(["run", "--report", report, "--state", scratch.file("state")], stdin: "{\"message_id\":\"run-\(run)\",\"data\":{}}\n")
            #expect(result.status == 0, "\(result.stderr)")
        }
        #expect(try scratch.reportLines().map { $0["id"] as? String } == ["run-1", "run-2"])
        #expect(Self.mode(report) == 0o600)
    }

    @Test func aSymbolicLinkIsRefusedAndItsTargetLeftAlone() throws {
        let scratch = try Scratch()
        let target = try scratch.write("precious.txt", "keep me\n")
        let report = scratch.file("report.ndjson")
        try FileManager.default.createSymbolicLink(atPath: report, withDestinationPath: target)
        let result = try Command.pushhost(["run", "--report", report, "--state", scratch.file("state")], stdin: "{\"data\":{}}\n")
        #expect(result.status == 1)
        #expect(result.stderr == "error pushhost: report \(report): a symbolic link, which pushhost does not follow\n")
        #expect(scratch.read("precious.txt") == "keep me\n")
        #expect(Self.mode(target) == 0o644)
    }

    @Test func aDanglingSymbolicLinkCreatesNothing() throws {
        let scratch = try Scratch()
        let report = scratch.file("report.ndjson")
        try FileManager.default.createSymbolicLink(atPath: report, withDestinationPath: scratch.file("planted.txt"))
        let result = try Command.pushhost(["run", "--report", report, "--state", scratch.file("state")], stdin: "{\"data\":{}}\n")
        #expect(result.status == 1)
        #expect(result.stderr.contains("report \(report): a symbolic link, which pushhost does not follow"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("planted.txt")))
    }

    @Test func aDirectoryIsRefused() throws {
        let scratch = try Scratch()
        let report = scratch.file("reports")
        try FileManager.default.createDirectory(atPath: report, withIntermediateDirectories: false)
        let result = try Command.pushhost(["run", "--report", report, "--state", scratch.file("state")], stdin: "{\"data\":{}}\n")
        #expect(result.status == 1)
        #expect(result.stderr == "error pushhost: report \(report): a directory\n")
    }

    /// A FIFO nobody reads would block a plain open forever: the host must
    /// refuse it at once instead.
    @Test func aFIFOIsRefusedWithoutHanging() throws {
        let scratch = try Scratch()
        let report = scratch.file("report.fifo")
        #expect(mkfifo(report, 0o600) == 0)
        let host = try HostProcess(["run", "--report", report, "--state", scratch.file("state")], errorPath: scratch.file("stderr.log"))
        let exit = host.waitForExit()
        #expect(exit == .status(1), "still running or ended otherwise:\n\(host.stderr)")
        #expect(host.stderr == "error pushhost: report \(report): a FIFO\n")
    }

    @Test func aCharacterDeviceIsAccepted() throws {
        let scratch = try Scratch()
        let result = try Command.pushhost(["run", "--report", "/dev/null", "--state", scratch.file("state")], stdin: "{\"data\":{}}\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.linesBesideNoPluginWarning == [])
    }

    /// A full disk: the failure is logged once, naming the report, and the
    /// run must not end as if every record was handled.
    @Test func aReportThatCannotBeWrittenIsAnErrorAndStopsTheRun() throws {
        let scratch = try Scratch()
        let input = (1...3).map { "{\"message_id\":\"m\($0)\",\"data\":{}}\n" }.joined()
        let result = try Command.pushhost(["run", "--report", "/dev/full", "--state", scratch.file("state")], stdin: input)
        // The failure itself is logged once; the stop and the exit then name it.
        let failures = result.stderr.split(separator: "\n").filter { $0.hasPrefix("error pushhost: report /dev/full: write failed: No space left on device") }
        #expect(failures.count == 1, "\(result.stderr)")
        #expect(result.stderr.contains("error pushhost: stopping: report /dev/full: write failed"), "\(result.stderr)")
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("error pushhost: the run stopped early: report /dev/full: write failed"), "\(result.stderr)")
    }

    /// With the spool, a file whose report line cannot be written never
    /// moves: it stays in new/, and the host stops with exit status 1.
    @Test func aSpoolFileStaysInNewWhenItsReportLineCannotBeWritten() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", "/dev/full", "--watch", spool.path],
            errorPath: scratch.file("stderr.log"))
        #expect(host.waitForStderr("watching"), "\(host.stderr)")
        try spool.drop("kept", #"{"data":{}}"#)
        #expect(host.waitForExit() == .status(1), "\(host.stderr)")
        #expect(spool.names("new") == ["kept"])
        #expect(spool.names("cur").isEmpty)
        #expect(host.stderr.contains("stopping: report /dev/full: write failed: No space left on device"), "\(host.stderr)")
    }
}
