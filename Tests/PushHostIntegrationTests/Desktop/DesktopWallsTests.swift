import Foundation
import Testing

/// The desktop plugin isolated, behind its walls, with the grants its
/// documentation gives in its settings file: the session bus, and for
/// remote images a connection to their port and its download folder under
/// `$XDG_RUNTIME_DIR`. Without the connection's grant, a remote image is
/// left out with its reason and the notification is still posted.
@Suite(.enabled(if: DesktopPlugin.canRun, "needs dbus-daemon, python3-dbusmock, libsystemd-dev and libcurl4-openssl-dev"))
struct DesktopWallsTests {
    @Test(arguments: [true, false]) func remoteImagesNeedTheirConnectGrant(granted: Bool) throws {
        let images = try DesktopImageTests.ImageServer()
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        // A copy of the plugin, so that its settings file can sit beside it.
        let plugin = scratch.file("desktop.so")
        try FileManager.default.copyItem(atPath: try DesktopPlugin.path(), toPath: plugin)
        let connect = granted ? #", "connect": ["127.0.0.1:\#(images.port)"]"# : ""
        try scratch.write("desktop.json", #"""
            {"actions": false, "fetch_images": true, "fetch_private": true, "image_dirs": "\#(scratch.file("pictures"))",
             "sandbox": {"bus": "session", "write": ["\#(scratch.path)"]\#(connect)}}
            """#)
        let picture = try scratch.write("pictures/local.png", "\u{89}PNG\r\n\u{1a}\n")
        let input = ndjson(
            #"{"message_id":"m-1","notification":{"title":"remote","image":"\#(images.url("small.png"))"}}"#,
            #"{"message_id":"m-2","notification":{"title":"local","image":"\#(picture)"}}"#)
        let run = try Command.pushhost(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--plugin", plugin, "--isolate", "all"],
            stdin: input, environment: ["XDG_RUNTIME_DIR": scratch.path].merging(bus.environment) { $1 })
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!run.stderr.contains("runs without these walls"), "\(run.stderr)")
        let calls = try server.calls()
        #expect(calls.map(\.summary) == ["remote", "local"], "\(run.stderr)")
        // A file in image_dirs needs no grant: the plugin hands its path on, the server reads it.
        #expect(calls.last?.hints["image-path"] as? String == realPath(picture))
        let fetched = calls.first?.hints["image-path"] as? String
        if granted {
            #expect(fetched?.hasPrefix(realPath(scratch.path) + "/pushhost-desktop-") == true, "\(run.stderr)")
        } else {
            #expect(fetched == nil)
            #expect(run.stderr.contains("warning desktop: message m-1: the image \(images.url("small.png")) is not shown: "), "\(run.stderr)")
        }
        #expect(try scratch.reportLines().map { $0["status"] as? String } == ["delivered", "delivered"])
    }
}
