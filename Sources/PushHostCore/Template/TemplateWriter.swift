#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem

extension PluginTemplate {
    /// Writes `files` into `folder`, made for them: a folder that exists is
    /// taken only when it is empty, and no file is ever written over.
    package static func write(_ files: [TemplateFile], into folder: String) throws(SetupError) {
        try makeFolder(folder, mustBeEmpty: true)
        for file in files {
            let parts = file.path.split(separator: "/")
            var path = folder
            for part in parts.dropLast() {
                path += "/" + part
                try makeFolder(path, mustBeEmpty: false)
            }
            path += "/" + (parts.last ?? "")
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, file.executable ? 0o755 : 0o644)
            guard fd >= 0 else { throw SetupError("cannot create \(path): \(FileProblem(errno: errno))") }
            defer { close(fd) }
            guard FileContents.write(Array(file.text.utf8), to: fd) else {
                throw SetupError("cannot write \(path): \(FileProblem(errno: errno))")
            }
        }
    }

    private static func makeFolder(_ path: String, mustBeEmpty: Bool) throws(SetupError) {
        if mkdir(path, 0o755) == 0 { return }
        guard errno == EEXIST else { throw SetupError("cannot make the folder \(path): \(FileProblem(errno: errno))") }
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw SetupError("\(path) is there and is not a folder")
        }
        guard mustBeEmpty else { return }
        guard let directory = opendir(path) else { throw SetupError("cannot read the folder \(path): \(FileProblem(errno: errno))") }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != ".", name != ".." {
                throw SetupError("\(path) is there and is not empty: pushhost new writes only into a new or empty folder")
            }
        }
    }
}
