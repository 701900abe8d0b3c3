import Foundation
import Testing

/// `make deb`, run once per test process after `make install`'s build, in
/// the same scratch folder (its release build is the packages'), into
/// `<root>/debs`.
struct DebianPackages: Sendable {
    /// Each package's file, by package name.
    let files: [String: String]
    /// What `make deb` printed.
    let output: String

    static let names = ["pushhost", "pushhost-dev", "pushhost-samples", "pushhost-desktop", "pushhost-unifiedpush", "pushhost-nats"]

    /// On CI always; elsewhere when dpkg-deb and the transports' libraries are there.
    static let canBuild = onPath("dpkg-deb") && onPath("dpkg-shlibdeps") && onPath("patchelf")
        && TransportBuild.canRun(libraries: ["libnats", "libsystemd", "libcurl", "libcrypto"], programs: [])

    static func shared() async throws -> DebianPackages { try await made.value }

    private static let made = Task<DebianPackages, any Error> {
        let installed = try await Installation.shared()
        return try await onOwnThread {
            let folder = installed.root + "/debs"
            let made = try Installation.make(["deb", "DEBDIR=\(folder)"], scratch: installed.scratch)
            var files: [String: String] = [:]
            for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasSuffix(".deb") {
                files[String(file.prefix { $0 != "_" })] = folder + "/" + file
            }
            return DebianPackages(files: files, output: made.stdout + made.stderr)
        }
    }

    /// `dpkg-deb -f FILE FIELD`.
    func field(_ package: String, _ name: String) throws -> String {
        let file = try #require(files[package], "no \(package) package: \(files)")
        return try Command.run("dpkg-deb", ["-f", file, name]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every package unpacked (`dpkg-deb -x`) into `root`.
    func unpack(into root: String) throws {
        for name in Self.names {
            let file = try #require(files[name])
            let unpacked = try Command.run("dpkg-deb", ["-x", file, root])
            try #require(unpacked.status == 0, "\(unpacked.stderr)")
        }
    }
}
