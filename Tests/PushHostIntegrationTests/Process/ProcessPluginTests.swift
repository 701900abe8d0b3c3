import Foundation
import Testing

/// Process plugins: a program started by the host from its manifest takes
/// each call as a JSON line and answers it as one, behind the walls of a
/// worker, with a worker's guarantees (tests run it as users do: python3
/// looked up on PATH, walls on).
@Suite struct ProcessPluginTests {
    @Test func everyRoleIsCalledAndDataVerdictsCount() throws {
        let scratch = try Scratch()
        let manifest = try scratch.program("py", roles: ["data", "background", "screen", "token", "action"], screens: ["inbox"])
        let result = try scratch.run(["--process", manifest], stdin: ndjson(
            programMessage("m1"),
            programMessage("m2", ["verdict": "suppress"]),
            programMessage("m3", ["verdict": "error"]),
            #"{"pushhost":"token","token":"T1"}"#,
            #"{"pushhost":"foreground","screens":["py"]}"#,
            programMessage("m4", target: "inbox"),
            programMessage("m5", target: "elsewhere"),
            #"{"pushhost":"action","id":"m4","action":"tap"}"#))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report().filter { $0["event"] == nil }
        #expect(report.map { $0["id"] as? String } == ["m1", "m2", "m3", "m4", "m5"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "suppressed", "failed", "delivered", "delivered"])
        #expect(report[2]["error"] as? String == "no verdict for m3", "\(report[2])")
        #expect(report.map { $0["route"] as? String } == ["background", "none", "none", "target", "mismatch"])
        // Data stages may run ahead of the UI calls of the messages before.
        let calls = scratch.programCalls("py")
        #expect(calls.filter { !$0.hasPrefix("data ") } == ["background m1", "token T1 -", "target m4", "mismatch m5", "action tap - m4", "end"], "\(calls)")
        #expect(calls.filter { $0.hasPrefix("data ") } == ["data m1", "data m2", "data m3", "data m4", "data m5"])
        // Its standard error is the host's log, naming it.
        #expect(result.stderr.contains("info pushhost: plugin py: started with py in /"), "\(result.stderr)")
        #expect(result.stderr.contains(scratch.url.lastPathComponent + "\n"), "its manifest's folder: \(result.stderr)")
    }

    /// A program that answers each batch of calls backwards: the report and
    /// the UI calls keep the order of the messages.
    @Test func answersInAnyOrderKeepTheOrderOfMessages() throws {
        let scratch = try Scratch()
        let manifest = try scratch.program("rev", roles: ["data", "background"], settings: ["reverse": "true"])
        let ids = (1...300).map { "m\($0)" }
        let result = try scratch.run(["--process", manifest], stdin: ndjson(ids.map { programMessage($0, ["verdict": $0.hasSuffix("7") ? "suppress" : "continue"]) }))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["id"] as? String } == ids)
        #expect(report.map { $0["status"] as? String } == ids.map { $0.hasSuffix("7") ? "suppressed" : "delivered" })
        let backgrounds = scratch.programCalls("rev").filter { $0.hasPrefix("background ") }
        #expect(backgrounds == ids.filter { !$0.hasSuffix("7") }.map { "background \($0)" })
    }

    /// The program answers a chunk of calls at once, so the host cannot
    /// tell which call it died in: the calls under way go to the next
    /// program one at a time, and the one it dies in again fails alone.
    @Test func aProgramKilledMidStreamFailsOnlyItsCallAndIsStartedAgain() throws {
        let scratch = try Scratch()
        let manifest = try scratch.program("k", roles: ["background"])
        let result = try scratch.run(["--process", manifest], stdin: ndjson(
            programMessage("m1"), programMessage("m2", ["act": "kill"]), programMessage("m3"), programMessage("m4")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "failed", "delivered", "delivered"])
        #expect(report[1]["error"] as? String == "plugin k crashed in on_background: SIGKILL", "\(report[1])")
        let calls = scratch.programCalls("k")
        #expect(calls.filter { $0 == "background m2" }.count <= 2 && calls.suffix(3) == ["background m3", "background m4", "end"], "\(calls)")
        #expect(result.stderr.contains("error pushhost: plugin k's program crashed in on_background: SIGKILL; starting it again in"), "\(result.stderr)")
    }

