import CPushHost
import Logging

/// A plugin that offers `ph.interceptor/1`, as the dispatch thread calls it:
/// plain values, so that a call takes no reference count.
struct InterceptorPlugin {
    let interceptor: InterceptorName
    let logger: Logger
    /// The plugin's number in load order, as the crash journal names it.
    let index: Int32
    private let state: UnsafeMutableRawPointer?
    private let intercept: @convention(c) (UnsafeMutableRawPointer?, OpaquePointer) -> Void
    private let onOutcome: (@convention(c) (UnsafeMutableRawPointer?, OpaquePointer, UnsafePointer<CChar>) -> Void)?

    var name: String { interceptor.name }
    var hasOnOutcome: Bool { onOutcome != nil }

    /// The interceptor `plugin` offers, nil when it offers none; its
    /// `on_outcome` only when the table it offers is large enough to hold one.
    ///
    /// - Throws: when the table is too small to hold `intercept`, or lacks it.
    init?(_ plugin: PluginInstance) throws(SetupError) {
        guard let offered = plugin.plugInExtension(PH_EXT_INTERCEPTOR) else { return nil }
        let size = Int(offered.load(as: UInt32.self))
        let interceptAt = MemoryLayout<ph_interceptor>.offset(of: \.intercept)!
        let onOutcomeAt = MemoryLayout<ph_interceptor>.offset(of: \.on_outcome)!
        guard size >= interceptAt + MemoryLayout<UnsafeRawPointer>.size else {
            throw SetupError("plugin \(plugin.name): its \(PH_EXT_INTERCEPTOR) table is \(size) bytes, too small for intercept")
        }
        guard let intercept = offered.load(fromByteOffset: interceptAt, as: ph_interceptor.InterceptFunction?.self) else {
            throw SetupError("plugin \(plugin.name): its \(PH_EXT_INTERCEPTOR) table lacks intercept")
        }
        interceptor = InterceptorName.register(plugin.name)
        logger = plugin.context.logger
        index = plugin.index
        state = plugin.state
        self.intercept = intercept
        onOutcome = size >= onOutcomeAt + MemoryLayout<UnsafeRawPointer>.size
            ? offered.load(fromByteOffset: onOutcomeAt, as: ph_interceptor.OutcomeFunction?.self) : nil
    }

    func call(_ chain: OpaquePointer) {
        intercept(state, chain)
    }

    func tell(_ message: OpaquePointer, line: UnsafePointer<CChar>) {
        onOutcome?(state, message, line)
    }
}

extension ph_interceptor {
    typealias InterceptFunction = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer) -> Void
    typealias OutcomeFunction = @convention(c) (UnsafeMutableRawPointer?, OpaquePointer, UnsafePointer<CChar>) -> Void
}
