#if canImport(Glibc)
import Glibc
#endif
import CPushHost

/// Opens a plugin file and reads its descriptor.
///
/// Libraries are opened with `RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE` and
/// never closed: a Swift plugin's runtime metadata must stay mapped, and a
/// refused library costs nothing once its handle is dropped. A new version
/// of a file opened before is opened as ``LibraryVersions`` says.
package enum PluginLibrary {
    typealias Entry = @convention(c) () -> UnsafePointer<ph_plugin>?

    /// The descriptor that `path`'s `ph_plugin_entry` returns; from a copy
    /// of the library of its own when `apart` (``LibraryVersions``).
    package static func open(_ path: String, apart: Bool = false) throws(PluginRefusal) -> PluginDescriptor {
        // dlopen searches the library path for a name without a slash.
        let openable = path.contains("/") ? path : "./" + path
        // Before it is opened: its initializers would run on the host's runtime.
        if let plugin = SwiftToolchain(file: openable), let why = plugin.mismatch(SwiftToolchain.host) { throw .otherSwift(why) }
        PrivateRuntime.loaded
        let handle: UnsafeMutableRawPointer
        do {
            handle = try LibraryVersions.open(openable, apart: apart)
        } catch {
            switch error {
            case .notLoadable(let why): throw .notLoadable(why)
            case .swiftChanged: throw .swiftChanged
            }
        }
        guard let symbol = dlsym(handle, "ph_plugin_entry") else { throw .noEntry }
        let entry = unsafeBitCast(symbol, to: Entry.self)
        guard let descriptor = entry() else { throw .entryReturnedNull }
        return try PluginDescriptor.read(UnsafeRawPointer(descriptor))
    }
}
