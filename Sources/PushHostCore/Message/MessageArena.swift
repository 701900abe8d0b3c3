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
    /// Where a value is built when it is not a copy of its input bytes (an
    /// unescaped string, compact JSON, a number's digits); reused.
    var scratch: [UInt8] = []
    /// `message_json`'s answer, once asked for: built once per message.
    var json: (text: UnsafePointer<CChar>, count: Int)?

    static let chunkSize = 4096
    /// How many chunks of `chunkSize` outlive a `reset()`.
    static let keptChunks = 4

    /// A NUL-terminated copy of `bytes`, valid until `reset()`.
    mutating func copy(_ bytes: UnsafeRawBufferPointer) -> UnsafePointer<CChar> {
        let place = reserve(bytes.count + 1)
        if let base = bytes.baseAddress, bytes.count > 0 { place.copyMemory(from: base, byteCount: bytes.count) }
        place.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
        return UnsafePointer(place.assumingMemoryBound(to: CChar.self))
    }

    /// A NUL-terminated copy of fixed text.
    mutating func copy(_ text: StaticString) -> UnsafePointer<CChar> {
        copy(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A NUL-terminated copy of `text`'s UTF-8.
    mutating func copy(_ text: String) -> UnsafePointer<CChar> {
        var text = text
        return text.withUTF8 { copy(UnsafeRawBufferPointer($0)) }
    }

    /// `copy` of `scratch`.
    mutating func copyScratch() -> UnsafePointer<CChar> {
        let bytes = scratch
        return bytes.withUnsafeBytes { copy($0) }
    }

    /// `count` bytes in the chunk being filled, else in the next one that
    /// has room, else in a new one.
    private mutating func reserve(_ count: Int) -> UnsafeMutableRawPointer {
        while chunk < chunks.count {
            if chunks[chunk].count - used >= count {
                defer { used += count }
                return chunks[chunk].baseAddress! + used
            }
            chunk += 1
            used = 0
        }
        let fresh = UnsafeMutableRawBufferPointer.allocate(byteCount: max(Self.chunkSize, count), alignment: 1)
        chunks.append(fresh)
        chunk = chunks.count - 1
        used = count
        return fresh.baseAddress!
    }

    /// Forgets every string handed out, keeping the first few chunks for the next message.
    mutating func reset() {
        var kept = 0
        chunks.removeAll { chunk in
            if chunk.count == Self.chunkSize && kept < Self.keptChunks {
                kept += 1
                return false
            }
            chunk.deallocate()
            return true
        }
        chunk = 0
        used = 0
        json = nil
        if scratch.capacity > 1 << 16 { scratch = [] } else { scratch.removeAll(keepingCapacity: true) }
    }

    /// Frees every chunk.
    mutating func free() {
        for chunk in chunks { chunk.deallocate() }
        chunks.removeAll()
        chunk = 0
        used = 0
        json = nil
    }
}
