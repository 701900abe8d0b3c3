#if canImport(Glibc)
import Glibc
#endif
import CPushHost

/// Builds the `ph_plugin` descriptor for `type` and returns it: the body of
/// the one function a Swift plugin exports.
///
/// ```swift
/// @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(Inbox.self) }
/// ```
///
/// The descriptor fills in the handlers of the roles `type` conforms to,
/// offers `ph.interceptor/1` for an `Interceptor` and `ph.source/1` for a
/// `SourcePlugin`, and declares them (ABI 1.2) with the host extensions they
/// use, and `ph.state/1` when `usesStateFolder`. One library exports one
/// plugin type.
public func export<P: Plugin>(_ type: P.Type) -> OpaquePointer? {
    if let exported = Exported.current { return OpaquePointer(exported.descriptor) }
    var plugin = ph_plugin()
    plugin.struct_size = UInt32(MemoryLayout<ph_plugin>.size)
    plugin.abi_major = UInt32(PH_ABI_MAJOR)
    plugin.abi_minor = UInt32(PH_ABI_MINOR)
    plugin.name = UnsafePointer(strdup(P.name))
    plugin.version = UnsafePointer(strdup(P.version))
    plugin.description = UnsafePointer(strdup(P.summary))
    plugin.create = { host, config in PluginBox.create(host: host, config: config) }
    plugin.destroy = { PluginBox.release($0) }
    if let screen = P.self as? any ScreenPlugin.Type {
        plugin.targets = nullEnded(screen.targets)
        plugin.on_target = { box, message in PluginBox.from(box).onTarget(message) }
        plugin.on_mismatch = { box, message in PluginBox.from(box).onMismatch(message) }
    }
    if P.self is any DataPlugin.Type {
        plugin.on_data = { box, message in PluginBox.from(box).onData(message) }
    }
    if P.self is any BackgroundPlugin.Type {
        plugin.on_background = { box, message in PluginBox.from(box).onBackground(message) }
    }
    if P.self is any TokenPlugin.Type {
        plugin.on_token = { box, token, previous in PluginBox.from(box).onToken(token, previous: previous) }
    }
    if P.self is any ActionPlugin.Type {
        plugin.on_action = { box, message, action, input in
            PluginBox.from(box).onAction(message, action: action, input: input)
        }
    }
    // The extensions it offers and uses, declared (ABI 1.2).
    var extensions: [String] = []
    if P.self is any Interceptor.Type { extensions += [PH_EXT_INTERCEPTOR, PH_EXT_CHAIN] }
    if P.self is any SourcePlugin.Type { extensions += [PH_EXT_SOURCE, PH_EXT_INTAKE] }
    if P.usesStateFolder { extensions.append(PH_EXT_STATE) }
    if P.usesMetrics { extensions.append(PH_EXT_METRICS) }
    plugin.extensions = nullEnded(extensions)
    if P.self is any Interceptor.Type || P.self is any SourcePlugin.Type {
        plugin.get_extension = { box, id in box.map { PluginBox.from($0).extensionTable(id) } ?? nil }
    }
    let descriptor = UnsafeMutablePointer<ph_plugin>.allocate(capacity: 1)
    descriptor.initialize(to: plugin)
    Exported.current = Exported(type: type, descriptor: descriptor)
    return OpaquePointer(descriptor)
}

/// `strings` as C strings in a NULL-ended list, kept for the life of the
/// process, as the descriptor's lists are.
private func nullEnded(_ strings: [String]) -> UnsafePointer<UnsafePointer<CChar>?> {
    let list = UnsafeMutablePointer<UnsafePointer<CChar>?>.allocate(capacity: strings.count + 1)
    for (index, string) in strings.enumerated() { list[index] = UnsafePointer(strdup(string)) }
    list[strings.count] = nil
    return UnsafePointer(list)
}

/// The plugin type this library exports, and its descriptor (kept for the
/// life of the process, as the ABI asks).
struct Exported {
    nonisolated(unsafe) static var current: Exported?

    let type: any Plugin.Type
    let descriptor: UnsafeMutablePointer<ph_plugin>
}
