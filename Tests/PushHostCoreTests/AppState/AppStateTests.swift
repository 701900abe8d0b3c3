import Foundation
import Testing
@testable import PushHostIsolation
@testable import PushHostPipeline
@testable import PushHostJSON
@testable import PushHostRecords
@testable import PushHostSystem

/// The app state as host events change it: the visible screens, and the
/// stored token with the token plugins told only of a new one.
@Suite("App state: screens shown, tokens stored")
struct AppStateTests {
    typealias Calls = @convention(c) () -> Int32
    typealias Text = @convention(c) () -> UnsafePointer<CChar>

    /// A screen plugin named NAME, its targets TARGETS, that also plays the
    /// token role: it counts its on_token calls and keeps the last token
    /// and previous token it got (`-` for none).
    static let screen = #"""
        #include <pushhost.h>
        #include <stdio.h>

        static int calls;
        static char token[256] = "-", previous[256] = "-";
        static const char *const targets[] = { TARGETS, NULL };

        static void *create(const ph_host *h, const ph_config *config) { (void)config; return (void *)h; }
        static void destroy(void *self) { (void)self; }
        static void on_target(void *self, const ph_message *m) { (void)self; (void)m; }
        static void on_token(void *self, const char *t, const char *p) {
            (void)self;
            calls++;
            snprintf(token, sizeof token, "%s", t);
            snprintf(previous, sizeof previous, "%s", p ? p : "-");
        }

        PH_EXPORT int token_calls(void) { return calls; }
        PH_EXPORT const char *last_token(void) { return token; }
        PH_EXPORT const char *previous_token(void) { return previous; }

        static const ph_plugin plugin = {
            PH_PLUGIN_HEADER, .name = NAME, .version = "1.0.0", .create = create, .destroy = destroy,
            .on_target = on_target, .targets = targets, .on_token = on_token,
        };

        PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
        """#

    /// The stages with the screens `inbox` (targets mail, chat) and `orders` (target order).
    static func stages(in folder: TestFolder, foreground: [String]? = nil) throws -> Stages {
        var options = RunOptions()
        options.foreground = foreground
        return try Stages([
            folder.plugin("inbox", screen, flags: [#"-DNAME="inbox""#, #"-DTARGETS="mail", "chat""#]),
            folder.plugin("orders", screen, flags: [#"-DNAME="orders""#, #"-DTARGETS="order""#]),
        ], in: folder, options: options)
    }

    // MARK: Screens

    @Test("show makes the named screens visible, top first; none is the background")
    func show() throws {
        let folder = try TestFolder()
        let stages = try Self.stages(in: folder)
        let app = stages.pipeline.app
        #expect(app.visible.isEmpty && app.visibleNames.isEmpty, "no --foreground: the app starts in the background")

        let status = try app.show(["orders", "inbox"])
        #expect(status.word == "applied")
        #expect(app.visibleNames == ["orders", "inbox"])
        #expect(app.visible.screens.count == 2)
        #expect("chat".utf8.withContiguousStorageIfAvailable { app.visible.claiming(UnsafeRawBufferPointer($0)) } == 1)
        #expect("order".utf8.withContiguousStorageIfAvailable { app.visible.claiming(UnsafeRawBufferPointer($0)) } == 0)

        _ = try app.show([])
        #expect(app.visible.isEmpty && app.visibleNames.isEmpty)
    }

    @Test("an unknown screen is rejected, names the loaded ones, and changes nothing", arguments: [
        ["nope"], ["inbox", "nope"], ["inbox\"\n"], [""],
    ])
    func unknownScreen(_ names: [String]) throws {
        let folder = try TestFolder()
        let stages = try Self.stages(in: folder, foreground: ["inbox"])
        let app = stages.pipeline.app
        let unknown = names.last!
        let error = #expect(throws: RecordError.self) { try app.show(names) }
        #expect(error?.event == .foreground)
        #expect(error?.reason == "no screen plugin is named \"\(unknown)\" (screens: inbox, orders)")
        #expect(app.visibleNames == ["inbox"], "a rejected event leaves the screens as they were")
    }

    @Test("an unknown --foreground screen is a setup error")
    func unknownForeground() throws {
        let folder = try TestFolder()
        let error = #expect(throws: SetupError.self) { try Self.stages(in: folder, foreground: ["orders", "ghost"]) }
        #expect(error.map { "\($0)" } == "--foreground ghost: no screen plugin is named \"ghost\" (screens: inbox, orders)")
    }

    // MARK: Tokens

    @Test("a new token is stored and every token plugin told; the same token calls nobody; null removes it")
    func store() throws {
        let folder = try TestFolder()
        let stages = try Self.stages(in: folder)
        let app = stages.pipeline.app
        let source = RecordSource.stdin(line: 1)
        let inboxCalls = try stages.function("inbox", "token_calls", as: Calls.self)
        let ordersCalls = try stages.function("orders", "token_calls", as: Calls.self)
        let last = try stages.function("inbox", "last_token", as: Text.self)
        let previous = try stages.function("inbox", "previous_token", as: Text.self)
        let file = folder.path + "/state/token"

        #expect(app.store(TokenEvent(token: "T1"), source: source).word == "stored")
        #expect(inboxCalls() == 1 && ordersCalls() == 1)
        #expect(String(cString: last()) == "T1" && String(cString: previous()) == "-")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "T1\n")

        #expect(app.store(TokenEvent(token: "T1"), source: source).word == "unchanged")
        #expect(inboxCalls() == 1 && ordersCalls() == 1, "the same token again calls nobody")

        let hostile = "T2\"\n\u{2028}é"
        #expect(app.store(TokenEvent(token: hostile), source: source).word == "stored")
        #expect(inboxCalls() == 2 && ordersCalls() == 2)
        #expect(String(cString: last()) == hostile && String(cString: previous()) == "T1")
        #expect(app.store(TokenEvent(token: hostile), source: source).word == "unchanged")

        let keys = SubscriptionKeys(p256dh: "BCVx", auth: "BTBZ")
        #expect(app.store(TokenEvent(token: hostile, keys: keys), source: source).word == "stored")
        #expect(inboxCalls() == 2, "new keys for the same token are stored, and nobody is told")
        #expect(try TokenStore.keys(folder.path + "/state/token.keys") == keys)

        #expect(app.store(TokenEvent(token: nil), source: source).word == "removed")
        #expect(!FileManager.default.fileExists(atPath: file))
        #expect(app.store(TokenEvent(token: nil), source: source).word == "unchanged", "nothing left to remove")
        #expect(inboxCalls() == 2, "no token plugin hears of a removal")
    }

    @Test("a token with a NUL or a line break is rejected, and nobody is told")
    func tokenWithControlCharacter() throws {
        let folder = try TestFolder()
        let stages = try Self.stages(in: folder)
        let calls = try stages.function("inbox", "token_calls", as: Calls.self)
        stages.take(#"{"pushhost":"token","token":"T\u0000x"}"#, line: 1)
        stages.take(#"{"pushhost":"token","token":"T\nx"}"#, line: 2)
        let lines = try stages.reportLines()
        #expect(lines.count == 2)
        #expect(lines.allSatisfy { $0.contains(#""status":"rejected""#) && $0.contains("control character") }, "\(lines)")
        #expect(calls() == 0)
    }

    @Test("a token that cannot be stored fails the event, says why, and tells nobody")
    func storeFails() throws {
        let folder = try TestFolder()
        let stages = try Self.stages(in: folder)
        let calls = try stages.function("inbox", "token_calls", as: Calls.self)
        // The token's file is a folder now: the atomic write cannot replace it.
        try FileManager.default.createDirectory(atPath: folder.path + "/state/token", withIntermediateDirectories: true)
        let status = stages.pipeline.app.store(TokenEvent(token: "T1"), source: .stdin(line: 4))
        guard case .failed(let reason) = status else {
            Issue.record("expected failed, got \(status.word)")
            return
        }
        #expect(reason.contains("/state/token"), "the reason names the file: \(reason)")
        #expect(status.result == .retry)
        #expect(calls() == 0)
    }
}
