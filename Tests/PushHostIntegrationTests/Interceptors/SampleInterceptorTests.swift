import Foundation
import Testing

/// The C interceptor samples: `dedupe` drops a message whose collapse_key,
/// else id, went through within its window; `enrich` gives a notification
/// without a picture `notification.image` from a template. Both run before
/// the data stage, so a data plugin (a probe) and `notify` see what they
/// let through, as they left it.
@Suite struct SampleInterceptorTests {
    /// A message in the GCM shape with a notification, aimed at `target`,
    /// with `collapse_key` when given.
    static func message(_ id: String, target: String = "issues", collapseKey: String? = nil, title: String = "Toner low") -> String {
        let key = collapseKey.map { #""collapse_key":"\#($0)","# } ?? ""
        return #"{"message_id":"\#(id)",\#(key)"notification":{"title":"\#(title)"},"data":{"rx_gcm_key_target":"\#(target)"}}"#
    }

    /// `dedupe` with `settings`, then `notify` writing to `notify.txt`.
    static func dedupeAndNotify(_ scratch: Scratch, _ settings: [String: String] = [:]) -> [String] {
        loading(Paths.sample("dedupe"), as: "dedupe", settings)
            + loading(Paths.sample("notify"), as: "notify", ["path": scratch.file("notify.txt")])
    }

    /// The reason of a line dedupe stopped: "duplicate KIND seen N.Ns ago",
    /// with the figure replaced by N.N (it depends on the machine's speed).
    static func reason(_ line: [String: Any]) -> String? {
        (line["reason"] as? String)?.replacingOccurrences(of: #"seen \d+\.\ds ago$"#, with: "seen N.Ns ago", options: .regularExpression)
    }

    // MARK: dedupe

    /// A repeated id and a repeated collapse_key are dropped, each with its
    /// reason; the collapse_key, when there is one, is the key, and an id
    /// and a collapse_key with the same text are different keys.
    @Test func dedupeDropsARepeatedIdAndARepeatedCollapseKey() throws {
        let scratch = try Scratch()
        let result = try scratch.run(Self.dedupeAndNotify(scratch), stdin: ndjson(
            Self.message("m-1"),
            Self.message("m-1"),
            Self.message("m-2", collapseKey: "toner"),
            Self.message("m-3", collapseKey: "toner", title: "Toner empty"),
            Self.message("m-4", collapseKey: "m-1"),
            Self.message("m-1", collapseKey: "paper"),
            Self.message("m-5")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == 7, "\(result.stdout)")
        #expect(report.map { $0["id"] as? String } == ["m-1", "m-1", "m-2", "m-3", "m-4", "m-1", "m-5"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "suppressed", "delivered", "suppressed", "delivered", "delivered", "delivered"])
        #expect(report.map(Self.reason) == [nil, "duplicate id m-1 seen N.Ns ago", nil, "duplicate of collapse_key toner seen N.Ns ago", nil, nil, nil])
        for dropped in [report[1], report[3]] {
            #expect(dropped["by"] as? String == "dedupe")
            #expect(dropped["route"] as? String == "none")
            #expect((dropped["data"] as? [Any])?.isEmpty == true)
            #expect((dropped["ui"] as? [Any])?.isEmpty == true)
        }
        #expect(scratch.read("notify.txt").split(separator: "\n") == [
            "notify: Toner low", "notify: Toner low", "notify: Toner low", "notify: Toner low", "notify: Toner low",
        ])
    }

    /// Past the window a key is forgotten: the same id and the same
    /// collapse_key go through again, and start a new window of their own.
    @Test func dedupeLetsARepeatThroughAfterTheWindow() throws {
        let scratch = try Scratch()
        let report = try scratch.runInParts(
            Self.dedupeAndNotify(scratch, ["window": "0.5"]),
            [Self.message("m-1"), Self.message("c-1", collapseKey: "toner")],
            [Self.message("m-1"), Self.message("c-2", collapseKey: "toner"), Self.message("m-1"), Self.message("c-3", collapseKey: "toner")],
            pause: .milliseconds(700))
        #expect(report.map { $0["id"] as? String } == ["m-1", "c-1", "m-1", "c-2", "m-1", "c-3"])
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered", "delivered", "delivered", "suppressed", "suppressed"])
        #expect(report.map(Self.reason) == [nil, nil, nil, nil, "duplicate id m-1 seen N.Ns ago", "duplicate of collapse_key toner seen N.Ns ago"])
    }

    /// At most `max_keys` keys are kept, the oldest forgotten first.
    @Test func dedupeForgetsTheOldestKeyPastMaxKeys() throws {
        let scratch = try Scratch()
        let result = try scratch.run(Self.dedupeAndNotify(scratch, ["max_keys": "2"]), stdin: ndjson(
            Self.message("m-1"), Self.message("m-2"), Self.message("m-3"), Self.message("m-1"), Self.message("m-3")))
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        #expect(report.map { $0["status"] as? String } == ["delivered", "delivered", "delivered", "delivered", "suppressed"])
        #expect(Self.reason(try #require(report.last)) == "duplicate id m-3 seen N.Ns ago")
    }

    /// A message that went through and then failed in the data stage is
    /// forgotten (on_outcome), so that its retry is not taken for a repeat;
    /// the retry that went through is remembered again.
    @Test func dedupeForgetsAMessageThatFailed() throws {
        let scratch = try Scratch()
        let plugins = loading(Paths.sample("dedupe"), as: "dedupe") + (try scratch.probe("check", [.data]))
        let failing = #"{"message_id":"m-1","data":{"verdict":"failed"}}"#
        let report = try scratch.runInParts(
            plugins, [failing], [Self.message("m-1"), Self.message("m-1")], pause: .zero)
        #expect(report.map { $0["status"] as? String } == ["failed", "undelivered", "suppressed"])
        #expect(Self.reason(try #require(report.last)) == "duplicate id m-1 seen N.Ns ago")
    }

    /// A wrong setting refuses the plugin in create, with a line that says
    /// which setting is wrong and what it should be; the host stops before
    /// it reads any input.
    @Test(arguments: [
        ("window", "abc", #"the `window` setting must be a number of seconds above 0, such as 60 or 0.5, not "abc""#),
        ("window", "0", #"the `window` setting must be a number of seconds above 0, such as 60 or 0.5, not "0""#),
        ("window", "-1.5", #"the `window` setting must be a number of seconds above 0, such as 60 or 0.5, not "-1.5""#),
        ("window", "inf", #"the `window` setting must be a number of seconds above 0, such as 60 or 0.5, not "inf""#),
        ("window", "2s", #"the `window` setting must be a number of seconds above 0, such as 60 or 0.5, not "2s""#),
        ("max_keys", "0", #"the `max_keys` setting must be a whole number from 1 to 1000000, not "0""#),
        ("max_keys", "1.5", #"the `max_keys` setting must be a whole number from 1 to 1000000, not "1.5""#),
        ("max_keys", "2000000", #"the `max_keys` setting must be a whole number from 1 to 1000000, not "2000000""#),
    ])
    func dedupeRefusesAWrongSetting(_ key: String, _ value: String, _ line: String) throws {
        let scratch = try Scratch()
        let result = try scratch.run(loading(Paths.sample("dedupe"), as: "dedupe", [key: value]), stdin: ndjson(Self.message("m-1")))
        #expect(result.status == 1)
        #expect(result.errorLines.first == "error dedupe: \(line)", "\(result.stderr)")
        #expect(result.stderr.contains("refused plugin \(Paths.sample("dedupe"))"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    // MARK: enrich

    /// `enrich` with the template `image`, then a data probe that logs the
    /// message's JSON and `notify` writing to `notify.txt`.
    static func enrichAndWitnesses(_ scratch: Scratch, image: String) throws -> [String] {
        loading(Paths.sample("enrich"), as: "enrich", ["image": image])
            + (try scratch.probe("seen", [.data], settings: ["json": "true"]))
            + loading(Paths.sample("notify"), as: "notify", ["path": scratch.file("notify.txt")])
    }

    /// The notification.image that the probe saw in each message's JSON, in
    /// order; nil for a message without one.
    static func imagesSeen(_ scratch: Scratch) throws -> [String?] {
        try scratch.probeLines().filter { $0.event == "data" }.map { line in
            (try line.json()["notification"] as? [String: Any])?["image"] as? String
        }
    }

    /// The template is filled from the message: the data stage and the
    /// background handler both see the image. A value is percent-encoded;
    /// the template's own text is kept as it is, a quote and a tab included
    /// (they are escaped for the JSON value, not for the URL).
    @Test func enrichSetsTheImageFromTheTemplate() throws {
        let scratch = try Scratch()
        let plugins = try Self.enrichAndWitnesses(scratch, image: "https://img.example.com/{target}/{id}.png")
        let result = try scratch.run(plugins, stdin: ndjson(
            Self.message("m-1", title: "Printer jammed"),
            Self.message("a/b c?d", target: "supplies")))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.imagesSeen(scratch) == [
            "https://img.example.com/issues/m-1.png", "https://img.example.com/supplies/a%2Fb%20c%3Fd.png",
        ])
        #expect(scratch.read("notify.txt") == """
            notify: Printer jammed [image: https://img.example.com/issues/m-1.png]
            notify: Toner low [image: https://img.example.com/supplies/a%2Fb%20c%3Fd.png]

            """)

        let quoting = try Scratch()
        let quoted = try Self.enrichAndWitnesses(quoting, image: "x:\"{data.sku}\"\t\\{notification.title}")
        let second = try quoting.run(quoted, stdin: ndjson(
            #"{"message_id":"m-1","notification":{"title":"Ink 100%"},"data":{"sku":"é"}}"#))
        #expect(second.status == 0, "\(second.stderr)")
        #expect(try Self.imagesSeen(quoting) == ["x:\"%C3%A9\"\t\\Ink%20100%25"])
    }

    /// A message that has a picture keeps it; a data-only message gets none
    /// (and no notification either).
    @Test func enrichLeavesAMessageWithAnImageAlone() throws {
        let scratch = try Scratch()
        let plugins = try Self.enrichAndWitnesses(scratch, image: "https://img.example.com/{id}.png")
        let result = try scratch.run(plugins, stdin: ndjson(
            #"{"message_id":"m-1","notification":{"title":"Printer jammed","image":"https://own.example.com/p.png"}}"#,
            #"{"message_id":"m-2","data":{"title":"Sync"}}"#))
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.imagesSeen(scratch) == ["https://own.example.com/p.png", nil])
        let dataOnly = try #require(scratch.probeLines().last { $0.event == "data" }).json()
        #expect(dataOnly["notification"] == nil || dataOnly["notification"] is NSNull, "\(dataOnly)")
        #expect(scratch.read("notify.txt") == """
            notify: Printer jammed [image: https://own.example.com/p.png]
            notify: Sync

            """)
    }

    /// A placeholder whose path the message lacks leaves the message as it
    /// is (the probe sees the same JSON as without enrich); the next
    /// message, which has every path, gets its image.
    @Test func enrichLeavesAMessageAloneWhenAPathIsMissing() throws {
        let input = ndjson(
            #"{"message_id":"m-1","notification":{"title":"No sku"},"data":{"rx_gcm_key_target":"orders"}}"#,
            #"{"message_id":"m-2","notification":{"title":"No target"},"data":{"sku":"A-7"}}"#,
            #"{"message_id":"m-3","notification":{"title":"Both"},"data":{"sku":"A-7","rx_gcm_key_target":"orders"}}"#)
        let scratch = try Scratch()
        let plugins = try Self.enrichAndWitnesses(scratch, image: "https://img.example.com/{target}/{data.sku}.png")
        let result = try scratch.run(plugins, stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.imagesSeen(scratch) == [nil, nil, "https://img.example.com/orders/A-7.png"])
        #expect(try result.report().map { $0["status"] as? String } == ["delivered", "delivered", "delivered"])

        let plain = try Scratch()
        let unchanged = try plain.run(try plain.probe("seen", [.data], settings: ["json": "true"]), stdin: input)
        #expect(unchanged.status == 0, "\(unchanged.stderr)")
        let json = { (lines: [ProbeLine]) in lines.prefix(2).map(\.rest) }
        #expect(json(scratch.probeLines()) == json(plain.probeLines()))
        #expect(json(scratch.probeLines()).count == 2)
    }

    /// Without a template, or with one whose braces do not pair, the plugin
    /// is refused in create, with a line that says why.
    @Test(arguments: [
        (nil, "the `image` setting is required (a template such as https://img.example.com/{target}/{id}.png)"),
        ("https://x/{id", #"the `image` template has an unfinished placeholder at byte 10: "https://x/{id" (write {PATH}, such as {id} or {data.sku})"#),
        ("https://x/{}.png", #"the `image` template has an unfinished placeholder at byte 10: "https://x/{}.png" (write {PATH}, such as {id} or {data.sku})"#),
        ("https://x/{a{id}}", #"the `image` template has an unfinished placeholder at byte 10: "https://x/{a{id}}" (write {PATH}, such as {id} or {data.sku})"#),
        ("https://x/id}.png", #"the `image` template has a } that closes nothing at byte 12: "https://x/id}.png""#),
    ] as [(String?, String)])
    func enrichRefusesAMissingOrBrokenTemplate(_ image: String?, _ line: String) throws {
        let scratch = try Scratch()
        let result = try scratch.run(
            loading(Paths.sample("enrich"), as: "enrich", image.map { ["image": $0] } ?? [:]), stdin: ndjson(Self.message("m-1")))
        #expect(result.status == 1)
        #expect(result.errorLines.first == "error enrich: \(line)", "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }
}

extension Scratch {
    /// Runs `pushhost run` with `plugins`, the report into `report.ndjson`,
    /// feeding standard input in parts: a part goes in once the report has
    /// the lines of every part before it, and `pause` more has passed. The
    /// report's lines, parsed, once the host ended with status 0.
    func runInParts(_ plugins: [String], _ parts: [String]..., pause: Duration) throws -> [[String: Any]] {
        signal(SIGPIPE, SIG_IGN)
        let feed = Pipe()
        let host = try HostProcess(
            ["run", "--state", file("state"), "--report", file("report.ndjson")] + plugins,
            errorPath: file("stderr.log"), input: feed)
        var sent = 0
        for (index, part) in parts.enumerated() {
            if index > 0 {
                let lines = sent
                // Done waiting once the lines are there, or the host ended without them.
                eventually(timeout: .seconds(20)) {
                    (try? reportLines(lenient: true).count >= lines) == true || host.waitForExit(timeout: .zero) != nil
                }
                try #require(try reportLines(lenient: true).count >= lines,
                             "no report line for each of the first \(lines) records: \(read("report.ndjson")) \(host.stderr)")
                let (seconds, attoseconds) = pause.components
                usleep(UInt32(seconds * 1_000_000 + attoseconds / 1_000_000_000_000))
            }
            try feed.fileHandleForWriting.write(contentsOf: Data((part.joined(separator: "\n") + "\n").utf8))
            sent += part.count
        }
        try feed.fileHandleForWriting.close()
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")
        return try reportLines()
    }
}
