#if canImport(Glibc)
import Glibc
#endif

/// What `pushhost send` does: checks a payload, then writes it into the
/// spool so that it survives a power failure once `send` returns.
///
/// The file is written under a unique name into `tmp/`, fsynced, renamed
/// into `new/` (where the host's watch sees it), and `new/` is fsynced.
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
        try check(bytes, from: source)
        let name = Self.uniqueName()
        let temporary = spool.tmp + "/" + name
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SetupError("cannot create \(temporary): \(String(cString: strerror(errno)))") }
        guard FileContents.write(bytes, to: fd), fsync(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            unlink(temporary)
            throw SetupError("cannot write \(temporary): \(reason)")
        }
        close(fd)
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

    /// Refuses a payload the host would reject: not JSON, not objects, too long.
    func check(_ bytes: [UInt8], from source: String) throws(SetupError) {
        var reader = JSONReader()
        let problem: String? = bytes.withUnsafeBytes { buffer in
            let records = SpoolRecords.split(buffer, maxBytes: maxBytes, reader: &reader)
            if records.isEmpty { return "no JSON object in it" }
            for record in records {
                switch record {
                case .tooLong(let line):
                    return "line \(line): longer than --max-bytes \(maxBytes)"
                case .record(let bytes, let line):
                    do throws(JSONError) {
                        if try reader.parse(bytes).root.kind != .object { return "line \(line): not a JSON object" }
                    } catch {
                        return "line \(line), byte \(error.offset): \(error.reason)"
                    }
                }
            }
            return nil
        }
        if let problem { throw SetupError("refused \(source): \(problem); nothing was written") }
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
