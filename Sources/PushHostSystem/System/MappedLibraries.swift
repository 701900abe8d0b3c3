#if canImport(Glibc)
import Glibc
#endif

/// The shared libraries this process has mapped, by path, as
/// `/proc/self/maps` lists them (the Swift runtime's among them, wherever
/// it was found).
package enum MappedLibraries {
    package static func paths() -> Set<String> {
        guard let maps = fopen("/proc/self/maps", "r") else { return [] }
        defer { fclose(maps) }
        var paths: Set<String> = []
        var line = [CChar](repeating: 0, count: 4096)
        while fgets(&line, Int32(line.count), maps) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard let slash = text.firstIndex(of: "/") else { continue }
            var path = String(text[slash...])
            while path.last == "\n" { path.removeLast() }
            if path.hasSuffix(".so") || path.contains(".so.") { paths.insert(path) }
        }
        return paths
    }
}
