#if canImport(Glibc)
import Glibc
#endif
import PushHostJSON
import PushHostSystem

/// What `pushhost send` does: writes a payload into the spool so that it
/// survives a power failure once `send` returns, or refuses it when the
/// host would reject it.
///
/// The file is written under a unique name into `tmp/` (created there
/// exclusively, never through a symbolic link, mode 0600 whatever the
/// umask), fsynced, checked record by record as the host reads it, renamed
/// into `new/` (where the host's watch sees it), and `new/` is fsynced.
/// Sent by root into a spool another user owns (the system service's),
/// the file is that user's, so the host running as them can read it.
package struct SpoolSender {
    let spool: Spool
    let maxBytes: Int

    package init(spool: Spool, maxBytes: Int) {
        self.spool = spool
        self.maxBytes = maxBytes
    }

    /// Sends the contents of `file` (`-` for standard input) and returns its path in `new/`.
    package func send(contentsOf file: String) throws(SetupError) -> String {
        let source = file == "-" ? "standard input" : file
        guard let bytes = file == "-" ? FileContents.read(fd: 0) : FileContents.read(file) else {
            throw SetupError("cannot read \(source): \(String(cString: strerror(errno)))")
        }
        let name = Self.uniqueName()
        let temporary = spool.tmp + "/" + name
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SetupError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        guard fchmod(fd, 0o600) == 0, giveToSpoolOwner(fd), FileContents.write(bytes, to: fd), fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(temporary)
            throw SetupError("cannot write \(temporary): \(reason)")
        }
        close(fd)
        let problem: String?
        do {
            problem = try check(temporary)
        } catch {
            unlink(temporary)
            throw error
        }
        if let problem {
            unlink(temporary)
            throw SetupError("refused \(source): \(problem); nothing was written")
        }
        let final = spool.new + "/" + name
        guard rename(temporary, final) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw SetupError("cannot move \(temporary) into \(spool.new): \(reason)")
        }
        let directory = open(spool.new, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0, fsync(directory) == 0 else {
            throw SetupError("cannot fsync \(spool.new): \(String(cString: strerror(errno)))")
        }
        close(directory)
        return final
    }

    /// Makes the file `fd` belong to the owner of `new/` when root sends
    /// into a spool someone else owns; true when there is nothing to do.
    private func giveToSpoolOwner(_ fd: Int32) -> Bool {
        guard geteuid() == 0 else { return true }
        var owner = stat()
        guard stat(spool.new, &owner) == 0 else { return false }
        return owner.st_uid == 0 || fchown(fd, owner.st_uid, owner.st_gid) == 0
    }

    /// Why the host would reject a record of the file at `path` (not JSON,
    /// not an object, too long, no record at all), or nil when it would not.
    func check(_ path: String) throws(SetupError) -> String? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { throw SetupError("cannot read \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: maxBytes + 2 + (1 << 16), alignment: 8)
        defer { buffer.deallocate() }
        var reader = JSONReader()
        var records = SpoolRecords(fd: fd, path: path, buffer: buffer, maxBytes: maxBytes)
        var found = false
        do {
            while let item = try records.next(&reader) {
                found = true
                switch item {
                case .tooLong(let line):
                    return "line \(line): longer than --max-bytes \(maxBytes)"
                case .invalid(let error, let line):
                    return "line \(line), byte \(error.offset): \(error.reason)"
                case .record(let bytes, let line):
                    do throws(JSONError) {
                        if try reader.parse(bytes).root.kind != .object { return "line \(line): not a JSON object" }
                    } catch {
                        return "line \(line), byte \(error.offset): \(error.reason)"
                    }
                }
            }
        } catch {
            throw SetupError(error.description)
        }
        return found ? nil : "no JSON object in it"
    }

    /// `SECONDS.NANOSECONDS.PPID_COUNTER.HOST`: unique across processes and hosts.
    static func uniqueName() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        counter += 1
        var host = [UInt8](repeating: 0, count: 256)
        gethostname(&host, host.count - 1)
        let hostName = String(decoding: host.prefix { $0 != 0 }, as: UTF8.self).map { $0 == "/" || $0 == "." ? "_" : $0 }
        return "\(now.tv_sec).\(now.tv_nsec).P\(getpid())_\(counter).\(String(hostName))"
    }

    nonisolated(unsafe) private static var counter = 0
}
