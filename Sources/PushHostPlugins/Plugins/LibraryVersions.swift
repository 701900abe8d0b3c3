#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import PushHostSystem

/// Opens shared libraries so that a new version of a file reaches this
/// process (a reload after an upgrade), although the dynamic loader
/// hands back the library it already mapped under a path, whatever is at
/// that path now.
///
/// The first version of a path is opened by its path. A later version
/// (another ``FileStamp``) is copied into a memory file and opened there,
/// under a name no other library had (the memory file stays open), once
/// per version; and a copy apart when asked for. A Swift library's new
/// version is refused: the Swift runtime cannot hold two copies of one
/// library's types.
///
/// Every library is opened with `RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE`
/// and never closed.
package enum LibraryVersions {
    private static let opened = Mutex<[String: [(stamp: FileStamp, handle: UInt)]]>([:])

    /// Why a library could not be opened.
    package enum Failure: Error {
        /// `dlopen`'s words.
        case notLoadable(String)
        /// A Swift library with another version than the one this process holds.
        case swiftChanged
    }

    /// The handle of the version of `path` now on disk (a bare name: the
    /// system's search, by name alone). `apart`: a copy of its own, with
    /// its own globals, when the process holds the file already (a plugin
    /// made again at a reload while its last instance lives); a Swift
    /// library has one copy, shared.
    package static func open(_ path: String, apart: Bool = false) throws(Failure) -> UnsafeMutableRawPointer {
        guard path.contains("/"), let stamp = FileStamp(path) else { return try load(path) }
        let known = opened.withLock { $0[path] ?? [] }
        if apart, !known.isEmpty, SwiftToolchain(file: path) == nil { return try loadCopy(of: path) }
        if let same = known.first(where: { $0.stamp == stamp }) { return UnsafeMutableRawPointer(bitPattern: same.handle)! }
        let handle: UnsafeMutableRawPointer
        if known.isEmpty {
            handle = try load(path)
        } else {
            guard SwiftToolchain(file: path) == nil else { throw .swiftChanged }
            handle = try loadCopy(of: path)
        }
        let address = UInt(bitPattern: handle)
        opened.withLock { $0[path, default: []].append((stamp, address)) }
        return handle
    }

    private static func load(_ name: String) throws(Failure) -> UnsafeMutableRawPointer {
        guard let handle = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else { throw .notLoadable(lastError()) }
        return handle
    }

    /// Opens a copy of `path` made in a memory file, named by its descriptor.
    private static func loadCopy(of path: String) throws(Failure) -> UnsafeMutableRawPointer {
        let source = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else { throw .notLoadable("\(path): \(String(cString: strerror(errno)))") }
        defer { close(source) }
        guard let copy = MemoryFile.make(name: "pushhost-library") else { throw .notLoadable("memfd_create: \(String(cString: strerror(errno)))") }
        var info = stat()
        var left = fstat(source, &info) == 0 ? Int(info.st_size) : 0
        while left > 0 {
            let count = sendfile(copy, source, nil, left)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                close(copy)
                throw .notLoadable("a copy of \(path): \(count < 0 ? String(cString: strerror(errno)) : "it ended early")")
            }
            left -= count
        }
        // The memory file stays open: its name is then never another library's.
        return try load("/proc/self/fd/\(copy)")
    }

    private static func lastError() -> String {
        dlerror().map { String(cString: $0) } ?? "dlopen failed"
    }
}
