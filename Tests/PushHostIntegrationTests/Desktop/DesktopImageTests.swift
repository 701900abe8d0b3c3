import Foundation
import Testing

/// Remote images (`fetch_images`): downloaded from a real web server on
/// loopback, within the size and time limits, only when they are images,
/// into a private folder that destroy removes.
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

        func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }
    }

    @Test func remoteImagesAreFetchedWithinTheirLimits() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        let images = try ImageServer()
        let input = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"),
             "--plugin", try DesktopPlugin.path(), "--set", "desktop.actions=false", "--set", "desktop.fetch_images=true",
             "--set", "desktop.image_max_bytes=100000", "--set", "desktop.image_timeout=1"],
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
        #expect(path.hasPrefix(scratch.path + "/pushhost-desktop-"))
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
}
