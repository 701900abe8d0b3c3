import CPushHost
import Testing
@testable import PushHostPipeline
@testable import PushHostPort
@testable import PushHostPlugins
@testable import PushHostRecords
@testable import PushHostJSON
@testable import PushHostSystem

/// The UI route as a pure choice, without plugins or processes: app state
/// (background, or the visible screens top first) × the screens' targets
/// and handlers × the message's target → exactly one route.
@Suite struct UIRouteTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let label: String
        /// The visible screens, top first; empty: the app is in the background.
        let visible: [String]
        let target: String?
        let hasBackground: Bool
        let route: Route

        var testDescription: String { label }
    }

    /// s1 claims a; s2 claims b and c; s3 claims d and has no mismatch
    /// handler; s4 claims e and has no target handler.
    static var screens: [String: VisibleScreens.Screen] { [
        "s1": screen("s1", ["a"]),
        "s2": screen("s2", ["b", "c"]),
        "s3": screen("s3", ["d"], mismatch: false),
        "s4": screen("s4", ["e"], target: false),
    ] }

    static func screen(_ name: String, _ targets: [String], target: Bool = true, mismatch: Bool = true) -> VisibleScreens.Screen {
        var raw = ph_plugin()
        if target { raw.on_target = { _, _ in } }
        if mismatch { raw.on_mismatch = { _, _ in } }
        return VisibleScreens.Screen(name: name, targets: targets, handler: Handler(state: nil, raw: raw, plugin: 0, handlers: PluginHandler.filled(in: raw)))
    }

    static let cases: [Case] = [
        Case(label: "background, with background plugins", visible: [], target: "a", hasBackground: true, route: .background),
        Case(label: "background, without a target", visible: [], target: nil, hasBackground: true, route: .background),
        Case(label: "background, no background plugin", visible: [], target: "a", hasBackground: false, route: .none),
        Case(label: "the only screen claims it", visible: ["s1"], target: "a", hasBackground: true, route: .target(screen: 0)),
        Case(label: "the second screen claims it", visible: ["s1", "s2"], target: "c", hasBackground: false, route: .target(screen: 1)),
        Case(label: "order decides the position", visible: ["s2", "s1"], target: "a", hasBackground: false, route: .target(screen: 1)),
        Case(label: "nobody claims it: top mismatch", visible: ["s1", "s2"], target: "x", hasBackground: true, route: .mismatch),
        Case(label: "no target: top mismatch", visible: ["s2", "s1"], target: nil, hasBackground: true, route: .mismatch),
        Case(label: "a prefix is no match", visible: ["s1"], target: "aa", hasBackground: false, route: .mismatch),
        Case(label: "an empty target matches nobody", visible: ["s1"], target: "", hasBackground: false, route: .mismatch),
        Case(label: "top without mismatch handler", visible: ["s3", "s1"], target: "x", hasBackground: true, route: .none),
        Case(label: "lower screen claims past a top without mismatch", visible: ["s3", "s1"], target: "a", hasBackground: false, route: .target(screen: 1)),
        Case(label: "claiming screen without target handler", visible: ["s4", "s1"], target: "e", hasBackground: true, route: .none),
        Case(label: "top without target handler, mismatch", visible: ["s4"], target: "x", hasBackground: false, route: .mismatch),
        Case(label: "first claimer wins over a later one", visible: ["s2", "s1", "s2"], target: "b", hasBackground: false, route: .target(screen: 0)),
    ]

    @Test(arguments: cases)
    func route(_ test: Case) {
        let visible = VisibleScreens(test.visible.map { Self.screens[$0]! })
        defer { visible.deallocate() }
        let route = withTarget(test.target) { UIRoute.choose(target: $0, screens: visible, hasBackground: test.hasBackground) }
        #expect(route == test.route)
    }

    @Test func wordsTheReportUses() {
        #expect([Route.background, .target(screen: 2), .mismatch, .none].map(\.word) == ["background", "target", "mismatch", "none"])
    }

    private func withTarget<R>(_ target: String?, _ body: (UnsafeRawBufferPointer?) -> R) -> R {
        guard let target else { return body(nil) }
        return Array(target.utf8).withUnsafeBytes { body($0) }
    }
}
