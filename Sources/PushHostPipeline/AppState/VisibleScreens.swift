#if canImport(Glibc)
import Glibc
import PushHostPort
#endif

/// The screens the app shows, top first, as the UI route reads them: their
/// handlers and targets in memory of their own, so copying it, and matching
/// a message's target, takes no reference count and no allocation. None
/// visible means the app is in the background.
struct VisibleScreens {
    /// A screen plugin as the UI route calls it.
    struct Screen {
        let name: String
        let targets: [String]
        let handler: Handler
    }

    /// A visible screen, as matching reads it.
    struct Visible {
        let handler: Handler
        /// The UTF-8 of each target, pointing into `bytes`.
        let targets: UnsafeBufferPointer<UnsafeRawBufferPointer>
    }

    let screens: UnsafeMutableBufferPointer<Visible>
    private let spans: UnsafeMutableBufferPointer<UnsafeRawBufferPointer>
    private let bytes: UnsafeMutableRawBufferPointer

    /// The app in the background.
    init() {
        self.init([])
    }

    /// The app in the foreground, showing `shown`, top first.
    init(_ shown: [Screen]) {
        let targets = shown.map { $0.targets.map { Array($0.utf8) } }
        bytes = .allocate(byteCount: max(targets.joined().reduce(0) { $0 + $1.count }, 1), alignment: 1)
        spans = .allocate(capacity: max(targets.reduce(0) { $0 + $1.count }, 1))
        let all = UnsafeMutableBufferPointer<Visible>.allocate(capacity: max(shown.count, 1))
        var offset = 0
        var span = 0
        for (position, screen) in shown.enumerated() {
            let first = span
            for target in targets[position] {
                let place = UnsafeMutableRawBufferPointer(rebasing: bytes[offset..<offset + target.count])
                place.copyBytes(from: target)
                spans[span] = UnsafeRawBufferPointer(place)
                offset += target.count
                span += 1
            }
            let own = UnsafeBufferPointer(rebasing: spans[first..<span])
            (all.baseAddress! + position).initialize(to: Visible(handler: screen.handler, targets: own))
        }
        screens = UnsafeMutableBufferPointer(rebasing: all[..<shown.count])
    }

    var isEmpty: Bool { screens.isEmpty }

    /// The position of the first screen whose targets hold `target` (UTF-8).
    func claiming(_ target: UnsafeRawBufferPointer) -> Int? {
        for (position, screen) in screens.enumerated() {
            for candidate in screen.targets where candidate.count == target.count {
                if target.isEmpty || memcmp(candidate.baseAddress!, target.baseAddress!, target.count) == 0 { return position }
            }
        }
        return nil
    }

    func deallocate() {
        bytes.deallocate()
        spans.deallocate()
        screens.deallocate()
    }
}
