import Foundation
import Testing

/// What a reload does when it cannot go on as asked: a set that cannot be
/// made changes nothing; a hang, a stop or a second SIGHUP during a reload.
@Suite struct ReloadTests {
    /// A running plugin whose new version fails `create`, with another
    /// plugin added in the same reload: the reload is refused with the
    /// reason, the added plugin is destroyed, and the records that follow
    /// meet the old set. Once fixed, the next SIGHUP loads both.
    @Test func aSetThatCannotBeCreatedChangesNothing() throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        try scratch.spool.create()
        try folder.install("one", version: "1")
        let host = try scratch.startWatching(["--plugins", folder.path])
        try deliver("m1", through: host, scratch: scratch)

        // Created first (the folder's order), then destroyed when one fails.
        try folder.install("added", version: "1")
        try folder.install("one", version: "2", defines: ["FAIL_CREATE"])
        host.send(SIGHUP)
        #expect(host.waitForStderr("reload refused"), "\(host.stderr)")
        #expect(host.stderr.contains("refused plugin \(folder.path)/one.so: create returned NULL"), "\(host.stderr)")
        try deliver("m2", through: host, scratch: scratch)
        #expect(instances(of: "m2", in: folder) == ["one 1 -"])
        #expect(lifecycle(folder) == ["one 1 create", "added 1 create", "added 1 destroy"])

