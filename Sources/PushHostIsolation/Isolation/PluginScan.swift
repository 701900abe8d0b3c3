#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostPlugins

/// The inside of a scan (`pushhost worker --scan --plugin FILE`, started by
/// ``PluginScans``): it loads one plugin file as the host would (a shared
/// library's descriptor; an ffi manifest's libraries, each checked first
/// as a plugin file is), writes what it read, or why it refused the
/// plugin, to fd 3 (``ScanAnswer``), and exits. It creates nothing.
///
/// It dies with the host (`PR_SET_PDEATHSIG`), and closes every other
/// descriptor it inherited before the plugin's code runs.
package enum PluginScan {
    /// The socket to the host.
    static let channel: Int32 = 3

    /// Scans `file` (behind walls, unless `sandbox` is off) and exits: 0
    /// once it answered, 1 when the host is not its parent or its answer
    /// could not be written.
    package static func serve(file: String, host: pid_t, sandbox: SandboxMode, namespaceFailure: String?, logger: Logger) -> Never {
        WorkerSpawn.standInIfFirst()
        WorkerSpawn.closeInherited(from: channel + 1)
        WorkerSpawn.dieWithParent()
        if WorkerSpawn.hostGone(host) { exit(1) }
        // Its library's constructor runs behind the worker's walls too, with
        // the grants of its settings file (a manifest's own) and no state
        // folder; malformed grants give it none (its worker refuses them,
        // naming why), and the worker says what did not stand. Under
        // strict, a wall that cannot stand refuses the plugin unopened.
        var fell: [String] = []
        if sandbox != .off {
            let settings = (try? SettingsFile.of(plugin: file)) ?? [:]
            let grants = (try? SandboxGrants(settings: settings)) ?? SandboxGrants()
            fell = Walls.raise(file: file, stateFolder: nil, grants: grants, namespaceFailure: namespaceFailure).fell
        }
        var warned: Set<String> = []
        let answer: [UInt8]
        do throws(PluginRefusal) {
            if sandbox == .strict, !fell.isEmpty {
                throw .scanRefused("walls that cannot stand under --sandbox strict: " + fell.joined(separator: "; "))
            }
            answer = ScanAnswer.encode(try PluginCatalog.open(file, warned: &warned, logger: logger))
        } catch {
            answer = ScanAnswer.encode(refusal: error)
        }
        var offset = 0
        while offset < answer.count {
            let count = answer.withUnsafeBytes { write(channel, $0.baseAddress! + offset, $0.count - offset) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { exit(1) }
            offset += count
        }
        exit(0)
    }
}
