import CPushHost

/// One created plugin: its descriptor, its own `ph_host`, and the state its
/// `create` returned, which every handler receives first.
final class PluginInstance {
    let file: String
    let descriptor: PluginDescriptor
    let context: PluginContext
    let config: PluginConfig
    let host: UnsafePointer<ph_host>
    private(set) var state: UnsafeMutableRawPointer?

    /// The targets of a foreground plugin, as UTF-8, for matching.
    private let targets: [[UInt8]]

    var name: String { descriptor.name }
    var roles: [PluginRole] { descriptor.roles }

    init(file: String, descriptor: PluginDescriptor, context: PluginContext, config: PluginConfig) {
        self.file = file
        self.descriptor = descriptor
        self.context = context
        self.config = config
        self.host = HostTable.make(for: context)
        self.targets = descriptor.targets.map { Array($0.utf8) }
    }

    /// Whether this screen's targets hold `target` (UTF-8).
    func claims(_ target: UnsafeRawBufferPointer) -> Bool {
        targets.contains { $0.elementsEqual(target) }
    }

    /// Calls `create`; a plugin without one has no state and always succeeds.
    func create() throws(PluginRefusal) {
        guard let create = descriptor.raw.create else { return }
        guard let state = create(host, config.opaque) else { throw .createFailed }
        self.state = state
    }

    /// Calls `destroy`, once.
    func destroy() {
        descriptor.raw.destroy?(state)
        state = nil
    }

    func onData(_ message: OpaquePointer) -> ph_verdict {
        descriptor.raw.on_data!(state, message)
    }

    func onBackground(_ message: OpaquePointer) {
        descriptor.raw.on_background?(state, message)
    }

    func onTarget(_ message: OpaquePointer) {
        descriptor.raw.on_target?(state, message)
    }

    func onMismatch(_ message: OpaquePointer) {
        descriptor.raw.on_mismatch?(state, message)
    }

    func onToken(_ token: UnsafePointer<CChar>, previous: UnsafePointer<CChar>?) {
        descriptor.raw.on_token?(state, token, previous)
    }
}
