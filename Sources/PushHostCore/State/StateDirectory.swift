#if canImport(Glibc)
import Glibc
#endif

/// Where pushhost keeps what must survive a restart (the token).
///
/// `--state DIR`, else `$XDG_STATE_HOME/pushhost`, else `~/.local/state/pushhost`.
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

    /// Creates `path` and its missing parents, and checks that it can be written.
    static func prepare(_ path: String) throws(SetupError) {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/" + component
            if mkdir(built, 0o755) != 0 && errno != EEXIST {
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
    }
}
