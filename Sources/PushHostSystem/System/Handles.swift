#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The handles plugins know host objects by: the `const ph_message *` (or
/// `ph_chain *`) a plugin gets is the address of a slot in one large region
/// of address space, reserved once, and the slot holds the address of the
/// ``Message`` (or the interceptor's turn). Messages and chains have a
/// region each, so that a handle of one kind never names an object of the
/// other.
///
/// ```
/// region:  [ 0 | 0 | msg A | msg B | 1 | msg C | 0 ... untouched ... ]
///                            ^ a plugin's ph_message *        ^ next
/// ```
///
/// Slots are handed out in increasing address order and not used again
/// until the region wraps, so a handle kept past its message (a second
/// `complete`, one after the deadline) can never name a newer message: its
/// slot is retired, and the host finds no object there, only a mark below
/// ``firstObject`` (0, ``expired``, or what the owner of the region left to
/// say why the handle ended). The region is 4 GiB of 8-byte slots (a smaller one when the
/// system refuses that much address space): it wraps after about 500
/// million messages have each taken a slot, that is, after that many
/// messages went pending (a message handled at once reuses the slot of the
/// one before it). A wrapped region skips the slots still in use.
///
/// Untouched pages cost nothing (`MAP_NORESERVE`); a page whose slots are
/// all handed out and retired is given back with `madvise(MADV_DONTNEED)`,
/// so memory follows the number of objects alive, not how many came. A
/// slot retired with a mark other than 0 keeps its page until the mark is
/// taken (giving the page back would zero the mark).
@usableFromInline package final class Handles: @unchecked Sendable {
    /// One slot: a mark (below ``firstObject``: free, or retired), or an object's address.
    @usableFromInline package typealias Slot = UnsafeMutablePointer<Atomic<UInt>>

    /// The mark of a slot retired at its message's `--data-timeout`
    /// deadline, so that a late `complete` is told apart from a stray one.
    @usableFromInline package static let expired: UInt = 1

    /// The lowest value of a slot that holds an object's address: no object
    /// lives in the first page of memory.
    @usableFromInline package static let firstObject: UInt = 4096

    /// The handles of this process's messages.
    @usableFromInline package static let messages = Handles()

    /// The handles of this process's interceptor chains.
    package static let chains = Handles()

    /// A slot outside every region, for an object that has none (yet).
    package nonisolated(unsafe) static let none: Slot = {
        let slot = Slot.allocate(capacity: 1)
        slot.initialize(to: Atomic(0))
        return slot
    }()

    @usableFromInline let base: Slot
    @usableFromInline let count: Int
    private let pageSize: Int
    private let slotsPerPage: Int
    /// How many slots of each page hold an object or a mark other than 0.
    private let live: UnsafeMutablePointer<UInt16>
    /// The index of the next slot to hand out.
    private let next = Mutex(0)

    /// Reserves the region: 4 GiB of address space, or the largest power
    /// of two down to 64 MiB that the system grants.
    private init() {
        pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        var bytes = 1 << 32
        var region = Self.reserve(bytes)
        while region == nil && bytes > 1 << 26 {
            bytes /= 2
            region = Self.reserve(bytes)
        }
        guard let region else { fatalError("cannot reserve address space for handles: \(String(cString: strerror(errno)))") }
        count = bytes / MemoryLayout<UInt>.stride
        slotsPerPage = pageSize / MemoryLayout<UInt>.stride
        base = region.bindMemory(to: Atomic<UInt>.self, capacity: count)
        let pages = bytes / pageSize
        guard let counters = Self.reserve(pages * MemoryLayout<UInt16>.stride) else {
            fatalError("cannot reserve address space for handles: \(String(cString: strerror(errno)))")
        }
        live = counters.bindMemory(to: UInt16.self, capacity: pages)
    }

    /// `bytes` of private anonymous memory that reads as zeros and takes
    /// no memory until written, or nil.
    private static func reserve(_ bytes: Int) -> UnsafeMutableRawPointer? {
        let region = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        return region == MAP_FAILED ? nil : region
    }

    /// Hands out the next free slot, holding `object` (an object's address).
    package func claim(for object: UInt) -> Slot {
        next.withLock { next in
            while true {
                let index = next
                next = next + 1 == count ? 0 : next + 1
                if index % slotsPerPage == 0 && index > 0 { giveBackIfRetired(page: index / slotsPerPage - 1, next: index) }
                let slot = base + index
                // After a wrap: a slot still in use keeps its object, and
                // one that kept a mark is counted already.
                let held = slot.pointee.load(ordering: .relaxed)
                guard held < Self.firstObject else { continue }
                slot.pointee.store(object, ordering: .releasing)
                if held == 0 { live[index / slotsPerPage] += 1 }
                return slot
            }
        }
    }

    /// Retires `slot`: no object is found there any more, only `mark`
    /// (below ``firstObject``); a message's slot marked ``expired`` tells a
    /// late `complete` apart (``takeExpired(_:)``).
    package func retire(_ slot: Slot, mark: UInt = 0) {
        guard let index = index(of: UInt(bitPattern: slot)) else { return }
        slot.pointee.store(mark, ordering: .releasing)
        guard mark == 0 else { return }
        release(index)
    }

    /// Counts the slot at `index` out of its page's live ones, and gives
    /// the page back when that was the last.
    private func release(_ index: Int) {
        next.withLock { next in
            live[index / slotsPerPage] -= 1
            giveBackIfRetired(page: index / slotsPerPage, next: next)
        }
    }

    /// The slot at `address`, when it is one: inside the region and aligned.
    @inline(__always)
    @inlinable package func slot(at address: UInt) -> Slot? {
        index(of: address).map { base + $0 }
    }

    /// Whether `address` is a slot retired at its deadline; it is then
    /// cleared, so that only the first late `complete` is told so.
    package func takeExpired(_ address: UInt) -> Bool {
        guard let index = index(of: address) else { return false }
        guard (base + index).pointee.compareExchange(expected: Self.expired, desired: 0, ordering: .relaxed).exchanged else {
            return false
        }
        release(index)
        return true
    }

    /// The index of the slot at `address`, or nil when it is no slot.
    @inline(__always)
    @inlinable func index(of address: UInt) -> Int? {
        let offset = address &- UInt(bitPattern: base)
        guard offset < UInt(count * MemoryLayout<UInt>.stride), offset % UInt(MemoryLayout<UInt>.stride) == 0 else { return nil }
        return Int(offset) / MemoryLayout<UInt>.stride
    }

    /// Gives `page` back to the system when none of its slots is in use and
    /// `next` has left it (so none will be handed out before a wrap).
    private func giveBackIfRetired(page: Int, next: Int) {
        guard live[page] == 0, next / slotsPerPage != page else { return }
        madvise(UnsafeMutableRawPointer(base + page * slotsPerPage), pageSize, MADV_DONTNEED)
    }
}
