#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem

/// The plugin files to load, in load order.
///
/// Every `--plugins DIR` in the order given, each directory's `*.so`
/// files, ffi manifests (`*.ffi.json`) and process manifests
/// (`*.process.json`) in byte order of their names (hidden files left
/// out), then every `--plugin FILE`, then every `--ffi FILE`, then every
/// `--process FILE`, in the order given.
package struct PluginFiles: Sendable {
    package var directories: [String]
    package var files: [String]
    package var manifests: [String]
    package var processes: [String]

    package init(directories: [String] = [], files: [String] = [], manifests: [String] = [], processes: [String] = []) {
        self.directories = directories
        self.files = files
        self.manifests = manifests
        self.processes = processes
    }

    /// The paths in load order; a directory that cannot be read is a setup error.
    package func paths() throws(SetupError) -> [String] {
        var paths: [String] = []
        for directory in directories {
            paths += try Self.sharedLibraries(in: directory)
        }
        for process in processes where !process.hasSuffix(ProcessManifest.suffix) {
            throw SetupError("--process \(process): a process manifest is named NAME\(ProcessManifest.suffix)")
        }
        return paths + files + manifests + processes
    }

    private static func sharedLibraries(in directory: String) throws(SetupError) -> [String] {
        guard let stream = opendir(directory) else {
            throw SetupError("plugin directory \(directory): \(String(cString: strerror(errno)))")
        }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                Array(bytes.prefix { $0 != 0 })
            }
            guard name.first != UInt8(ascii: "."),
                  name.count > 3 && name.suffix(3).elementsEqual(".so".utf8)
                    || name.count > 9 && name.suffix(9).elementsEqual(FFIManifest.suffix.utf8)
                    || name.count > 13 && name.suffix(13).elementsEqual(ProcessManifest.suffix.utf8)
            else {
                continue
            }
            names.append(name)
        }
        names.sort { $0.lexicographicallyPrecedes($1) }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        return names.map { prefix + String(decoding: $0, as: UTF8.self) }
    }
}
