import Foundation
import Testing

/// The desktop plugin's background role: each message becomes a `Notify`
/// call on a real session bus, read back from a real (mock) notification
/// server.
@Suite(.enabled(if: DesktopPlugin.canRun, "needs dbus-daemon, python3-dbusmock, libsystemd-dev and libcurl4-openssl-dev"))
struct DesktopNotifyTests {
    /// Runs `pushhost run` with the desktop plugin (taps off, so that the
    /// host ends with its input) and `settings`, on `bus`, until `input`
    /// ends; `isolated`: every plugin in a worker (`--isolate all`). Before
    /// the input ends, it checks that the plugin runs where it should.
    static func run(
        _ scratch: Scratch, on bus: SessionBus, _ input: String, settings: [String: String] = [:], more: [String] = [],
        isolated: Bool = false
    ) throws -> Command {
        let sets = (["actions": "false"].merging(settings) { $1 }).sorted { $0.key < $1.key }
            .flatMap { ["--set", "desktop.\($0.key)=\($0.value)"] }
        let feed = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--plugin",
             try DesktopPlugin.path()] + sets + more + TransportWorker.walled(isolated, "desktop", grants: ["bus=session"]),
            errorPath: scratch.file("stderr.log"), environment: bus.environment, input: feed)
        #expect(TransportWorker.runs(host, plugin: try DesktopPlugin.path(), isolated: isolated), "\(host.stderr)")
        try feed.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try feed.fileHandleForWriting.close()
        let exit = host.waitForExit()
        let status: Int32 = switch exit {
        case .status(let code): code
        case .signal(let number): 128 + number
        case nil: -1
        }
        return Command(status: status, stdout: "", stderr: host.stderr, rawStderr: scratch.read("stderr.log"))
    }

    @Test(arguments: [false, true]) func aMessageBecomesANotifyCallWithItsFields(isolated: Bool) throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        let picture = try scratch.write("pictures/jam.png", "\u{89}PNG\r\n\u{1a}\nnot really")
        let message = #"""
            {"message_id":"m-1","notification":{"title":"Printer <jammed>","body":"Floor 2 & tray 1","icon":"printer","image":"\#(picture)","category":"device.error"},"data":{"actions":"[{\"id\":\"ack\",\"title\":\"On my way\"},{\"id\":\"reply\",\"title\":\"Reply\",\"input\":true}]"}}
            """#
        let result = try Self.run(
            scratch, on: bus, message + "\n",
            settings: ["app_name": "Office", "timeout": "2.5", "desktop_entry": "org.example.Office", "image_dirs": scratch.file("pictures")],
            isolated: isolated)
        #expect(result.status == 0, "\(result.stderr)")

        let call = try #require(try server.calls().first)
        #expect(call.appName == "Office")
        #expect(call.replacesID == 0)
        #expect(call.icon == "printer")
        #expect(call.summary == "Printer <jammed>")
        // The template says it takes body markup: the body's & is an entity.
        #expect(call.body == "Floor 2 &amp; tray 1")
        // "default" is the tap; the reply is left out, as the server takes no text.
        #expect(call.actions == ["default", "Open", "ack", "On my way"])
        #expect(call.hints["urgency"] as? Int == 1)
        #expect(call.hints["category"] as? String == "device.error")
        #expect(call.hints["desktop-entry"] as? String == "org.example.Office")
        #expect(call.hints["image-path"] as? String == realPath(picture))
        #expect(call.expireTimeout == 2500)
        let report = try scratch.reportLines()
        #expect(report.map { $0["ui"] as? [String] } == [["desktop"]])
    }

    @Test(arguments: [false, true]) func aCollapseKeyReplacesTheNotificationBeforeIt(isolated: Bool) throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        let input = ndjson(
            #"{"message_id":"m-1","collapse_key":"order-77","notification":{"title":"Order 77 packed"}}"#,
            #"{"message_id":"m-2","notification":{"title":"Toner low"}}"#,
            #"{"message_id":"m-3","collapse_key":"order-77","notification":{"title":"Order 77 shipped"}}"#,
            #"{"message_id":"m-4","collapse_key":"order-78","notification":{"title":"Order 78 packed"}}"#)
        let result = try Self.run(scratch, on: bus, input, isolated: isolated)
        #expect(result.status == 0, "\(result.stderr)")
        let calls = try server.calls()
        #expect(calls.map(\.summary) == ["Order 77 packed", "Toner low", "Order 77 shipped", "Order 78 packed"])
        // The server numbers notifications from 1: m-3 replaces m-1's.
        #expect(calls.map(\.replacesID) == [0, 0, 1, 0])
    }

    @Test func urgencyFollowsThePriorityAndDataUrgency() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        let input = ndjson(
            #"{"notification":{"title":"stated normal"},"priority":"normal"}"#,
            #"{"notification":{"title":"high by default"}}"#,
            #"{"notification":{"title":"critical"},"data":{"urgency":"critical"}}"#,
            #"{"data":{"title":"a data message with a title","body":"and a body"},"priority":"high"}"#,
            #"{"data":{"count":"3"}}"#)
        let result = try Self.run(scratch, on: bus, input, more: ["--log-level", "debug"])
        #expect(result.status == 0, "\(result.stderr)")
        let calls = try server.calls()
        #expect(calls.map(\.summary) == ["stated normal", "high by default", "critical", "a data message with a title"])
        #expect(calls.map { $0.hints["urgency"] as? Int } == [0, 1, 2, 1])
        // The data message without a title or a body shows nothing, and says so.
        #expect(result.stderr.contains("debug desktop: message stdin-5 has no title or body: nothing to show"))
    }

    @Test func theTargetsSettingChoosesWhatIsShown() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        let input = ndjson(
            #"{"notification":{"title":"for issues"},"data":{"rx_gcm_key_target":"issues"}}"#,
            #"{"notification":{"title":"for orders"},"data":{"rx_gcm_key_target":"orders"}}"#,
            #"{"notification":{"title":"for nobody"}}"#,
            #"{"notification":{"title":"for supplies"},"data":{"rx_gcm_key_target":"supplies"}}"#)
        let result = try Self.run(scratch, on: bus, input, settings: ["targets": "issues, supplies"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try server.calls().map(\.summary) == ["for issues", "for supplies"])
    }

    @Test func fileURLsAndIconNamesAreGivenAsPathsAndNamesAndTheRestIsRefusedClearly() throws {
        let scratch = try Scratch()
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        let picture = try scratch.write("two words/a b.png", "\u{89}PNG\r\n\u{1a}\n")
        let url = "file://" + picture.replacingOccurrences(of: " ", with: "%20")
        let input = ndjson(
            #"{"message_id":"m-1","notification":{"title":"file URL","image":"\#(url)"}}"#,
            #"{"message_id":"m-2","notification":{"title":"missing","image":"/nonexistent/x.png"}}"#,
            #"{"message_id":"m-3","notification":{"title":"remote","image":"https://img.example.com/x.png"}}"#,
            #"{"message_id":"m-4","notification":{"title":"ftp","image":"ftp://example.com/x.png"}}"#)
        let result = try Self.run(
            scratch, on: bus, input, settings: ["icon": "dialog-information", "image_dirs": scratch.file("two words")])
        #expect(result.status == 0, "\(result.stderr)")
        let calls = try server.calls()
        #expect(calls.map { $0.hints["image-path"] as? String } == [realPath(picture), nil, nil, nil])
        #expect(calls.map(\.icon) == Array(repeating: "dialog-information", count: 4))
        #expect(result.stderr.contains(
            "warning desktop: message m-2: the image /nonexistent/x.png is not shown: No such file or directory"))
        #expect(result.stderr.contains(
            "warning desktop: message m-4: the image ftp://example.com/x.png is not shown: neither a file, a file:// or http(s) URL, nor an icon name"))
        // A remote image is not fetched unless fetch_images says so (a debug line says it).
        #expect(!result.stderr.contains("m-3: the image"))
    }
}

/// `path` with every symbolic link and `..` resolved, as the plugin hands
/// it to the server.
func realPath(_ path: String) -> String {
    guard let resolved = realpath(path, nil) else { return path }
    defer { free(resolved) }
    return String(cString: resolved)
}
