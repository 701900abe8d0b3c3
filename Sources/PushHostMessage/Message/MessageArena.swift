/// The C strings one message hands to plugins (`message_get`,
/// `message_id`, `message_target`, `message_json`): NUL-terminated copies
/// bumped into chunks that are kept from message to message, so handing a
/// value out takes no allocation once the message's first chunk exists.
///
/// Every string stays where it is until `reset()`, when the message is
/// done: a chunk is never moved or grown, only filled. A value larger than
/// a chunk gets a chunk of its own, freed at `reset()`, as are chunks beyond
/// the first few.
struct MessageArena: @unchecked Sendable {
    private var chunks: [UnsafeMutableRawBufferPointer] = []
    /// The chunk being filled, and how much of it is.
    private var chunk = 0
    private var used = 0
    /// Where the chunk being filled is free, and how many bytes are: the
    /// fast path of `reserve`.
    private var cursor: UnsafeMutableRawPointer?
    private var room = 0
    /// Where a value is built when it is not a copy of its input bytes (an
    /// unescaped string, compact JSON, a number's digits); reused.
    var scratch: [UInt8] = []
    /// `message_json`'s answer, once asked for: built once per message.
    var json: (text: UnsafePointer<CChar>, count: Int)?
    /// The last copy's length less its NUL: an unescaped string may hold a
    /// NUL of its own, where `strlen` would stop.
    private(set) var handedCount = 0
    /// Whether the last copy is a JSON string's text (`Message.hand` says so).
    var handedString = false

    static let chunkSize = 4096
    /// How many chunks of `chunkSize` outlive a `reset()`.
    static let keptChunks = 4

    /// A NUL-terminated copy of `bytes`, valid until `reset()`.
    @inline(__always)
    mutating func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafePointer<CChar> {
        let place = reserve(bytes.count + 1)
        handedCount = bytes.count
        handedString = false
        if let base = bytes.baseAddress, bytes.count > 0 { place.copyMemory(from: base, byteCount: bytes.count) }
        place.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
        return UnsafePointer(place.assumingMemoryBound(to: CChar.self))
    }

    /// A NUL-terminated copy of fixed text.
    mutating func copy(_ text: StaticString) -> UnsafePointer<CChar> {
        copy(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `copy` of `scratch`.
    mutating func copyScratch() -> UnsafePointer<CChar> {
        let bytes = scratch
        return bytes.withUnsafeBytes { copy($0) }
    }

    /// `count` bytes in the chunk being filled, else in the next one that
    /// has room, else in a new one.
    @inline(__always)
    private mutating func reserve(_ count: Int) -> UnsafeMutableRawPointer {
        guard room >= count, let place = cursor else { return reserveInNextChunk(count) }
        cursor = place + count
        room -= count
        return place
    }

    /// `reserve`, when the chunk being filled has no room: the next chunk
    /// that has, else a new one.
    private mutating func reserveInNextChunk(_ count: Int) -> UnsafeMutableRawPointer {
        used = (chunks.isEmpty ? 0 : chunks[chunk].count) - room
        while chunk < chunks.count {
            if chunks[chunk].count - used >= count { return take(count) }
            chunk += 1
            used = 0
        }
        chunks.append(UnsafeMutableRawBufferPointer.allocate(byteCount: max(Self.chunkSize, count), alignment: 1))
        chunk = chunks.count - 1
        used = 0
        return take(count)
    }

    /// `count` bytes at `used` in the chunk `chunk`, which has room for them.
    private mutating func take(_ count: Int) -> UnsafeMutableRawPointer {
        let place = chunks[chunk].baseAddress! + used
        used += count
        cursor = place + count
        room = chunks[chunk].count - used
        return place
    }

    /// Forgets every string handed out, keeping the first few chunks for the next message.
    mutating func reset() {
        defer {
            chunk = 0
            used = 0
            cursor = chunks.first?.baseAddress
            room = chunks.first?.count ?? 0
            json = nil
            if scratch.capacity > 1 << 16 { scratch = [] } else if !scratch.isEmpty { scratch.removeAll(keepingCapacity: true) }
        }
        // The common case: one chunk of the usual size, kept as it is.
        if chunks.count <= 1 && chunks.first.map({ $0.count == Self.chunkSize }) ?? true { return }
        var kept = 0
        chunks.removeAll { chunk in
            if chunk.count == Self.chunkSize && kept < Self.keptChunks {
                kept += 1
                return false
            }
            chunk.deallocate()
            return true
        }
    }

    /// Frees every chunk.
    mutating func free() {
        for chunk in chunks { chunk.deallocate() }
        chunks.removeAll()
        chunk = 0
        used = 0
        cursor = nil
        room = 0
        json = nil
    }
}
