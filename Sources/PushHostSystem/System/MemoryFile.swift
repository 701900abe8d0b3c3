#if canImport(Glibc)
import Glibc
#endif

/// A file in memory (`memfd_create`, close-on-exec, sealable): what the
/// host hands a worker to map or read.
package enum MemoryFile {
    /// A new one named `name` (as `/proc/PID/fd` shows it), or nil when the system refuses one.
    package static func make(name: String) -> Int32? {
        typealias MemfdCreate = @convention(c) (UnsafePointer<CChar>, UInt32) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "memfd_create") else { return nil }
        let flags: UInt32 = 1 /* MFD_CLOEXEC */ | 2 /* MFD_ALLOW_SEALING */
        let fd = name.withCString { unsafeBitCast(symbol, to: MemfdCreate.self)($0, flags) }
        return fd >= 0 ? fd : nil
    }
}
