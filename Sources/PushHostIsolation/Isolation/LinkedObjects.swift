#if canImport(Glibc)
import Glibc
import PushHostPlugins
#endif

/// The shared objects a plugin's library links from its own folder: what
/// its walls let it read there, and nothing else beside it (another
/// plugin's library, a settings file).
///
/// Read from the library's ELF dynamic section (its `DT_NEEDED` names, and
/// its `DT_RUNPATH` or `DT_RPATH` folders with `$ORIGIN`), then from each
/// object found, so that what those link comes too. An object is one of its
/// folder (or a folder beneath it that a run path names) that is itself a
/// 64-bit ELF file; names found elsewhere (the system's libraries) are
/// granted with the system's folders. The file is the plugin's, so every
/// offset in it is checked against its size; a file that is not such an
/// ELF file links nothing. An ffi manifest links the libraries it names
/// from its folder, and what they link.
enum LinkedObjects {
    /// The plugin file `file` (a library or an ffi manifest) and what it links.
    static func ofPlugin(_ file: String) -> [String] {
        guard file.hasSuffix(FFIManifest.suffix) else { return of(file) }
        guard let manifest = try? FFIManifest.read(file) else { return [file] }
        let folder = PluginCatalog.directory(of: file)
        let functions = [manifest.initFunction, manifest.finiFunction].compactMap { $0 } + manifest.handlers.map(\.function)
        let named = Set(functions.map(\.library) + [manifest.library].compactMap { $0 })
        // Those it names in its folder (a link there is the operator's to make), not a path out of it.
        let libraries = named.map { FFILibraries.locate($0, folder: folder) }.filter { path in
            path.hasPrefix(folder + "/") && !path.split(separator: "/").contains("..")
        }
        return [file] + libraries.sorted().flatMap(of)
    }


    /// `file` and the objects it links from its folder, transitively.
    static func of(_ file: String) -> [String] {
        let folder = PluginCatalog.realPath(PluginCatalog.directory(of: file)) ?? PluginCatalog.directory(of: file)
        var found = [file]
        var pending = [file]
        while let next = pending.popLast(), found.count < 64 {
            guard let links = read(next) else { continue }
            let origin = PluginCatalog.realPath(PluginCatalog.directory(of: next)) ?? folder
            let searched = [folder] + links.runPaths.compactMap { within(folder, expanded($0, origin: origin)) }
            for name in links.needed where !name.contains("/") {
                guard let object = searched.map({ $0 + "/" + name }).first(where: isObject), !found.contains(object) else { continue }
                found.append(object)
                pending.append(object)
            }
        }
        return found
    }

    /// A run path with its leading `$ORIGIN` (or `${ORIGIN}`) made `origin`.
    private static func expanded(_ path: String, origin: String) -> String {
        for token in ["$ORIGIN", "${ORIGIN}"] where path.hasPrefix(token) { return origin + path.dropFirst(token.count) }
        return path
    }

    /// `path` by its real path when that is `folder` or beneath it, else nil.
    private static func within(_ folder: String, _ path: String) -> String? {
        guard let real = PluginCatalog.realPath(path), real == folder || real.hasPrefix(folder + "/") else { return nil }
        return real
    }

    /// Whether `path` is a regular file that starts as a 64-bit ELF file does.
    private static func isObject(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return false }
        return read(path) != nil
    }

    /// What a library's dynamic section names.
    struct DynamicNames {
        var needed: [String] = []
        var runPaths: [String] = []
    }

    /// The `DT_NEEDED` names and run paths of the 64-bit little-endian ELF
    /// file at `path`, or nil when it is not one (or is malformed).
    static func read(_ path: String) -> DynamicNames? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        let file = ELFFile(fd: fd, size: UInt64(info.st_size))
        guard let header = file.bytes(at: 0, count: 64), header[0..<6] == [0x7f, 0x45, 0x4c, 0x46, 2, 1] else { return nil }
        let programs = ELFFile.u64(header, 0x20), entrySize = UInt64(ELFFile.u16(header, 0x36)), count = UInt64(ELFFile.u16(header, 0x38))
        guard entrySize >= 56, count <= 4096 else { return nil }
        var loads: [(address: UInt64, offset: UInt64, size: UInt64)] = []
        var dynamic: (offset: UInt64, size: UInt64)?
        for index in 0..<count {
            guard let entry = file.bytes(at: programs &+ index &* entrySize, count: 56) else { return nil }
            switch ELFFile.u32(entry, 0) {
            case 1: loads.append((ELFFile.u64(entry, 16), ELFFile.u64(entry, 8), ELFFile.u64(entry, 32)))
            case 2: dynamic = (ELFFile.u64(entry, 8), ELFFile.u64(entry, 32))
            default: continue
            }
        }
        guard let dynamic, dynamic.size <= 1 << 20, let entries = file.bytes(at: dynamic.offset, count: Int(dynamic.size)) else { return DynamicNames() }
        var needed: [UInt64] = [], runPaths: [UInt64] = []
        var table: UInt64?, tableSize: UInt64 = 0
        for start in stride(from: 0, to: entries.count - 15, by: 16) {
            let tag = ELFFile.u64(entries, start), value = ELFFile.u64(entries, start + 8)
            switch tag {
            case 0: break
            case 1: needed.append(value)
            case 5: table = value
            case 10: tableSize = value
            case 15, 29: runPaths.append(value)
            default: continue
            }
            if tag == 0 { break }
        }
        // The string table's address, as a file offset.
        guard let table, tableSize <= 1 << 24,
              let load = loads.first(where: { table >= $0.address && table - $0.address < $0.size }),
              let strings = file.bytes(at: load.offset &+ (table - load.address), count: Int(tableSize))
        else { return DynamicNames() }
        func string(_ offset: UInt64) -> String? {
            guard offset < UInt64(strings.count) else { return nil }
            let start = Int(offset)
            let end = strings[start...].firstIndex(of: 0) ?? strings.endIndex
            return String(decoding: strings[start..<end], as: UTF8.self)
        }
        return DynamicNames(needed: needed.compactMap(string), runPaths: runPaths.compactMap(string).flatMap { $0.split(separator: ":").map(String.init) })
    }
}

/// Bounded reads of an open file.
private struct ELFFile {
    let fd: Int32
    let size: UInt64

    /// `count` bytes at `offset`, or nil when they are not all in the file.
    func bytes(at offset: UInt64, count: Int) -> [UInt8]? {
        guard count >= 0, offset <= size, UInt64(count) <= size - offset else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + filled, count - filled, off_t(offset) + off_t(filled)) }
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { return nil }
            filled += read
        }
        return bytes
    }

    static func u16(_ bytes: [UInt8], _ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
    static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 { (0..<4).reduce(0) { $0 | UInt32(bytes[at + $1]) << (8 * $1) } }
    static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 { (0..<8).reduce(0) { $0 | UInt64(bytes[at + $1]) << (8 * $1) } }
}
