import Foundation
import Testing

/// A Swift plugin that adopts `ActionPlugin`: the actions a person takes on
/// a notification (a tap, a reply with its text) reach `onAction` with the
/// delivered message, and `Message` reads a notification's rich parts
/// (`actions`, `image`, `icon`, `click`, `style`).
///
/// The plugin, `tapper`, is one of `PluginPackage`'s.
@Suite struct SwiftPluginsActionTests {
    /// The message of the task, aimed at the `orders` target, with two buttons.
    static let message = #"{"message_id":"m-1","notification":{"title":"T","actions":[{"id":"open","title":"Open"},{"id":"reply","title":"Reply","input":true}]},"data":{"rx_gcm_key_target":"orders"}}"#

    /// `open|Open|false;reply|Reply|true`, as `tapper` writes `message.actions`.
    static let actions = "open|Open|false;reply|Reply|true"

    /// A visible screen that adopts `ActionPlugin` gets the tap (no input)
    /// and the reply (with its text), each with the message it was
    /// delivered: its id, title and actions read through `Message`.
    ///
    /// Needs the host side of actions (`"pushhost":"action"` events): until
    /// it lands the host rejects both action records as unknown events.
    @Test func screenGetsTapAndReplyWithTheirMessage() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let result = try scratch.run(
            loading(package.library("tapper"), as: "tapper", ["log": scratch.file("tapper.log")]),
            stdin: ndjson(
                #"{"pushhost":"foreground","screen":"tapper"}"#,
                Self.message,
                #"{"pushhost":"action","id":"m-1","action":"tap"}"#,
                #"{"pushhost":"action","id":"m-1","action":"reply","input":"on my way"}"#))
        #expect(result.status == 0, "\(result.stderr)")

        let report = try result.report()
        #expect(report.count == 4, "\(result.stdout)")
        let rejected = report.filter { $0["status"] as? String == "rejected" }
        #expect(rejected.isEmpty, "rejected: \(rejected.map { $0["error"] ?? "?" })")
        #expect(report.dropFirst().first?["route"] as? String == "target", "\(report)")

        // event, id, title, actions, then for actions: the action's id,
        // input, isTap and description.
        #expect(scratch.lines("tapper.log") == [
            ["target", "m-1", "T", Self.actions],
            ["action", "m-1", "T", Self.actions, "tap", "-", "true", "tap"],
            ["action", "m-1", "T", Self.actions, "reply", "on my way", "false", #"reply "on my way""#],
        ])
    }

