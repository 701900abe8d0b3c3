import Foundation
import Testing

/// The C samples that take actions: `issues` (a screen) writes them like its
/// other lines, `notify` lists a message's buttons and picture and brings the
/// app up for an action no visible screen takes; `supplies` has no
/// `on_action`.
@Suite struct SampleActionTests {
    /// A message with two buttons and a picture, aimed at `target`.
    static func rich(_ id: String, target: String) -> String {
        #"{"message_id":"\#(id)","notification":{"title":"Printer jammed","body":"Floor 2","image":"https://x/p.png","#
            + #""actions":[{"id":"open","title":"Open"},{"id":"reply","title":"Reply","input":true},{"id":"later"}]},"#
            + #""data":{"rx_gcm_key_target":"\#(target)"}}"#
    }

    /// notify writes the actions' titles (an id without one) and the image
    /// after its line, and nothing more for a message without them.
    @Test func notifyListsActionsAndImage() throws {
        let scratch = try Scratch()
        let result = try scratch.run(
            loading(Paths.sample("notify"), as: "notify", ["path": scratch.file("notify.txt")]),
            stdin: ndjson(
                Self.rich("m-1", target: "issues"),
                #"{"message_id":"m-2","notification":{"title":"Printer jammed","body":"Floor 2","actions":[{"id":"open","title":"Open"},{"id":"reply","title":"Reply"}]}}"#,
                #"{"message_id":"m-3","notification":{"title":"Plain","actions":[]}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(scratch.read("notify.txt") == """
            notify: Printer jammed: Floor 2 [actions: Open, Reply, later] [image: https://x/p.png]
            notify: Printer jammed: Floor 2 [actions: Open, Reply]
            notify: Plain

            """)
    }

    /// The visible issues screen writes a tap and a reply (its text quoted);
    /// in the background, notify brings the app up for the action.
    ///
    /// Needs the host side of actions (`"pushhost":"action"` events): until
    /// it lands the host rejects the action records as unknown events.
    @Test func issuesWritesTapsAndRepliesAndNotifyBringsTheAppUp() throws {
        let scratch = try Scratch()
        let plugins = loading(Paths.sample("issues"), as: "issues", ["path": scratch.file("issues.txt")])
            + loading(Paths.sample("supplies"), as: "supplies", ["path": scratch.file("supplies.txt")])
            + loading(Paths.sample("notify"), as: "notify", ["path": scratch.file("notify.txt")])
        let result = try scratch.run(plugins, stdin: ndjson(
            #"{"pushhost":"foreground","screens":["issues","supplies"]}"#,
            Self.rich("m-1", target: "issues"),
            #"{"pushhost":"action","id":"m-1","action":"tap"}"#,
            #"{"pushhost":"action","id":"m-1","action":"reply","input":"on \"my\" way"}"#,
            #"{"pushhost":"background"}"#,
            Self.rich("m-2", target: "issues"),
            #"{"pushhost":"action","id":"m-2","action":"open"}"#))
        #expect(result.status == 0, "\(result.stderr)")
        let rejected = try result.report().filter { $0["status"] as? String == "rejected" }
        #expect(rejected.isEmpty, "rejected: \(rejected.map { $0["error"] ?? "?" })")
        #expect(scratch.read("issues.txt") == """
            issues target m-1 Printer jammed
            issues action m-1 tap
            issues action m-1 reply "on \\"my\\" way"

            """)
        #expect(scratch.read("notify.txt") == """
            notify: Printer jammed: Floor 2 [actions: Open, Reply, later] [image: https://x/p.png]
            notify: bring the app up for open on m-2

            """)
        #expect(scratch.read("supplies.txt") == "")
    }
}
