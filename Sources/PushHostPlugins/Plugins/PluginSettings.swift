#if canImport(Glibc)
import Glibc
#endif

/// A plugin's settings (its settings file, then `--set`), as the
/// `ph_config` that `config_get` reads.
///
/// Values are kept as NUL-terminated copies owned by the host for the whole
/// run, so the pointers `config_get` returns never dangle.
package final class PluginSettings: @unchecked Sendable {
    /// Immutable after init, so it can be read from any thread.
    private let values: [String: UnsafeMutablePointer<CChar>]

    package init(_ settings: [String: String]) {
        values = settings.mapValues { strdup($0)! }
    }

    /// The value of `key`, or NULL.
    func value(_ key: UnsafePointer<CChar>) -> UnsafePointer<CChar>? {
        values[String(cString: key)].map { UnsafePointer($0) }
    }

    /// The opaque pointer a plugin gets as `const ph_config *`.
    var opaque: OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
    }

    static func from(_ opaque: OpaquePointer) -> PluginSettings {
        Unmanaged<PluginSettings>.fromOpaque(UnsafeRawPointer(opaque)).takeUnretainedValue()
    }
}