        try folder.install("one", version: "2")
        host.send(SIGHUP)
        #expect(host.waitForStderr("reloaded: added added, changed one (file), unchanged 0"), "\(host.stderr)")
        try deliver("m3", through: host, scratch: scratch)
        #expect(instances(of: "m3", in: folder) == ["added 1 -", "one 2 -"])
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }

    /// A file that is no plugin, added to the folder: refused without
    /// `--skip-bad-plugins`; with it, left out as at a start, and the rest
    /// of the reload goes on.
    @Test(arguments: [false, true])
    func aFileThatIsNoPluginAdded(skipBad: Bool) throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        try scratch.spool.create()
        try folder.install("one", version: "1")
        let host = try scratch.startWatching(["--plugins", folder.path] + (skipBad ? ["--skip-bad-plugins"] : []))
        try "not a library".write(toFile: folder.path + "/junk.so", atomically: true, encoding: .utf8)
        try folder.configure("one", ["tag": "red"])
        host.send(SIGHUP)
        if skipBad {
            #expect(host.waitForStderr("reloaded: changed one (settings), unchanged 0"), "\(host.stderr)")
        } else {
            #expect(host.waitForStderr("reload refused: 1 of 2 plugins refused"), "\(host.stderr)")
        }
        #expect(host.stderr.contains("refused plugin \(folder.path)/junk.so"), "\(host.stderr)")
        try deliver("m1", through: host, scratch: scratch)
        #expect(instances(of: "m1", in: folder) == [skipBad ? "one 1 red" : "one 1 -"])
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }

    /// A running plugin's file that turns bad refuses the reload even with
    /// `--skip-bad-plugins`: the plugin goes on as it was.
    @Test func aRunningPluginThatTurnsBadIsKeptEvenWhenSkippingBadOnes() throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        try scratch.spool.create()
        try folder.install("one", version: "1")
        let host = try scratch.startWatching(["--plugins", folder.path, "--skip-bad-plugins"])
        try FileManager.default.removeItem(atPath: folder.path + "/one.so")
        try "not a library".write(toFile: folder.path + "/one.so", atomically: true, encoding: .utf8)
        host.send(SIGHUP)
        #expect(host.waitForStderr("reload refused: plugin \(folder.path)/one.so, which runs, was refused"), "\(host.stderr)")
        try deliver("m1", through: host, scratch: scratch)
        #expect(instances(of: "m1", in: folder) == ["one 1 -"])
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }

    /// An isolated plugin hangs in a record when SIGHUP comes: the switch
    /// waits for that record, which `--handler-timeout` ends (its worker
    /// killed); then the next records meet the new set.
    @Test func aReloadWhileAnIsolatedPluginHangs() throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        try scratch.spool.create()
        try folder.install("one", version: "1", settings: ["hang": "stuck"])
        let host = try scratch.startWatching(["--plugins", folder.path, "--isolate", "all", "--handler-timeout", "2"])
        try scratch.spool.drop("stuck", #"{"message_id":"stuck","data":{}}"#)
        #expect(eventually(timeout: .seconds(10)) { folder.calls.contains { $0.id == "stuck" && $0.handler == "background" } })
        try folder.install("one", version: "2")
        host.send(SIGHUP)
        try scratch.spool.drop("after", #"{"message_id":"after","data":{}}"#)
        #expect(host.waitForStderr("reloaded: changed one (file, settings), unchanged 0", timeout: .seconds(30)), "\(host.stderr)")
        #expect(eventually(timeout: .seconds(20)) { (try? scratch.reportLines().count) == 2 }, "\(host.stderr)")
        let report = try scratch.reportLines()
        #expect(report.first { $0["id"] as? String == "stuck" }?["status"] as? String == "failed", "\(report)")
        #expect(report.first { $0["id"] as? String == "after" }?["status"] as? String == "delivered", "\(report)")
        #expect(instances(of: "after", in: folder) == ["one 2 -"])
        #expect(host.stderr.contains("--handler-timeout"), "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }

    /// SIGTERM while a reload waits for a pending verdict: the host stops
    /// as a stop does, the next set's new plugin is destroyed unused, and
    /// the running one once.
    @Test func sigtermDuringAReloadStopsAsAStopDoes() throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        try scratch.spool.create()
        try folder.install("one", version: "1", settings: ["pending_ms": "3000"])
        let host = try scratch.startWatching(["--plugins", folder.path, "--stop-timeout", "10"])
        try scratch.spool.drop("slow", #"{"message_id":"slow","data":{}}"#)
        usleep(300_000)
        try folder.install("one", version: "2")
        host.send(SIGHUP)
        #expect(eventually(timeout: .seconds(10)) { lifecycle(folder).contains("one 2 create") }, "\(host.stderr)")
        host.send(SIGTERM)
        #expect(host.waitForExit(timeout: .seconds(30)) == .status(0), "\(host.stderr)")
        #expect(host.stderr.contains("reload abandoned: the host stops"), "\(host.stderr)")
        #expect(!host.stderr.contains("reloaded:"), "\(host.stderr)")
        #expect(lifecycle(folder) == ["one 1 create", "one 2 create", "one 2 destroy", "one 1 destroy"])
        // The pending verdict came within the stop's deadline: the record was handled by the set it began with.
        #expect(instances(of: "slow", in: folder) == ["one 1 -"])
        #expect(try scratch.reportLines().map { $0["status"] as? String } == ["delivered"])
    }

    /// A message an interceptor holds when SIGHUP comes is released by the
    /// chain it entered, and meets the plugins of that set; the switch waits
    /// for it, and the next message meets the new set. The interceptor
    /// (a Swift plugin, unchanged) keeps its instance.
    @Test func aHeldMessageIsReleasedByTheOldChain() throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        try scratch.spool.create()
        try folder.install("one", version: "1")
        try folder.prepare("one", version: "2")
        try FileManager.default.createSymbolicLink(atPath: folder.path + "/libdebounce.so", withDestinationPath: Paths.sample("debounce"))
        try #"{"quiet_ms": "700"}"#.write(toFile: folder.path + "/libdebounce.json", atomically: true, encoding: .utf8)
        let host = try scratch.startWatching(["--plugins", folder.path])
        try scratch.spool.drop("held", #"{"message_id":"held","data":{"rx_gcm_key_target":"orders"}}"#)
        usleep(200_000)
        try folder.install("one", version: "2")
        host.send(SIGHUP)
        #expect(host.waitForStderr("reloaded: changed one (file), unchanged 1"), "\(host.stderr)")
        try deliver("after", through: host, scratch: scratch)
        #expect(instances(of: "held", in: folder) == ["one 1 -"])
        #expect(instances(of: "after", in: folder) == ["one 2 -"])
        let waited = try #require(host.stderr.firstMatch(of: /records waited ([0-9.]+) ms/).flatMap { Double($0.1) }, "\(host.stderr)")
        #expect(waited >= 300, "the switch did not wait for the held message: \(waited) ms")
        #expect(try scratch.reportLines().map { $0["status"] as? String } == ["delivered", "delivered"])
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }

    /// A second SIGHUP while the first reload waits is taken after it: two reloads, in order.
    @Test func aSecondSighupDuringAReloadIsTakenAfterIt() throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        try scratch.spool.create()
        try folder.install("one", version: "1", settings: ["pending_ms": "1000"])
        let host = try scratch.startWatching(["--plugins", folder.path])
        try scratch.spool.drop("slow", #"{"message_id":"slow","data":{}}"#)
        usleep(200_000)
        try folder.install("one", version: "2", settings: ["pending_ms": "1000"])
        host.send(SIGHUP)
        #expect(eventually(timeout: .seconds(10)) { lifecycle(folder).contains("one 2 create") }, "\(host.stderr)")
        try folder.install("two", version: "1")
        host.send(SIGHUP)
        #expect(host.waitForStderr("reloaded: added two, unchanged 1"), "\(host.stderr)")
        let first = try #require(host.stderr.range(of: "reloaded: changed one (file), unchanged 0"), "\(host.stderr)")
        let second = try #require(host.stderr.range(of: "reloaded: added two, unchanged 1"))
        #expect(first.lowerBound < second.lowerBound)
        #expect(host.stop() == .status(0), "\(host.stderr)")
        #expect(instances(of: "slow", in: folder) == ["one 1 -"])
    }

    /// A Swift library in the host whose file is replaced cannot be loaded
    /// beside its old version: the reload is refused with the reason. In a
    /// worker, the same change reloads it by a new worker.
    @Test(arguments: [false, true])
    func aSwiftLibraryReplacedInPlace(isolated: Bool) throws {
        let scratch = try Scratch()
        let folder = try PluginFolder(scratch)
        try scratch.spool.create()
        let library = folder.path + "/libinbox.so"
        try FileManager.default.copyItem(atPath: Paths.sample("inbox"), toPath: library)
        let inbox = scratch.file("inbox.ndjson")
        FileManager.default.createFile(atPath: inbox, contents: nil)
        try #"{"path": "\#(inbox)", "sandbox": {"write": ["\#(inbox)"]}}"#.write(toFile: folder.path + "/libinbox.json", atomically: true, encoding: .utf8)
        let host = try scratch.startWatching(["--plugins", folder.path] + (isolated ? ["--isolate", "all"] : []))
        // The same library, installed anew (another inode).
        try FileManager.default.copyItem(atPath: Paths.sample("inbox"), toPath: library + ".new")
        try #require(rename(library + ".new", library) == 0)
        host.send(SIGHUP)
        if isolated {
            #expect(host.waitForStderr("reloaded: changed inbox (file), unchanged 0"), "\(host.stderr)")
        } else {
            #expect(host.waitForStderr("reload refused"), "\(host.stderr)")
            #expect(host.stderr.contains("a new version of a Swift library the host holds"), "\(host.stderr)")
        }
        try scratch.spool.drop("m1", #"{"message_id":"m1","data":{"rx_gcm_key_target":"inbox"}}"#)
        #expect(eventually(timeout: .seconds(20)) { (try? scratch.reportLines().count) == 1 }, "\(host.stderr)")
        #expect(host.stop() == .status(0), "\(host.stderr)")
    }

    // MARK: Helpers

    /// Drops the message `id` into the spool and waits for its report line.
    private func deliver(_ id: String, through host: HostProcess, scratch: Scratch) throws {
        let before = (try? scratch.reportLines().count) ?? 0
        try scratch.spool.drop(id, #"{"message_id":"\#(id)","data":{}}"#)
        let handled = eventually(timeout: .seconds(20)) { (try? scratch.reportLines().count) == before + 1 }
        try #require(handled, "\(id) was not handled:\n\(host.stderr)")
    }

    /// The plugins that got the data call of `id`, as `NAME VERSION TAG`, sorted.
    private func instances(of id: String, in folder: PluginFolder) -> [String] {
        folder.calls.filter { $0.id == id && $0.handler == "data" }.map(\.instance).sorted()
    }

    /// The plugins' `create` and `destroy` lines, in order.
    private func lifecycle(_ folder: PluginFolder) -> [String] {
        let text = (try? String(contentsOfFile: folder.log, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { $0.hasSuffix(" create") || $0.hasSuffix(" destroy") }
    }
}
