#if canImport(Glibc)
import Glibc
#endif

/// What the last run left in the crash journal, and the crash counts of
/// spool files: a table of 64 entries (file name, count, and the plugin,
/// handler and cause of the last crash), kept in the same mapped file.
extension CrashJournal {
    /// The call the last run was in when it ended, when it ended in one;
    /// a spool file's crash count goes up by one. Clears the note.
    package func recover() -> Crash? {
        guard isDurable, base.load(fromByteOffset: Offset.inCall, as: Int32.self) != 0 else {
            noteCause(0)
            return nil
        }
        let (plugin, handler, place) = callUnderWay()
        let kind = base.load(fromByteOffset: Offset.sourceKind, as: Int32.self)
        let file = kind == 2 ? read(at: Offset.sourceName, length: Offset.sourceNameLength) : ""
        let cause = Cause(code: base.load(fromByteOffset: Offset.cause, as: Int32.self))
        var crash = Crash(file: file, place: place, plugin: plugin, handler: handler, cause: cause, count: 1)
        if !file.isEmpty {
            crash.count = count(crash)
        }
        base.storeBytes(of: 0, toByteOffset: Offset.inCall, as: Int32.self)
        noteCause(0)
        return crash
    }

    /// The crashes `file` caused so far, the last one's details with them.
    package func crashes(of file: String) -> Crash? {
        guard let entry = entry(for: file) else { return nil }
        return crash(at: entry, file: file)
    }

    /// Forgets the crashes of `file` (it left `new/`).
    package func forget(_ file: String) {
        guard let entry = entry(for: file) else { return }
        memset(base + entry, 0, TableEntry.size)
    }

    /// Adds `crash` to its file's entry (taking a free one, else the next in
    /// turn) and returns the file's count.
    private func count(_ crash: Crash) -> Int {
        let entry = entry(for: crash.file) ?? freeEntry()
        let count = Int(base.load(fromByteOffset: entry + TableEntry.count, as: Int32.self)) + 1
        memset(base + entry, 0, TableEntry.size)
        base.storeBytes(of: Int32(count), toByteOffset: entry + TableEntry.count, as: Int32.self)
        let code: Int32 = switch crash.cause {
        case .signal(let number): number
        case .timeout: Cause.timeoutCode
        case .unknown: 0
        }
        base.storeBytes(of: code, toByteOffset: entry + TableEntry.cause, as: Int32.self)
        write(crash.file, at: entry + TableEntry.file, length: entry + TableEntry.fileLength, capacity: Self.nameCapacity)
        write(crash.plugin, at: entry + TableEntry.plugin, length: nil, capacity: Self.pluginNameCapacity)
        write(crash.handler, at: entry + TableEntry.handler, length: nil, capacity: Self.pluginNameCapacity)
        msync(base, Self.size, MS_SYNC)
        return count
    }

    private func crash(at entry: Int, file: String) -> Crash {
        Crash(
            file: file, place: "spool file \(file)",
            plugin: cString(at: entry + TableEntry.plugin), handler: cString(at: entry + TableEntry.handler),
            cause: Cause(code: base.load(fromByteOffset: entry + TableEntry.cause, as: Int32.self)),
            count: Int(base.load(fromByteOffset: entry + TableEntry.count, as: Int32.self)))
    }

    private func entry(for file: String) -> Int? {
        let bytes = Array(file.utf8)
        for index in 0..<Self.maxEntries {
            let entry = Offset.crashes + index * TableEntry.size
            guard base.load(fromByteOffset: entry + TableEntry.count, as: Int32.self) > 0,
                Int(base.load(fromByteOffset: entry + TableEntry.fileLength, as: Int32.self)) == bytes.count,
                memcmp(base + entry + TableEntry.file, bytes, bytes.count) == 0
            else { continue }
            return entry
        }
        return nil
    }

    private func freeEntry() -> Int {
        for index in 0..<Self.maxEntries {
            let entry = Offset.crashes + index * TableEntry.size
            if base.load(fromByteOffset: entry + TableEntry.count, as: Int32.self) == 0 { return entry }
        }
        nextEntry = (nextEntry + 1) % Self.maxEntries
        return Offset.crashes + nextEntry * TableEntry.size
    }
}
