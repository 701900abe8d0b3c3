import Foundation
import Testing

/// `message_get_many` (ABI 1.2, after `fail`): one call gives, for each
/// path, what `message_get` gives, in the host and in a worker, and counts
/// the values found. A plugin built against the 1.1 header, whose view of
/// the host's table ends before it, goes on reading one value at a time.
@Suite struct ManyValuesTests {
    /// Present, absent, null, a number, an escaped string, an object, the
    /// top-level fields, the source, and paths that name nothing.
    static let paths = [
        "target", "id", "data.title", "data.missing", "data.none", "data.n", "data.esc", "data", "priority",
        "notification.title", "source.kind", "source.line", "format", "data.", "nothing.at.all", "data.title.deeper",
    ]
    static let input = ndjson(
        #"{"message_id":"m1","data":{"title":"T","rx_gcm_key_target":"a","none":null,"n":12.5,"esc":"q\"\u00e9"}}"#,
        #"{"notification":{"title":"N"},"data":{"title":"T2"},"priority":"high"}"#)

    /// The probe's lines for the input, reading `paths` one by one or at once.
    static func lines(many: Bool, huge: Bool = false, flags: [String] = [], include: String? = nil) throws -> [String] {
        let scratch = try Scratch()
        var settings = ["get": paths.joined(separator: ","), "verdict": "continue"]
        if many { settings["many"] = huge ? "huge" : "true" }
        let plugin: [String]
        if let include {
            let file = try scratch.plugin("d.so", PluginSource.probe(name: "d", roles: [.data]), include: include)
            plugin = loading(file, as: "d", scratch.writing(settings, to: scratch.probeLog))
        } else {
            plugin = try scratch.probe("d", [.data], settings: settings)
        }
        let result = try scratch.run(plugin + flags, stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        return scratch.probeLines().filter { $0.event == "data" }.map(\.text)
    }

    @Test(arguments: [false, true])
    func oneCallGivesWhatMessageGetGivesForEachPath(isolated: Bool) throws {
        let flags = isolated ? ["--isolate", "all"] : []
        let single = try Self.lines(many: false, flags: flags)
        let many = try Self.lines(many: true, flags: flags)
        #expect(single.count == 2)
        #expect(many.count == single.count)
        for (one, all) in zip(single, many) {
            let found = one.split(separator: " ").dropFirst(4).filter { !$0.hasSuffix("=NULL") }.count
            #expect(all == one + " found=\(found)")
        }
        // What the values are, so that equal lines cannot both be wrong.
        #expect(single.first?.contains(#" data.title=T data.missing=NULL data.none=NULL data.n=12.5 data.esc=q"é "#) == true, "\(single)")
        #expect(single.last?.contains(" priority=high notification.title=N source.kind=stdin source.line=2 ") == true, "\(single)")
    }

    /// A count no array can have (past `SSIZE_MAX`) names no path: the call
    /// finds nothing and writes nothing, and the host (or the worker) goes
    /// on with the next message instead of trapping.
    @Test(arguments: [false, true])
    func aCountPastAnyArrayFindsNothing(isolated: Bool) throws {
        let lines = try Self.lines(many: true, huge: true, flags: isolated ? ["--isolate", "all"] : [])
        #expect(lines.count == 2)
        for line in lines {
            #expect(line.hasSuffix(" found=0"), "\(line)")
            #expect(!line.contains("=NULL"), "\(line)")
            #expect(line.split(separator: " ").dropFirst(4).dropLast().allSatisfy { $0.hasSuffix("=UNTOUCHED") }, "\(line)")
        }
    }

    @Test func aPluginOf11ReadsItsValuesOneByOne() throws {
        let single = try Self.lines(many: false, include: ABI11CompatibilityTests.include11)
        let many = try Self.lines(many: true, include: ABI11CompatibilityTests.include11)
        #expect(single.count == 2)
        #expect(many == single.map { $0 + " many=absent" })
        #expect(single == (try Self.lines(many: false)))
    }
}
