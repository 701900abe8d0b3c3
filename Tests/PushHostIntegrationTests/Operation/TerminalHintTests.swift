import Foundation
import Testing

/// `pushhost run` on a terminal waits on standard input: it says so, and
/// how to end it. From a pipe or a file it says nothing of the kind.
@Suite struct TerminalHintTests {
    static let hint = "notice pushhost: reading messages from standard input, which is a terminal"

    @Test func aTerminalGetsAHintAndCtrlDEndsTheRun() throws {
        let scratch = try Scratch()
        let terminal = try PseudoTerminal()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")],
            errorPath: scratch.file("stderr.log"), input: terminal.follower)
        #expect(host.waitForStderr(Self.hint), "\(host.stderr)")
        try terminal.type(#"{"message_id":"typed","data":{}}"# + "\n")
        #expect(eventually(timeout: .seconds(20)) { scratch.read("report.ndjson").contains(#""id":"typed""#) })
        try terminal.type("\u{04}")  // Ctrl-D at the start of a line: the end of input.
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
    }

    @Test func aPipeGetsNoHint() throws {
        let scratch = try Scratch()
        let result = try scratch.run([], stdin: "")
        #expect(!result.stderr.contains("terminal"), "\(result.stderr)")
    }
}

/// A pseudo-terminal: the test types on the leader; the host reads the
/// follower as its standard input, as it would a terminal.
final class PseudoTerminal {
    private let leader: Int32
    let follower: FileHandle

    init() throws {
        // posix_openpt, unlockpt and ptsname, as the kernel offers them.
        leader = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        // <asm-generic/ioctls.h>: _IOW('T', 0x31, int) and _IOR('T', 0x30, unsigned int).
        let TIOCSPTLCK: UInt = 0x4004_5431, TIOCGPTN: UInt = 0x8004_5430
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard leader >= 0, ioctl(leader, TIOCSPTLCK, &unlock) == 0, ioctl(leader, TIOCGPTN, &number) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let fd = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        follower = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
    }

    deinit { close(leader) }

    /// Writes `text` as if typed.
    func type(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard bytes.withUnsafeBytes({ write(leader, $0.baseAddress, $0.count) }) == bytes.count else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
    }
}
