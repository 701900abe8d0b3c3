#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostSystem
import Synchronization

/// The current registration token, kept in `DIR/token` across restarts,
/// and the Web Push keys of a token that is a subscription's endpoint, in
/// `DIR/token.keys` (see ``TokenEvent``).
///
/// Plugins read it through `current_token` from any thread; every token the
/// host has held stays allocated for the run, so a pointer handed out never
/// dangles.
package final class TokenStore: Sendable {
    package let directory: String
    private let current: Mutex<HeldToken>

    package var file: String { directory + "/token" }
    var keysFile: String { directory + "/token.keys" }

    /// Opens the state directory, creating it when missing, and reads the
    /// stored token. A symbolic link in the token's place is a setup error
    /// (`read`); anything else that is not a regular file there (a
    /// directory) is logged to `logger` as a warning and read as no token,
    /// so the run goes on and storing a token fails, record by record, as on
    /// any broken state directory. Doubts about the directory's mode go to
    /// `logger` too.
    package init(directory: String, logger: Logger) throws(SetupError) {
        self.directory = directory
        try StateDirectory.prepare(directory, logger: logger)
        let file = directory + "/token"
        var stored: String?
        do throws(FileProblem) {
            stored = try Self.stored(file)
        } catch {
            var info = stat()
            if lstat(file, &info) == 0 && (info.st_mode & S_IFMT) == S_IFLNK { throw SetupError("token file \(file): \(error)") }
            logger.warning("token file \(file): \(error); starting without a stored token")
        }
        current = Mutex(HeldToken(stored))
    }

    /// The token stored in `file`, without creating anything; nil when there
    /// is none. Anything but a regular file there, a symbolic link above all
    /// (never followed), is a setup error:
    /// `token file DIR/token: a symbolic link, which pushhost does not follow`.
    package static func read(_ file: String) throws(SetupError) -> String? {
        do throws(FileProblem) {
            return try stored(file)
        } catch {
            throw SetupError("token file \(file): \(error)")
        }
    }

    /// The token in `file`, nil when there is none; throws when `file` is
    /// not a regular file (a symbolic link is never followed).
    private static func stored(_ file: String) throws(FileProblem) -> String? {
        guard var bytes = try RegularFile.read(file, links: .refuse) else { return nil }
        while bytes.last == UInt8(ascii: "\n") { bytes.removeLast() }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// The token plugins see through `current_token`.
    package var pointer: UnsafePointer<CChar>? {
        current.withLock { $0.text }
    }

    package var token: String? {
        pointer.map { String(cString: $0) }
    }

    /// What storing a token did.
    package enum Change: Equatable {
        /// The same token again (and the same keys): nothing was written.
        case unchanged
        /// The token was stored; `previous` is nil for the first one.
        case replaced(previous: String?)
        /// The same token with other keys: only the keys were stored.
        case keys
    }

    /// Makes `token` the current one without storing it: in a worker,
    /// whose host stored it.
    package func hold(_ token: String) {
        let held = HeldToken(token)
        current.withLock { $0 = held }
    }

    /// Stores `token` when it differs from the current one, and its `keys`
    /// beside it (a token without keys removes the keys of the one before).
    package func replace(with token: String, keys: SubscriptionKeys? = nil) throws(SetupError) -> Change {
        let previous = self.token
        let keysChanged = try Self.keys(keysFile) != keys
        guard previous != token || keysChanged else { return .unchanged }
        if keysChanged { try writeKeys(keys) }
        guard previous != token else { return .keys }
        try AtomicFile.write(Array((token + "\n").utf8), to: file)
        let held = HeldToken(token)
        current.withLock { $0 = held }
        return .replaced(previous: previous)
    }

    /// Removes the stored token and its keys; the token there was, or nil
    /// when there was none.
    package func remove() throws(SetupError) -> String? {
        guard let previous = token else { return nil }
        try writeKeys(nil)
        guard unlink(file) == 0 || errno == ENOENT else {
            throw SetupError("token file \(file): cannot remove it: \(String(cString: strerror(errno)))")
        }
        current.withLock { $0 = HeldToken(nil) }
        return previous
    }

    private func writeKeys(_ keys: SubscriptionKeys?) throws(SetupError) {
        if let keys {
            try AtomicFile.write(Array((keys.json + "\n").utf8), to: keysFile)
        } else if unlink(keysFile) != 0 && errno != ENOENT {
            throw SetupError("keys file \(keysFile): cannot remove it: \(String(cString: strerror(errno)))")
        }
    }

    /// The keys stored in `file`, nil when there are none; throws when the
    /// file is not a regular file or not the keys this store writes.
    package static func keys(_ file: String) throws(SetupError) -> SubscriptionKeys? {
        let bytes: [UInt8]?
        do throws(FileProblem) {
            bytes = try RegularFile.read(file, links: .refuse)
        } catch {
            throw SetupError("keys file \(file): \(error)")
        }
        guard let bytes else { return nil }
        let text = String(decoding: bytes, as: UTF8.self).trimmingSuffixNewlines
        // What writeKeys writes: {"p256dh":"P","auth":"A"}, P and A base64url.
        let parts = text.split(separator: "\"", omittingEmptySubsequences: false)
        guard parts.count == 9, text == SubscriptionKeys(p256dh: String(parts[3]), auth: String(parts[7])).json,
              SubscriptionKeys.isBase64URL(String(parts[3])), SubscriptionKeys.isBase64URL(String(parts[7]))
        else { throw SetupError("keys file \(file): not the keys pushhost writes ({\"p256dh\":...,\"auth\":...})") }
        return SubscriptionKeys(p256dh: String(parts[3]), auth: String(parts[7]))
    }
}

private extension String {
    var trimmingSuffixNewlines: String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}

/// A token as a C string that is never freed, so plugins may keep the pointer.
private struct HeldToken: @unchecked Sendable {
    let text: UnsafePointer<CChar>?

    init(_ token: String?) {
        text = token.map { UnsafePointer(strdup($0)!) }
    }
}
