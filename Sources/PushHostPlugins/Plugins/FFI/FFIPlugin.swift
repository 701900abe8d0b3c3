#if canImport(Glibc)
import Glibc
#endif
import CPushHost
import PushHostMessage

/// A plugin made of an ffi manifest: its functions opened and prepared,
/// and a `ph_plugin` descriptor whose handlers call them, so that the rest
/// of the host (the stages, the crash journal, the watchdog, the listing)
/// sees a plugin like any other. The state its handlers receive is this
/// object.
package final class FFIPlugin {
    let manifest: FFIManifest
    /// The libraries as opened: a path, or a bare name the system found.
    let libraries: [String]
    let initFunction: FFIFunction?
    let finiFunction: FFIFunction?
    /// The handlers, in the manifest's order.
    let handlers: [(spec: FFIHandlerSpec, function: FFIFunction)]
    private let data: FFIFunction?
    private let verdicts: FFIVerdicts
    private let background: FFIFunction?
    private let screen: FFIFunction?
    private let mismatch: FFIFunction?
    private let token: FFIFunction?
    private let log: FFILog

    /// Reads the manifest at `path`, opens its libraries (`checkFile` first
    /// checks each one found by path, as a plugin file is; each a copy of
    /// its own when `apart`), finds its symbols and prepares their calls;
    /// returns its descriptor.
    package static func load(
        _ path: String, apart: Bool = false, checkFile: (String) throws(PluginRefusal) -> Void
    ) throws(PluginRefusal) -> PluginDescriptor {
        let manifest = try FFIManifest.read(path)
        let plugin = try FFIPlugin(manifest, folder: PluginCatalog.directory(of: path), apart: apart, checkFile: checkFile)
        return plugin.descriptor()
    }

    private init(_ manifest: FFIManifest, folder: String, apart: Bool, checkFile: (String) throws(PluginRefusal) -> Void) throws(PluginRefusal) {
        let log = try FFILog()
        var libraries = FFILibraries(folder: folder, apart: apart)
        func prepare(_ spec: FFIFunctionSpec) throws(PluginRefusal) -> FFIFunction {
            try FFIFunction(spec, symbol: libraries.symbol(spec, checkFile: checkFile), plugin: manifest.name, log: log.code)
        }
        initFunction = try manifest.initFunction.map { spec throws(PluginRefusal) in try prepare(spec) }
        var handlers: [(spec: FFIHandlerSpec, function: FFIFunction)] = []
        for spec in manifest.handlers { handlers.append((spec, try prepare(spec.function))) }
        finiFunction = try manifest.finiFunction.map { spec throws(PluginRefusal) in try prepare(spec) }
        func function(_ role: FFIRole) -> FFIFunction? { handlers.first { $0.spec.role == role }?.function }
        data = function(.data)
        verdicts = handlers.first { $0.spec.role == .data }?.spec.verdicts ?? .standard(for: nil)
        background = function(.background)
        screen = function(.screen)
        mismatch = function(.mismatch)
        token = function(.token)
        self.handlers = handlers
        self.libraries = libraries.opened.map(\.path)
        self.manifest = manifest
        self.log = log
    }

    // MARK: The descriptor

    private func descriptor() -> PluginDescriptor {
        var raw = ph_plugin()
        raw.struct_size = UInt32(MemoryLayout<ph_plugin>.size)
        raw.abi_major = HostABI.major
        raw.abi_minor = HostABI.minor
        raw.destroy = { FFIPlugin.with($0) { $0.stop() } }
        if data != nil { raw.on_data = { state, message in FFIPlugin.with(state) { $0.onData(message) } } }
        if background != nil { raw.on_background = { state, message in FFIPlugin.with(state) { _ = $0.background!.call(message) } } }
        if screen != nil { raw.on_target = { state, message in FFIPlugin.with(state) { _ = $0.screen!.call(message) } } }
        if mismatch != nil { raw.on_mismatch = { state, message in FFIPlugin.with(state) { _ = $0.mismatch!.call(message) } } }
        if token != nil { raw.on_token = { state, token, previous in FFIPlugin.with(state) { $0.token!.call(token: token, previous: previous) } } }
        let roles = PluginRole.roles(of: raw)
        return PluginDescriptor(
            raw: raw, abiMajor: HostABI.major, abiMinor: HostABI.minor,
            name: manifest.name, version: manifest.version, summary: manifest.summary,
            targets: handlers.first { $0.spec.role == .screen }?.spec.targets ?? [], roles: roles, extensions: [], ffi: self)
    }

    /// Runs `body` with the plugin a handler's state is, without a
    /// reference count (the plugin lives as long as the process).
    @inline(__always)
    private static func with<Result>(_ state: UnsafeMutableRawPointer?, _ body: (FFIPlugin) -> Result) -> Result {
        Unmanaged<FFIPlugin>.fromOpaque(state!)._withUnsafeGuaranteedRef(body)
    }

    /// The data handler's verdict: its return value through the manifest's
    /// map; failed, with the reason on the message, when an argument does
    /// not fit or the map says so.
    private func onData(_ message: OpaquePointer) -> ph_verdict {
        guard let bits = data!.call(message) else { return PH_FAILED }
        let verdict = verdicts.verdict(for: bits)
        if verdict == PH_FAILED {
            Message.noteProblem(message, "\(manifest.name): \(data!.spec.symbol) returned \(Self.text(bits, data!.spec.returns)) (verdict failed)")
        }
        return verdict
    }

    /// A return value as C would print it.
    private static func text(_ bits: UInt64, _ type: FFIType?) -> String {
        switch type {
        case .bool?: bits == 0 ? "false" : "true"
        case let type? where type.isSignedInteger: String(Int64(bitPattern: bits))
        default: String(bits)
        }
    }

    // MARK: Start and stop

    /// Calls `init`, and returns the state every handler receives; a failed
    /// `init` is logged under the plugin's name and refuses the plugin.
    func start(host: UnsafePointer<ph_host>) throws(PluginRefusal) -> UnsafeMutableRawPointer {
        log.host = host
        if let initFunction {
            let bits = initFunction.call()
            let succeeded = initFunction.spec.returns == .bool ? bits != 0 : bits == 0
            guard succeeded else {
                PluginContext.of(host).logger.error("\(initFunction.spec.symbol) returned \(Self.text(bits, initFunction.spec.returns))")
                throw .createFailed
            }
        }
        return Unmanaged.passUnretained(self).toOpaque()
    }

    /// Calls `fini`.
    private func stop() {
        _ = finiFunction?.call()
    }
}