    @Test func aProgramThatHangsMeetsTheHandlerTimeout() throws {
        let scratch = try Scratch()
        let manifest = try scratch.program("h", roles: ["background"])
        let result = try scratch.run(["--process", manifest, "--handler-timeout", "1"], stdin: ndjson(
            programMessage("m1", ["act": "hang"]), programMessage("m2")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["failed", "delivered"])
        #expect(report[0]["error"] as? String == "plugin h did not answer on_background within --handler-timeout 1.0s (its program was killed)")
        #expect(scratch.programCalls("h").suffix(2) == ["background m2", "end"])
    }

    struct Hostile: Sendable, CustomTestStringConvertible {
        let act: String
        let problem: String
        var testDescription: String { act }
    }

    /// What a program writes that answers no call under way ends it as
    /// malformed: the call fails, the next goes to a new program.
    @Test(arguments: [
        Hostile(act: "garbage", problem: #"a line that is no JSON object: "this is no answer""#),
        Hostile(act: "stranger", problem: "an answer to call 1002, which was never made"),
        Hostile(act: "twice", problem: "a second answer to call 2"),
        Hostile(act: "verdict", problem: "a verdict for call 2, a background call (only a data call has one)"),
        Hostile(act: "endless", problem: "a line longer than 65536 bytes"),
    ])
    func aMalformedAnswerEndsTheProgram(_ hostile: Hostile) throws {
        let scratch = try Scratch()
        let manifest = try scratch.program("bad", roles: ["background"])
        let result = try scratch.run(["--process", manifest], stdin: ndjson(
            programMessage("m1"), programMessage("m2", ["act": hostile.act]), programMessage("m3")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        // Its second answer to m2 is found only when it ended with m3 under way: m3 then fails.
        let failing = hostile.act == "twice" ? 2 : 1
        #expect(report.map { $0["status"] as? String } == (0..<3).map { $0 == failing ? "failed" : "delivered" }, "\(report)")
        #expect(report[failing]["error"] as? String == "plugin bad wrote a malformed answer: \(hostile.problem)", "\(report[failing])")
        #expect(result.stderr.contains("plugin bad's program wrote a malformed answer: \(hostile.problem); starting it again"), "\(result.stderr)")
    }

    struct Refusal: Sendable, CustomTestStringConvertible {
        let label: String
        let command: [String]
        let files: [String: String]
        let reason: String
        var testDescription: String { label }
    }

    @Test(arguments: [
        Refusal(label: "exits at once", command: ["sh", "exits.sh"], files: ["exits.sh": "echo 'no database here' >&2\nexit 3\n"],
                reason: "its program ended before its first line (exit status 3): info pushhost: plugin p: no database here"),
        Refusal(label: "no such program", command: ["no-such-program-here"], files: [:],
                reason: "its program ended before its first line (exit status 127): error pushhost: plugin p: cannot start no-such-program-here: No such file or directory"),
        Refusal(label: "another protocol", command: ["sh", "v2.sh"], files: ["v2.sh": "echo '{\"pushhost\":2}'\ncat\n"],
                reason: "its program speaks protocol 2, where this host speaks 1"),
        Refusal(label: "no ready line", command: ["sh", "hello.sh"], files: ["hello.sh": "echo hello\ncat\n"],
                reason: #"its program wrote a first line that is not {"pushhost":1}: "hello""#),
    ])
    func aProgramThatCannotStartIsRefusedWithWhy(_ refusal: Refusal) throws {
        let scratch = try Scratch()
        let manifest = try scratch.program("p", roles: ["background"], command: refusal.command, files: refusal.files)
        let result = try scratch.run(["--process", manifest], stdin: ndjson(programMessage("m1")))
        #expect(result.status != 0)
        #expect(result.stderr.contains("refused plugin \(manifest): \(refusal.reason)"), "\(result.stderr)")
    }

    /// `plugins --check` starts each program and stops it, as a run does:
    /// one that cannot start is refused there with its last words.
    @Test func aDryRunStartsTheProgram() throws {
        let scratch = try Scratch()
        let good = try scratch.program("good", roles: ["background"])
        let bad = try scratch.program("bad", roles: ["background"], command: ["sh", "bad.sh"], files: ["bad.sh": "echo 'no config' >&2\nexit 2\n"])
        let listing = try Command.pushhost(["plugins", "--check", "--process", good, "--process", bad], stdin: "")
        #expect(listing.status != 0)
        #expect(listing.stdout.contains("info pushhost: plugin good: started with good in "), "\(listing.stdout)")
        #expect(listing.stdout.contains("  check: created\n"), "\(listing.stdout)")
        #expect(listing.stdout.contains("  check: refused: its program ended before its first line (exit status 2): info pushhost: plugin bad: no config\n"),
                "\(listing.stdout)")
    }

    /// Behind the walls a program reads neither the host's token nor a
    /// loopback listener; the grants open each.
    @Test func theWallsHoldAProgramAndItsGrantsOpenThem() throws {
        let scratch = try Scratch()
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in(sin_family: sa_family_t(AF_INET), sin_port: 0, sin_addr: in_addr(s_addr: inet_addr("127.0.0.1")), sin_zero: (0, 0, 0, 0, 0, 0, 0, 0))
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try #require(withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } } == 0)
        try #require(listen(listener, 8) == 0)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        let port = "\(UInt16(bigEndian: address.sin_port))"
        let token = scratch.file("state/token")
        let messages = ndjson(#"{"pushhost":"token","token":"SECRET"}"#, programMessage("m1", ["act": "read", "path": token]),
                              programMessage("m2", ["act": "connect", "port": port]))
        let walled = try scratch.program("w", roles: ["background"])
        let refused = try scratch.run(["--process", walled], stdin: messages)
        #expect(refused.status == 0, "\(refused.stderr)")
        let lines = try refused.report().filter { $0["event"] == nil }
        #expect(lines.map { $0["error"] as? String } == ["read: Permission denied", "connect: Operation not permitted"], "\(lines)")

        let granted = try scratch.program("g", roles: ["background"], sandbox: #"{"read": ["\#(scratch.file("state"))"], "connect": ["127.0.0.1:\#(port)"]}"#)
        let allowed = try scratch.run(["--process", granted], stdin: messages)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        #expect(try allowed.report().filter { $0["event"] == nil }.map { $0["status"] as? String } == ["delivered", "delivered"], "\(allowed.stdout)")
    }

    /// The kernel's other doors stay shut to a program of a root host (the
    /// tests run as root), though it was exec'd after the walls went up:
    /// no capability (bounding set included), no io_uring, no netlink nor
    /// vsock socket. Each attempt's outcome is its answer's error.
    @Test func aProgramOfARootHostFindsTheOtherDoorsShut() throws {
        let scratch = try Scratch()
        let doors = #"""
            import ctypes, json, os, socket, sys
            libc = ctypes.CDLL(None, use_errno=True)
            def capabilities():
                fields = dict(line.split(":	") for line in open("/proc/self/status").read().splitlines() if ":	" in line)
                return "caps " + " ".join(fields[k].strip() for k in ("CapEff", "CapPrm", "CapBnd", "CapAmb"))
            def uring():
                params = ctypes.create_string_buffer(120)
                fd = libc.syscall(425, 8, params)
                return "io_uring " + ("opened" if fd >= 0 else os.strerror(ctypes.get_errno()))
            def family(name, number):
                try:
                    socket.socket(number, socket.SOCK_DGRAM).close()
                    return name + " opened"
                except OSError as e:
                    return name + " " + e.strerror
            sys.stdout.write('{"pushhost":1}\n'); sys.stdout.flush()
            for line in sys.stdin:
                call = json.loads(line)
                what = {"caps": capabilities, "uring": uring, "netlink": lambda: family("netlink", 16),
                        "vsock": lambda: family("vsock", 40)}[call["message"]["data"]["door"]]()
                sys.stdout.write(json.dumps({"id": call["id"], "error": what}) + "\n"); sys.stdout.flush()
            """#
        let manifest = try scratch.program("doors", roles: ["background"], command: ["python3", "doors/doors.py"], files: ["doors/doors.py": doors])
        let result = try scratch.run(["--process", manifest], stdin: ndjson(["caps", "uring", "netlink", "vsock"].map { programMessage($0, ["door": $0]) }))
        #expect(result.status == 0, "\(result.stderr)")
        let errors = try result.report().map { $0["error"] as? String ?? "" }
        #expect(errors.count == 4, "\(result.stdout)")
        #expect(errors.first == "caps 0000000000000000 0000000000000000 0000000000000000 0000000000000000", "\(errors)")
        #expect(errors.dropFirst().allSatisfy { !$0.hasSuffix("opened") && $0.contains(" ") }, "\(errors)")
        #expect(errors.dropFirst().map { $0.split(separator: " ")[0] } == ["io_uring", "netlink", "vsock"], "\(errors)")
    }

    /// A stop while calls are under way: the program's input ends, it
    /// answers what it has, and the host ends with every message reported.
    @Test func aStopWaitsForTheCallsUnderWay() throws {
        let scratch = try Scratch()
        let manifest = try scratch.program("s", roles: ["background"])
        let feed = Pipe()
        let host = try HostProcess(["run", "--state", scratch.file("state"), "--report", scratch.file("report"), "--process", manifest],
                                   errorPath: scratch.file("stderr"), input: feed)
        try feed.fileHandleForWriting.write(contentsOf: Data(ndjson((1...3).map { programMessage("m\($0)", ["act": "late", "delay_ms": "300"]) }).utf8))
        #expect(eventually(timeout: .seconds(10)) { scratch.programCalls("s").contains("background m1") })
        #expect(host.stop() == .status(0), "\(host.stderr)")
        let ids = scratch.read("report").split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .map { "\($0["id"] ?? "") \($0["status"] ?? "")" }
        #expect(ids == ["m1 delivered", "m2 delivered", "m3 delivered"], "\(host.stderr)")
        #expect(scratch.programCalls("s").last == "end")
    }
}
