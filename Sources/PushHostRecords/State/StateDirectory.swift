#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostSystem

/// Where pushhost keeps what must survive a restart (the token).
///
/// `--state DIR`, else `$XDG_STATE_HOME/pushhost`, else `~/.local/state/pushhost`.
/// The token is a secret: the directory is created with mode 0700 (missing
/// parents with 0755, less the umask), and one the operator made that group
/// or others can enter is used as it is, with a warning:
///
/// ```
/// warning pushhost: state directory /srv/ph/state has mode 0755: group and others can reach the token (chmod 700 it)
/// ```
package enum StateDirectory {
    /// The directory to use, given the `--state` flag and the environment.
    package static func resolve(
        _ flag: String?,
        environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }
    ) throws(SetupError) -> String {
        if let flag { return flag }
        if let xdg = environment("XDG_STATE_HOME"), !xdg.isEmpty { return xdg + "/pushhost" }
        guard let home = environment("HOME"), !home.isEmpty else {
            throw SetupError("no state directory: give --state DIR, or set XDG_STATE_HOME or HOME")
        }
        return home + "/.local/state/pushhost"
    }

    /// Creates `path` and its missing parents, checks that it can be
    /// written, and warns on `logger` when group or others may enter it.
    static func prepare(_ path: String, logger: Logger) throws(SetupError) {
        var built = path.hasPrefix("/") ? "" : "."
        let components = path.split(separator: "/")
        for (index, component) in components.enumerated() {
            built += "/" + component
            if mkdir(built, index == components.count - 1 ? 0o700 : 0o755) != 0 && errno != EEXIST {
                throw SetupError("state directory \(path): cannot create \(built): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw SetupError("state directory \(path): not a directory")
        }
        guard access(path, W_OK) == 0 else {
            throw SetupError("state directory \(path): not writable: \(String(cString: strerror(errno)))")
        }
        if info.st_mode & 0o077 != 0 {
            let mode = String(info.st_mode & 0o7777, radix: 8)
            logger.warning("state directory \(path) has mode 0\(mode): group and others can reach the token (chmod 700 it)")
        }
    }
}
