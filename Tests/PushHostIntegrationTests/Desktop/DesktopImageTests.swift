import Foundation
import Testing

/// Remote images (`fetch_images`): downloaded from a real web server,
/// within the size and time limits, only when they are images, into a
/// private folder that destroy removes; and never from this machine or its
/// network (loopback, private addresses) unless `fetch_private` says so.
@Suite(.enabled(if: DesktopPlugin.canRun, "needs dbus-daemon, python3-dbusmock, libsystemd-dev and libcurl4-openssl-dev"))
struct DesktopImageTests {
    /// `Tests/Fixtures/desktop/images.py`, on a port of its own.
    final class ImageServer {
        private let server = Process()
        let port: String

        init() throws {
            server.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            server.arguments = [Paths.fixtures.appendingPathComponent("desktop/images.py").path]
            port = try firstLine(of: server)
            try #require(Int(port) != nil, "images.py printed no port")
        }

        deinit {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }

        func url(_ path: String, host: String = "127.0.0.1") -> String { "http://\(host):\(port)/\(path)" }

        /// The paths asked for so far.
        func requests() throws -> [String] {
            let script = "import urllib.request, sys; direct = urllib.request.build_opener(urllib.request.ProxyHandler({})); "
                + "print(direct.open(sys.argv[1]).read().decode(), end='')"
            let result = try Command.run("/usr/bin/python3", ["-c", script, url("requests")])
            try #require(result.status == 0, "\(result.rawStderr)")
            return result.stdout.split(separator: "\n").map(String.init)
        }
    }

    /// Runs the host with `fetch_images` on and `settings`, each URL the
    /// image of message m-N; the result and the Notify calls.
    static func show(_ urls: [String], settings: [String] = [], program: [String] = []) throws -> (Command, [NotificationServer.Call], Scratch) {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        let lines = urls.enumerated().map { index, url in
            #"{"message_id":"m-\#(index + 1)","notification":{"title":"n\#(index + 1)","image":"\#(url)"}}"#
        }
        let arguments = ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"),
                         "--plugin", try DesktopPlugin.path(), "--set", "desktop.actions=false",
                         "--set", "desktop.fetch_images=true"] + settings.flatMap { ["--set", "desktop." + $0] }
        let environment = ["XDG_RUNTIME_DIR": scratch.path].merging(bus.environment) { $1 }
        let result = program.isEmpty
            ? try Command.pushhost(arguments, stdin: ndjson(lines), environment: environment)
            : try Command.run(program[0], Array(program.dropFirst()) + [Paths.pushhost] + arguments, stdin: ndjson(lines),
                              environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        return (result, try server.calls(), scratch)
    }

    /// Whether a test may make a network of its own (`unshare --net`, as root).
    static let canMakeANetwork = ProcessInfo.processInfo.environment["CI"] == "true"
        || (try? Command.run("/usr/bin/unshare", ["--net", "true"]))?.status == 0

