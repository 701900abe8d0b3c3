import Foundation
import Testing

/// A push names a local file as its image or icon; the desktop shell would
/// read whatever it is handed. Only files inside the `image_dirs` folders
/// (resolved: no `..`, no symbolic link out) are handed over; anything else
/// is logged, and the notification goes out without it.
@Suite(.enabled(if: DesktopPlugin.canRun, "needs dbus-daemon, python3-dbusmock, libsystemd-dev and libcurl4-openssl-dev"))
struct DesktopImagePathTests {
    /// A folder of pictures, a secret beside it, and a link from one to the other.
    struct Files {
        let pictures: String
        let picture: String
        let secret: String

        init(_ scratch: Scratch) throws {
            picture = try scratch.write("pictures/ok.png", "\u{89}PNG\r\n\u{1a}\n")
            pictures = scratch.file("pictures")
            secret = try scratch.write("secret.txt", "the key")
            try scratch.write("pictures-more/x.png", "\u{89}PNG\r\n\u{1a}\n")
            try FileManager.default.createSymbolicLink(atPath: scratch.file("pictures/link.png"), withDestinationPath: secret)
        }
    }

    /// Runs the host on `images` (message m-N has the Nth as its image, or
    /// as its icon when it starts with "icon:"), and returns the result and
    /// the Notify calls.
    static func show(
        _ images: [String], _ scratch: Scratch, settings: [String: String] = [:]
    ) throws -> (Command, [NotificationServer.Call]) {
        let bus = try SessionBus(scratch)
        let server = try NotificationServer(on: bus)
        let lines = try images.enumerated().map { index, image in
            let (key, value) = image.hasPrefix("icon:") ? ("icon", String(image.dropFirst(5))) : ("image", image)
            let notification = try JSONSerialization.data(withJSONObject: ["title": "n\(index + 1)", key: value])
            return #"{"message_id":"m-\#(index + 1)","notification":\#(String(decoding: notification, as: UTF8.self))}"#
        }
        let result = try DesktopNotifyTests.run(scratch, on: bus, ndjson(lines), settings: settings)
        #expect(result.status == 0, "\(result.stderr)")
        return (result, try server.calls())
    }

    @Test func onlyFilesInsideTheImageFoldersAreHandedToTheServer() throws {
        let scratch = try Scratch()
        let files = try Files(scratch)
        let encoded = "file://" + files.picture.replacingOccurrences(of: "ok.png", with: "%6Fk.png")
        let images = [
            "/etc/passwd",
            "icon:file:///etc/pass%77d",
            "/proc/self/environ",
            files.pictures + "/../secret.txt",
            files.pictures + "/link.png",
            "icon:" + files.pictures + "/link.png",
            scratch.file("pictures-more/x.png"),
            "file://" + files.picture + "%00.txt",
            files.picture,
            encoded,
        ]
        let (result, calls) = try Self.show(images, scratch, settings: ["image_dirs": files.pictures])
        // Every message is shown; only the last two with their picture.
        #expect(calls.map(\.summary) == (1...10).map { "n\($0)" })
        let picture = realPath(files.picture)
        #expect(calls.map { $0.hints["image-path"] as? String } == Array(repeating: nil, count: 8) + [picture, picture])
        #expect(calls.allSatisfy { $0.icon.isEmpty })
        let outside = "is not shown: it is outside the image_dirs folders"
        for (number, what) in [(1, "image /etc/passwd"), (2, "icon file:///etc/pass%77d"), (3, "image /proc/self/environ"),
                               (4, "image \(files.pictures)/../secret.txt"), (5, "image \(files.pictures)/link.png"),
                               (6, "icon \(files.pictures)/link.png"), (7, "image \(scratch.file("pictures-more/x.png"))")] {
            #expect(result.stderr.contains("warning desktop: message m-\(number): the \(what) \(outside)"), "\(result.stderr)")
        }
        #expect(result.stderr.contains("warning desktop: message m-8: the image file://\(files.picture)%00.txt is not shown: not a local file URL"))
        #expect(!result.stderr.contains("m-9:") && !result.stderr.contains("m-10:"))
        #expect(try scratch.reportLines().allSatisfy { $0["status"] as? String == "delivered" })
    }

    @Test func withoutImageFoldersOnlyIconNamesPass() throws {
        let scratch = try Scratch()
        let files = try Files(scratch)
        let (result, calls) = try Self.show([files.picture, "icon:printer"], scratch)
        #expect(calls.map { $0.hints["image-path"] as? String } == [nil, nil])
        #expect(calls.map(\.icon) == ["", "printer"])
        #expect(result.stderr.contains(
            "warning desktop: message m-1: the image \(files.picture) is not shown: a local file is shown only from the image_dirs folders, and none is set"))
    }
}
