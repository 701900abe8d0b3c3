#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem

extension TemplateSDK {
    /// What the pushhost binary at `executable` comes with: installed by
    /// `make install`, the header in `PREFIX/include`, the Swift SDK's
    /// package in `PREFIX/share/pushhost/PushHostPlugin` and the process
    /// plugins' SDKs in `PREFIX/share/pushhost/sdk`; run from a build of the
    /// source tree, that tree's `include/` and `sdk/`.
    package static func beside(executable: String) -> TemplateSDK {
        var folder = parent(of: executable)
        let prefix = parent(of: folder)
        if exists(prefix + "/include/pushhost.h") {
            let package = prefix + "/share/pushhost/PushHostPlugin", programs = prefix + "/share/pushhost/sdk"
            return TemplateSDK(
                include: prefix + "/include", swiftPackage: exists(package + "/Package.swift") ? package : nil,
                programs: exists(programs) ? programs : nil)
        }
        // A build of the tree: TREE/.build/PLATFORM/CONFIGURATION/pushhost.
        while folder.count > 1 {
            if exists(folder + "/include/pushhost.h"), exists(folder + "/sdk/Package.swift") {
                return TemplateSDK(include: folder + "/include", swiftPackage: folder + "/sdk", programs: folder + "/sdk")
            }
            folder = parent(of: folder)
        }
        return TemplateSDK(include: nil, swiftPackage: nil)
    }

    /// The Swift SDK's package that `--sdk` names, as an absolute path.
    package static func swiftPackage(at path: String) throws(UsageError) -> String {
        guard let resolved = realpath(path, nil) else {
            throw UsageError("--sdk \(path): \(FileProblem(errno: errno))")
        }
        defer { free(resolved) }
        let folder = String(cString: resolved)
        guard exists(folder + "/Package.swift") else {
            throw UsageError("--sdk \(path): no Package.swift there (give the folder of the package that has PushHostPlugin)")
        }
        return folder
    }

    /// The running binary's own path, its links resolved.
    package static var currentExecutable: String? {
        guard let path = realpath("/proc/self/exe", nil) else { return nil }
        defer { free(path) }
        return String(cString: path)
    }

    private static func parent(of path: String) -> String {
        let parts = path.split(separator: "/").dropLast()
        return "/" + parts.joined(separator: "/")
    }

    private static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}
