/// Why a plugin file was not loaded; its description is the reason a user reads.
package enum PluginRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// `dlopen` failed; the text is `dlerror()`'s.
    case notLoadable(String)
    /// The library has no `ph_plugin_entry` symbol.
    case noEntry
    /// `ph_plugin_entry` returned NULL.
    case entryReturnedNull
    /// The descriptor's `struct_size` does not even cover the fields every version has.
    case descriptorTooSmall(structSize: UInt32)
    /// The plugin was built for an ABI this host cannot serve.
    case abiMismatch(major: UInt32, minor: UInt32)
    /// The name is NULL, empty, or not made of `[a-z0-9_-]`.
    case badName(String?)
    /// Another plugin, loaded earlier, has the same name.
    case duplicateName(String, file: String)
    /// A screen plugin (`on_target` or `on_mismatch`) lists no targets.
    case noTargets
    /// A target string is empty.
    case emptyTarget
    /// Another screen plugin, loaded earlier, claims the same target.
    case targetClaimed(String, by: String)
    /// Group or others may write the plugin file (`st_mode` of the file dlopen would map).
    case writableFile(mode: UInt32)
    /// Others may write the directory holding the plugin file, and it has no sticky bit.
    case writableDirectory(String, mode: UInt32)
    /// The settings file beside the plugin is unreadable or malformed.
    case badSettings(file: String, reason: String)
    /// `create` returned NULL.
    case createFailed
    /// Its worker (`--isolate`) could not be started, or ended before the plugin was created.
    case workerFailed(String)
    /// Its worker did not say the plugin was created within `--handler-timeout` (seconds), and was killed.
    case hungCreating(timeout: Double)
    /// An ffi manifest is malformed, or names a library, symbol or
    /// signature that cannot be called (docs/plugins.md, ffi handlers).
    case ffi(String)
    /// A process manifest is malformed (docs/process-plugins.md): why.
    case process(String)
    /// Its scan's worker died of this signal while it loaded the plugin (`SIGSEGV`).
    case crashedLoading(signal: String)
    /// Its scan's worker did not answer within `--handler-timeout` (seconds), and was killed.
    case hungLoading(timeout: Double)
    /// Its scan's worker exited while it loaded the plugin (`exit status 3`).
    case exitedLoading(status: String)
    /// Its scan's worker sent something no scan sends: what was wrong.
    case malformedScan(String)
    /// Its scan refused it: the reason, as the worker gave it.
    case scanRefused(String)
    /// Opened in the host after its scan, its descriptor says something else: what.
    case differsFromScan(String)
    /// Its descriptor's `extensions` list cannot be taken (ABI 1.2): why.
    case badExtensions(String)
    /// Created, it offers an extension its descriptor does not declare: which.
    case undeclaredExtension(String)
    /// A Swift library built by another toolchain than the host: both named.
    case otherSwift(String)
    /// A Swift library in the host whose file changed since it was loaded.
    case swiftChanged

    package var description: String {
        switch self {
        case .notLoadable(let error):
            "not a loadable shared library: \(error)"
        case .otherSwift(let why):
            why
        case .swiftChanged:
            "a new version of a Swift library the host holds, which cannot be loaded beside the old one: it loads at the host's next start, or at a reload when the plugin is isolated"
        case .noEntry:
            "no ph_plugin_entry symbol (a plugin exports `PH_EXPORT const ph_plugin *ph_plugin_entry(void)`)"
        case .entryReturnedNull:
            "ph_plugin_entry returned NULL: the plugin refused to load"
        case .descriptorTooSmall(let size):
            "descriptor struct_size \(size) is too small to be a ph_plugin"
        case .abiMismatch(let major, let minor):
            "built for ABI \(major).\(minor), but this host speaks ABI \(HostABI.major).\(HostABI.minor)"
                + (major == HostABI.major ? " (the plugin's minor is newer)" : " (the majors differ)")
        case .badName(nil):
            "the descriptor has no name (NULL)"
        case .badName(let name?) where name.isEmpty:
            "the name is empty"
        case .badName(let name?) where name == PluginDescriptor.hostName:
            "the name \"\(name)\" is the host's own (its log lines are signed so)"
        case .badName(let name?):
            "the name \"\(name)\" is not made of [a-z0-9_-]"
        case .duplicateName(let name, let file):
            "the name \"\(name)\" is already taken by \(file)"
        case .noTargets:
            "a screen plugin (on_target or on_mismatch) must list its targets"
        case .emptyTarget:
            "a target is empty"
        case .targetClaimed(let target, let other):
            "the target \"\(target)\" is already claimed by the screen plugin \"\(other)\""
        case .writableFile(let mode):
            "writable by group or others (mode \(Self.octal(mode))): whoever can change it runs code in the host; chmod go-w it"
        case .writableDirectory(let directory, let mode):
            "in the directory \(directory), which others can write (mode \(Self.octal(mode))) without the sticky bit: anyone can replace the file"
        case .badSettings(let file, let reason):
            "settings file \(file): \(reason)"
        case .createFailed:
            "create returned NULL (the plugin's own log lines above say why)"
        case .workerFailed(let reason):
            reason
        case .hungCreating(let timeout):
            "did not return from create within --handler-timeout \(timeout)s (its worker was killed)"
        case .ffi(let reason), .process(let reason):
            reason
        case .crashedLoading(let signal):
            "crashed while loading: \(signal)"
        case .hungLoading(let timeout):
            "did not finish loading within --handler-timeout \(timeout)s (its worker was killed)"
        case .exitedLoading(let status):
            "exited while loading (\(status))"
        case .malformedScan(let problem):
            "sent a malformed answer while loading: \(problem)"
        case .scanRefused(let reason):
            reason
        case .differsFromScan(let difference):
            "opened in the host, it is not what its scan read: \(difference)"
        case .badExtensions(let reason):
            "its descriptor's extensions: \(reason)"
        case .undeclaredExtension(let id):
            "its get_extension offers \(id), which its descriptor's extensions do not declare"
        }
    }

    /// `0644`, `01777`: permission bits as `chmod` takes them.
    static func octal(_ mode: UInt32) -> String {
        "0" + String(mode & 0o7777, radix: 8)
    }
}