    @Test func remoteImagesAreFetchedWithinTheirLimits() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        let images = try ImageServer()
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"),
             "--plugin", try DesktopPlugin.path(), "--set", "desktop.actions=false", "--set", "desktop.fetch_images=true",
             "--set", "desktop.fetch_private=true", "--set", "desktop.image_max_bytes=100000", "--set", "desktop.image_timeout=1"],
            errorPath: scratch.file("stderr.log"), environment: ["XDG_RUNTIME_DIR": scratch.path].merging(bus.environment) { $1 },
            input: input)
        let names = ["small.png", "big.png", "page.png", "slow.png", "gone.png"]
        let lines = names.enumerated().map { index, name in
            #"{"message_id":"m-\#(index + 1)","notification":{"title":"\#(name)","image":"\#(images.url(name))"}}"#
        }
        try input.fileHandleForWriting.write(contentsOf: Data(ndjson(lines).utf8))
        let calls = try server.waitForCalls(5)
        #expect(calls.map(\.summary) == names)

        // The small one is a file of the host's user alone, while the host runs.
        let path = try #require(calls[0].hints["image-path"] as? String)
        #expect(path.hasPrefix(realPath(scratch.path) + "/pushhost-desktop-"))
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(bytes.count == 2000 && bytes.starts(with: [0x89, 0x50, 0x4e, 0x47]))
        let folder = (path as NSString).deletingLastPathComponent
        #expect((try FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int) == 0o700)
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
        // The others go out without an image, each with its reason.
        #expect(calls.dropFirst().allSatisfy { $0.hints["image-path"] == nil })
        let stderr = host.stderr
        let url = images.url("")
        #expect(stderr.contains("warning desktop: message m-2: the image \(url)big.png is not shown: it is larger than image_max_bytes (100000 bytes)"))
        #expect(stderr.contains("warning desktop: message m-3: the image \(url)page.png is not shown: it is not an image (PNG, JPEG, GIF, WebP, BMP or SVG)"))
        #expect(stderr.contains("warning desktop: message m-4: the image \(url)slow.png is not shown: it took longer than image_timeout (1000 ms)"))
        #expect(stderr.contains("warning desktop: message m-5: the image \(url)gone.png is not shown: the server answered HTTP 404"))

        try input.fileHandleForWriting.close()
        #expect(host.waitForExit() == .status(0))
        #expect(!FileManager.default.fileExists(atPath: folder), "destroy leaves the downloads behind")
    }

    @Test func thisMachineIsNotFetchedFromByDefault() throws {
        let images = try ImageServer()
        // The same server named four ways: its address, a name for it, its
        // IPv4-mapped IPv6 form, and the number 127.0.0.1 is.
        let urls = [images.url("small.png"), images.url("small.png", host: "localhost"),
                    images.url("small.png", host: "[::ffff:127.0.0.1]"), images.url("small.png", host: "2130706433")]
        let (result, calls, scratch) = try Self.show(urls)
        // Each notification is shown, without its image; the server was never asked.
        #expect(calls.map(\.summary) == ["n1", "n2", "n3", "n4"])
        #expect(calls.allSatisfy { $0.hints["image-path"] == nil })
        #expect(try images.requests() == [])
        let refused = "is loopback, link-local or private, which fetch_private does not allow"
        for (number, url) in urls.enumerated() {
            #expect(result.stderr.contains("warning desktop: message m-\(number + 1): the image \(url) is not shown: its address "),
                    "\(result.stderr)")
        }
        #expect(result.stderr.components(separatedBy: refused).count == 5)
        #expect(result.stderr.contains("\(urls[0]) is not shown: its address 127.0.0.1 \(refused)"))
        #expect(result.stderr.contains("\(urls[2]) is not shown: its address ::ffff:127.0.0.1 \(refused)"))
        #expect(try scratch.reportLines().map { $0["status"] as? String } == Array(repeating: "delivered", count: 4))
    }

    @Test func fetchPrivateAllowsThisMachine() throws {
        let images = try ImageServer()
        let (_, calls, scratch) = try Self.show([images.url("small.png", host: "localhost")], settings: ["fetch_private=true"])
        let path = try #require(calls.first?.hints["image-path"] as? String)
        #expect(path.hasPrefix(realPath(scratch.path) + "/pushhost-desktop-"))
        #expect(try images.requests() == ["/small.png"])
    }

    @Test(.enabled(if: canMakeANetwork, "needs root, for a network of its own (unshare --net)"))
    func aRedirectToThisMachineIsRefused() throws {
        // In a network of its own, 198.51.100.7 stands for a public server;
        // it redirects to loopback.
        let folder = try Scratch()
        let script = Paths.fixtures.appendingPathComponent("desktop/elsewhere.sh").path
        let remote = "http://198.51.100.7:8080/"
        let urls = [remote + "small.png", remote + "redirect?to=http://127.0.0.1:8080/small.png"]
        let (result, calls, _) = try Self.show(urls, program: ["/usr/bin/unshare", "--net", script, folder.path])
        #expect(calls.map(\.summary) == ["n1", "n2"])
        #expect(calls.map { $0.hints["image-path"] != nil } == [true, false])
        #expect(result.stderr.contains(
            "warning desktop: message m-2: the image \(urls[1]) is not shown: its address 127.0.0.1 is loopback, link-local or private, which fetch_private does not allow"),
            "\(result.stderr)")
        // The redirect was asked for, and what it pointed to was not.
        #expect(folder.read("requests") == "/small.png\n/redirect?to=http://127.0.0.1:8080/small.png\n")
    }
}