    /// `Message(json:)` reads `actions` from `notification.actions` (ids,
    /// titles, escapes, `input: true`), leaving out elements without an id;
    /// `image`, `icon`, `click` and `style` from the notification; a message
    /// without them has no actions and nil for each.
    @Test func messageReadsActionsAndRichPartsFromJSON() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let messages = [
            #"{"id":"u-1","notification":{"title":"T","actions":[{"id":"open","title":"Open"},{"id":"reply","title":"Reply","input":true}],"#
                + #""image":"https://x/i.png","icon":"https://x/c.png","click":"https://x/o?a=1","style":"image"}}"#,
            #"{"id":"u-2","data":{"actions":[{"id":"in-data","title":"Not a notification's"}]}}"#,
            #"{"id":"u-3","notification":{"actions":[{"id":"a\"b","title":"Say \"hi\" \u00e9"},null,{"title":"no id"},{"id":"bare"},"#
                + #"{"extra":[1,{"id":"deep"}],"id":"x","title":"X","input":false},"junk",{"id":"","title":"empty"}],"style":"bigtext"}}"#,
            #"{"id":"u-4","notification":{"actions":"open","image":null}}"#,
            #"{"id":"u-5","notification":{"actions":[]}}"#,
        ]
        let file = try scratch.write("messages.ndjson", messages.joined(separator: "\n") + "\n")
        let result = try scratch.run(
            loading(package.library("tapper"), as: "tapper", ["log": scratch.file("tapper.log"), "parse": file]), stdin: "")
        #expect(result.status == 0, "\(result.stderr)")
        // parsed, id, actions, image, icon, click, style.
        #expect(scratch.lines("tapper.log") == [
            ["parsed", "u-1", Self.actions, "https://x/i.png", "https://x/c.png", "https://x/o?a=1", "image"],
            ["parsed", "u-2", "", "-", "-", "-", "-"],
            ["parsed", "u-3", #"a"b|Say "hi" é|false;bare|bare|false;x|X|false"#, "-", "-", "-", "bigtext"],
            ["parsed", "u-4", "", "-", "-", "-", "-"],
            ["parsed", "u-5", "", "-", "-", "-", "-"],
        ])
    }

    /// A delivered message reads the same actions through the host as from
    /// its own JSON (`Message(json: message.json)`). Needs no action event.
    @Test func deliveredMessageReadsItsActionsThroughTheHost() throws {
        let package = try PluginPackage.shared()
        let scratch = try Scratch()
        let result = try scratch.run(
            loading(package.library("tapper"), as: "tapper", ["log": scratch.file("tapper.log"), "copies": "true"]),
            stdin: ndjson(#"{"pushhost":"foreground","screen":"tapper"}"#, Self.message))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.lines("tapper.log") == [["target", "m-1", "T", Self.actions], ["copy", "m-1", "T", Self.actions]])
    }
}

/// `PluginPackage`'s `tapper`: a screen for the `orders` target that adopts
/// `ActionPlugin` and writes tab-separated lines to the file at its `log`
/// setting (`-` for nil):
/// - `target ID TITLE ACTIONS` for `onTarget` (and `copy ...` the same for
///   `Message(json: message.json)` when its `copies` setting is `true`);
///   ACTIONS is `ID|TITLE|IS-INPUT` for each of `message.actions`, joined by `;`;
/// - `action ID TITLE ACTIONS ACTION-ID INPUT IS-TAP DESCRIPTION` for `onAction`;
/// - `mismatch ID TARGET` for `onMismatch`;
/// - at start, when its `parse` setting names an NDJSON file, `parsed ID
///   ACTIONS IMAGE ICON CLICK STYLE` for `Message(json:)` of each line.
extension PluginPackage {
    static let tapper = """
        import Foundation
        import PushHostPlugin
        import Synchronization

        /// A screen for "orders" that writes down what it is shown and what is done with it.
        final class Tapper: ScreenPlugin, ActionPlugin {
            static let name = "tapper"
            static let version = "0.1.0"
            static let summary = "Foreground screen for the orders target; takes actions."
            static let targets = ["orders"]

            private let log: LineFile
            private let copies: Bool

            init(context: PluginContext) throws {
                guard let path = context.setting("log") else { throw NoLog() }
                log = LineFile(path: path)
                copies = context.setting("copies") == "true"
                if let file = context.setting("parse") {
                    for line in try String(contentsOfFile: file, encoding: .utf8).split(separator: "\\n") {
                        let message = Message(json: String(line))
                        log.append("parsed", message.id, Self.actions(of: message), message.image ?? "-",
                                   message.icon ?? "-", message.click ?? "-", message.style ?? "-")
                    }
                }
            }

            func onTarget(_ message: Message) {
                log.append("target", message.id, message.title ?? "-", Self.actions(of: message))
                if copies {
                    let copy = Message(json: message.json)
                    log.append("copy", copy.id, copy.title ?? "-", Self.actions(of: copy))
                }
            }

            func onMismatch(_ message: Message) {
                log.append("mismatch", message.id, message.target ?? "-")
            }

            func onAction(_ action: Action, message: Message) {
                log.append("action", message.id, message.title ?? "-", Self.actions(of: message),
                           action.id, action.input ?? "-", "\\(action.isTap)", "\\(action)")
            }

            static func actions(of message: Message) -> String {
                message.actions.map { "\\($0.id)|\\($0.title)|\\($0.isInput)" }.joined(separator: ";")
            }
        }

        struct NoLog: Error, CustomStringConvertible {
            var description: String { "the log setting is required" }
        }

        @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Tapper.self) }

        """
}
