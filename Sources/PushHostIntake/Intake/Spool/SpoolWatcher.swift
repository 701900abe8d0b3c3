#if canImport(Glibc)
import Glibc
#endif
import PushHostSystem

/// Watches a spool with inotify: `new/` for files renamed into it
/// (`IN_MOVED_TO`), written into it and closed (`IN_CLOSE_WRITE`) or
/// created there (`IN_CREATE`), and the spool directory and `new/` for
/// their own deletion or move, and that of any of the four folders. The run loop polls `fd` itself, so an arrival
/// wakes the dispatch thread directly, with no other thread in between.
///
/// When the kernel's event queue overflows, events were lost: the watcher
/// then asks for a full rescan of `new/`. When the spool directory or one
/// of its folders goes away, it says the layout is lost, and `arm` watches
/// it once it is made again.
final class SpoolWatcher {
    /// What arrived since the last `take()`.
    struct Arrivals {
        /// Entries renamed into `new/`, or written there and closed.
        var names: [SpoolName] = []
        /// Entries created in `new/`: a regular file is taken once closed, anything else now.
        var created: [SpoolName] = []
        var rescan = false
        /// The spool directory or one of its folders was deleted or moved away.
        var lost = false
    }

    /// The environment variable that names a file whose presence holds the
    /// watcher back from reading events, so tests can overflow the queue.
    static let holdSwitch = "PUSHHOST_TEST_HOLD_WATCH"

    /// The names of the spool's folders, whose deletion or move loses the layout.
    private static let folders: Set<[UInt8]> = Set(["tmp", "new", "cur", "failed"].map { Array($0.utf8) })

    /// The inotify descriptor (non-blocking): readable when something arrived.
    let fd: Int32
    private let hold: String?
    private let buffer: UnsafeMutableRawBufferPointer
    /// The watches now armed on `new/` and on the spool directory.
    private var newWatch: Int32 = -1
    private var spoolWatch: Int32 = -1

    /// Arms the watches on `spool`.
    init(spool: Spool) throws(SetupError) {
        fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { throw SetupError("inotify: \(String(cString: strerror(errno)))") }
        hold = getenv(Self.holdSwitch).map { String(cString: $0) }
        buffer = .allocate(byteCount: 64 * (MemoryLayout<inotify_event>.size + Int(NAME_MAX) + 1), alignment: 8)
        do {
            try arm(spool)
        } catch {
            close(fd)
            buffer.deallocate()
            throw error
        }
    }

    deinit {
        close(fd)
        buffer.deallocate()
    }

    /// Watches `spool` as it is now, then drops the watches armed before
    /// on what is no longer there (with no moment unwatched in between);
    /// events of the old watches are ignored from here on.
    func arm(_ spool: Spool) throws(SetupError) {
        let old = [newWatch, spoolWatch]
        let gone = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
        spoolWatch = inotify_add_watch(fd, spool.directory, gone | UInt32(IN_DELETE | IN_MOVED_FROM))
        newWatch = inotify_add_watch(fd, spool.new, gone | UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE))
        guard spoolWatch >= 0, newWatch >= 0 else {
            throw SetupError("cannot watch \(spool.new): \(String(cString: strerror(errno)))")
        }
        for watch in old where watch >= 0 && watch != spoolWatch && watch != newWatch { inotify_rm_watch(fd, watch) }
    }

    /// Everything that arrived since the last call, without blocking.
    func take() -> Arrivals {
        var found = Arrivals()
        if let hold, access(hold, F_OK) == 0 {
            usleep(10_000)  // Held: leave the events queued, and do not spin on the readable fd.
            return found
        }
        let selfGone = UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return found }
            var offset = 0
            while offset < count {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let length = Int(event.len)
                let start = offset + MemoryLayout<inotify_event>.size
                let name = SpoolName(Array(UnsafeRawBufferPointer(rebasing: buffer[start..<start + length]).prefix { $0 != 0 }))
                if event.mask & UInt32(IN_Q_OVERFLOW) != 0 { found.rescan = true }
                if (event.wd == newWatch || event.wd == spoolWatch) && event.mask & selfGone != 0 { found.lost = true }
                if event.wd == spoolWatch && Self.folders.contains(name.bytes) { found.lost = true }
                if event.wd == newWatch && name.isTaken {
                    if event.mask & UInt32(IN_MOVED_TO | IN_CLOSE_WRITE) != 0 { found.names.append(name) }
                    if event.mask & UInt32(IN_CREATE) != 0 { found.created.append(name) }
                }
                offset = start + length
            }
        }
    }
}
