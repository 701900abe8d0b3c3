#if canImport(Glibc)
import Glibc
#endif

/// The libraries of one manifest, each opened once, as its functions name them.
///
/// Opened as plugin files are (``LibraryVersions``), and never closed.
package struct FFILibraries {
    /// The manifest's folder, where relative names are looked up.
    let folder: String
    /// Each library opened, in order: the path or bare name, and its handle.
    private(set) var opened: [(path: String, handle: UnsafeMutableRawPointer)] = []

    /// Whether each library is opened as a copy of its own (``LibraryVersions``).
    let apart: Bool

    init(folder: String, apart: Bool = false) {
        self.folder = folder
        self.apart = apart
    }

    /// The address of `spec`'s symbol, opening its library first if need be
    /// (`checkFile` checks a library found by path as a plugin file is).
    mutating func symbol(_ spec: FFIFunctionSpec, checkFile: (String) throws(PluginRefusal) -> Void) throws(PluginRefusal) -> UnsafeMutableRawPointer {
        guard !spec.library.isEmpty else { throw .ffi("\(spec.label): the library name is empty") }
        let path = Self.locate(spec.library, folder: folder)
        let handle: UnsafeMutableRawPointer
        if let known = opened.first(where: { $0.path == path }) {
            handle = known.handle
        } else {
            if path.contains("/") {
                do { try checkFile(path) } catch { throw .ffi("library \(path): \(error)") }
            }
            let loaded: UnsafeMutableRawPointer
            do {
                loaded = try LibraryVersions.open(path, apart: apart)
            } catch {
                switch error {
                case .notLoadable(let why): throw .ffi("library \(spec.library): not loadable: \(why)")
                case .swiftChanged: throw .ffi("library \(spec.library): \(PluginRefusal.swiftChanged)")
                }
            }
            opened.append((path, loaded))
            handle = loaded
        }
        guard let symbol = dlsym(handle, spec.symbol) else {
            throw .ffi("\(spec.label): no symbol \(spec.symbol) in \(spec.library)")
        }
        return symbol
    }

    /// Where `library` is: an absolute path as it is, a path with a `/`
    /// from the manifest's folder, a bare name beside the manifest when such
    /// a file is there, else the bare name for the system's search.
    package static func locate(_ library: String, folder: String) -> String {
        if library.hasPrefix("/") { return library }
        let beside = folder + "/" + library
        if library.contains("/") || access(beside, F_OK) == 0 { return beside }
        return library
    }
}
