import Foundation
import Testing

/// pushhost as `make install` installs it: the Makefile at the package root
/// run once per test process, with a release build in a scratch folder of
/// its own (`swift test` holds the lock of the package's `.build`), into
/// `<root>/usr`. The folder is removed when the process exits.
///
/// The build takes a minute or two, so it runs on a thread of its own (not
/// one of the few threads of the cooperative pool, which the other tests
/// need), at the lowest CPU priority, and every test that needs it awaits it.
struct Installation: Sendable {
    /// The folder holding everything: `usr/` (the prefix), `scratch/` (the
    /// release build), and whatever the tests add.
    let root: String
    /// How long `make install` took, build included.
    let duration: Duration

    var prefix: String { root + "/usr" }
    var scratch: String { root + "/scratch" }
    var pushhost: String { prefix + "/bin/pushhost" }
    var pluginsdir: String { prefix + "/lib/pushhost/plugins" }
    var samplesdir: String { prefix + "/lib/pushhost/samples" }
    var swiftlibdir: String { prefix + "/lib/pushhost/swift" }
    var pkgconfigdir: String { prefix + "/lib/pkgconfig" }
    var man1dir: String { prefix + "/share/man/man1" }
    var systemUnit: String { prefix + "/lib/systemd/system/pushhost.service" }
    var userUnit: String { prefix + "/lib/systemd/user/pushhost.service" }

    /// The installation, made on first use; a failed `make install` fails
    /// every test that asks.
    static func shared() async throws -> Installation { try await made.value }

    private static let made = Task<Installation, any Error> {
        try await onOwnThread {
            let temporary = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("pushhost-install-XXXXXX")
            var template = Array(temporary.path.utf8CString)
            guard let folder = mkdtemp(&template) else { throw CocoaError(.fileWriteUnknown) }
            let root = String(cString: folder)
            InstallationCleanup.root = root
            atexit { InstallationCleanup.remove() }
            let start = ContinuousClock.now
            try make(["install", "PREFIX=\(root)/usr"], scratch: root + "/scratch")
            return Installation(root: root, duration: ContinuousClock.now - start)
        }
    }

    /// Runs `make -C <package root> ARGUMENTS SCRATCH=scratch` at the lowest
    /// CPU priority; throws with make's output when it fails.
    @discardableResult
    static func make(_ arguments: [String], scratch: String) throws -> Command {
        let result = try Command.run(
            "nice", ["-n", "19", "make", "-C", Paths.packageRoot.path] + arguments + ["SCRATCH=\(scratch)"])
        guard result.status == 0 else {
            throw MakeError(arguments: arguments, output: result.stdout + result.stderr)
        }
        return result
    }

    /// `pkg-config ARGUMENTS pushhost` against the installed .pc file.
    func pkgConfig(_ arguments: [String]) throws -> Command {
        try Command.run("pkg-config", arguments + ["pushhost"], environment: ["PKG_CONFIG_PATH": pkgconfigdir])
    }
}

/// The installation's folder, removed at exit (no test may still use it then).
private enum InstallationCleanup {
    nonisolated(unsafe) static var root: String?

    static func remove() {
        if let root { try? FileManager.default.removeItem(atPath: root) }
    }
}

struct MakeError: Error, CustomStringConvertible {
    let arguments: [String]
    let output: String
    var description: String { "make \(arguments.joined(separator: " ")) failed:\n\(output)" }
}

/// Runs `body`, which blocks, on a thread of its own, and awaits its result.
func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try body() }) }.start()
    }
}

/// Whether `program` is on PATH.
func onPath(_ program: String) -> Bool {
    (try? Command.run("sh", ["-c", "command -v \"$0\"", program]).status) == 0
}
