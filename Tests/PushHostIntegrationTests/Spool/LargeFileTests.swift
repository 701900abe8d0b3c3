import Foundation
import Testing

/// A spool file is read record by record: however large it is, the host
/// holds little of it, rejects a line longer than --max-bytes, and goes on.
@Suite struct LargeFileTests {
    /// The host's peak resident memory, in KiB, from /proc.
    static func peakMemory(_ pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    /// 256 MiB on one line (a sparse file: it costs no disk), then a good record.
    @Test func hugeLineIsRejectedWithoutBeingHeldAndTheNextRecordGoesOn() throws {
        let scratch = try Scratch()
        let spool = scratch.spool
        let host = try scratch.startWatching(try scratch.probe("bg", [.background]))
        let temporary = spool.folder("tmp") + "/huge"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        try #require(fd >= 0)
        let tail = Array("\n{\"data\":{\"n\":\"after\"}}\n".utf8)
        let written = tail.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(256 << 20)) }
        close(fd)
        try #require(written == tail.count)
        #expect(rename(temporary, spool.folder("new") + "/huge") == 0)
        let done = eventually(timeout: .seconds(60)) { spool.failedFiles == ["huge"] }
        try #require(done, "new/ holds \(spool.names("new"))\n\(host.stderr)")
        let peak = try Self.peakMemory(host.pid)
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(peak < 100 * 1024, "the host held \(peak) KiB at its peak")
        #expect(scratch.probeCalls() == ["bg background huge#2"])
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["rejected", "delivered"])
        #expect(report.map(\.sourceLine) == [1, 2])
        #expect(report.first?["error"] as? String == "byte 65536: longer than --max-bytes 65536")
    }
}
