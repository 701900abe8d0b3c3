#if canImport(Glibc)
import Glibc
#endif
import PushHostJSON
import PushHostSystem

extension Spool {
    /// Moves `new/NAME` into `cur/`, or into `failed/` with `NAME.error.json`
    /// listing `problems`, and returns the name it took there.
    ///
    /// Nothing is ever replaced: when `NAME` is taken in the folder (or, in
    /// `failed/`, `NAME.error.json` is), the file takes the first free name
    /// of `NAME.1`, `NAME.2`, ..., and its error file goes with that name
    /// (`NAME.1.error.json`). An error file that is a regular file with no
    /// `NAME` beside it was left by a crash between its writing and the move:
    /// it is written again, so a retried file keeps its own name.
    ///
    /// The error file is written before the file moves beside it: created
    /// exclusively (a symbolic link planted at its path is never followed),
    /// mode 0600, every write checked, fsynced. When it cannot be written or
    /// the file cannot move, the file stays in `new/` (with no error file).
    /// The folders are not fsynced here: `syncFolders()` does it once for
    /// a batch of moves.
    func finish(_ name: SpoolName, problems: [SpoolProblem]) throws(SpoolError) -> SpoolName {
        let destination = problems.isEmpty ? cur : failed
        let report = problems.isEmpty ? [] : Self.errorReport(name, problems)
        var number = 0
        while true {
            let candidate = number == 0 ? name : name.numbered(number)
            number += 1
            let errorFile = candidate.adding(".error.json")
            if !problems.isEmpty {
                guard try write(report, to: errorFile) else {
                    if isOrphan(errorFile, of: candidate) {
                        unlink(path(failed, errorFile))
                        number -= 1
                    }
                    continue
                }
            }
            if NoReplaceRename.move(path(new, name), to: path(destination, candidate)) == 0 { return candidate }
            let reason = errno
            if !problems.isEmpty { unlink(path(failed, errorFile)) }
            if reason == EEXIST { continue }
            throw SpoolError("cannot move \(new)/\(name.printed) to \(destination)/: \(String(cString: strerror(reason)))")
        }
    }

    /// Whether `failed/ERROR` is a regular file left without `failed/NAME`.
    private func isOrphan(_ errorFile: SpoolName, of name: SpoolName) -> Bool {
        var info = stat()
        guard lstat(path(failed, errorFile), &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        return lstat(path(failed, name), &info) != 0 && errno == ENOENT
    }

    /// Writes `bytes` into the new file `failed/NAME`: false when a file of
    /// that name is there already.
    private func write(_ bytes: [UInt8], to name: SpoolName) throws(SpoolError) -> Bool {
        let path = path(failed, name)
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd < 0 && errno == EEXIST { return false }
        guard fd >= 0 else { throw SpoolError("cannot create \(failed)/\(name.printed): \(String(cString: strerror(errno)))") }
        let written = FileContents.write(bytes, to: fd) && fsync(fd) == 0
        let reason = errno
        guard close(fd) == 0, written else {
            let cause = written ? errno : reason
            unlink(path)
            throw SpoolError("cannot write \(failed)/\(name.printed): \(String(cString: strerror(cause)))")
        }
        return true
    }

    /// `{"file":NAME,"records":[{"line":N,"status":"rejected"|"failed","error":"..."}]}`
    /// and a newline, `line` left out when the file itself is at fault.
    private static func errorReport(_ name: SpoolName, _ problems: [SpoolProblem]) -> [UInt8] {
        var line = JSONLine()
        line.string("file", name.printed)
        line.key("records")
        line.bytes.append(UInt8(ascii: "["))
        for (index, problem) in problems.enumerated() {
            if index > 0 { line.bytes.append(UInt8(ascii: ",")) }
            line.object { item in
                if let number = problem.line { item.number("line", number) }
                item.string("status", problem.result == .rejected ? "rejected" : "failed")
                item.string("error", problem.reason)
            }
        }
        line.bytes.append(UInt8(ascii: "]"))
        return line.finished()
    }
}
