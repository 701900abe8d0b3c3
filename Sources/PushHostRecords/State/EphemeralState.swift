#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostSystem
import Synchronization

/// A state folder for one run alone (`pushhost run --ephemeral`), so that a
/// try, a test or a demo never reads or writes the real token.
///
/// Made with `mkdtemp` under `$TMPDIR` (else `/tmp`) as
/// `pushhost-ephemeral-XXXXXX`, mode 0700; everything the run keeps (the
/// token, the delivered messages, the retained actions, the plugins' own
/// folders) goes there. It is removed, with everything beneath it, at every
/// exit the host makes: its input ended, a stop (SIGINT, SIGTERM), a setup
/// error, a report that cannot be written, the watchdog's exit (status 4),
/// and a signal while the plugins are created (``SetupSignals``). A host
/// that is killed (SIGKILL) or crashes leaves it behind.
package final class EphemeralState: Sendable {
    /// The folder: `/tmp/pushhost-ephemeral-a1B2c3`.
    package let path: String
    private let logger: Logger
    private let removed = Atomic<Bool>(false)

    /// Makes the folder under `$TMPDIR`, else `/tmp`.
    package init(
        logger: Logger,
        environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }
    ) throws(SetupError) {
        let parent = Self.parent(environment("TMPDIR"))
        var template = Array(((parent == "/" ? "" : parent) + "/pushhost-ephemeral-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw SetupError("ephemeral state folder: cannot create one in \(parent): \(String(cString: strerror(errno)))")
        }
        path = String(cString: made)
        self.logger = logger
        // mkdtemp's 0700, whatever the umask took away.
        chmod(path, 0o700)
        logger.debug("ephemeral state folder \(path), removed at exit")
    }

    /// `$TMPDIR` without its trailing slashes, else `/tmp`.
    static func parent(_ tmpdir: String?) -> String {
        guard var parent = tmpdir, !parent.isEmpty else { return "/tmp" }
        while parent.count > 1 && parent.hasSuffix("/") { parent.removeLast() }
        return parent
    }

    /// Removes the folder and everything beneath it, once (the first caller
    /// does, from any thread); what cannot be removed is logged as a warning.
    package func remove() {
        guard !removed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let problem = FolderTree.remove(path) {
            logger.warning("ephemeral state folder \(path) not removed: \(problem)")
        } else {
            logger.debug("ephemeral state folder \(path) removed")
        }
    }
}
