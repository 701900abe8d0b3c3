#if canImport(Glibc)
import Glibc
#endif

/// Reads whole ``WorkerFrame``s from a stream socket however its bytes
/// arrive, in a buffer that grows to the largest frame, `limit` bytes at most.
struct FrameReader: ~Copyable {
    /// What one ``read(from:_:)`` found.
    enum Step {
        /// It handed over the whole frames that came (perhaps none).
        case read
        /// The other end is gone.
        case ended
        /// Bytes that are no frame, or a frame over the limit, and why.
        case malformed(String)
    }

    private var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 8)
    private var filled = 0
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    deinit {
        buffer.deallocate()
    }

    /// Reads what `fd` has (waiting until something comes), and hands each whole frame to `body`.
    mutating func read(from fd: Int32, _ body: (WorkerFrame.Frame) -> Void) -> Step {
        let count = Glibc.read(fd, buffer.baseAddress! + filled, buffer.count - filled)
        if count < 0 && errno == EINTR { return .read }
        guard count > 0 else { return .ended }
        filled += count
        var offset = 0
        defer {
            if offset > 0 && offset < filled { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + offset, byteCount: filled - offset) }
            filled -= offset
        }
        while true {
            switch WorkerFrame.read(UnsafeRawBufferPointer(rebasing: buffer[offset..<filled])) {
            case .frame(let frame, let size):
                body(frame)
                offset += size
            case .partial(let needs):
                guard needs <= limit else { return .malformed("a frame of \(needs) bytes, more than the \(limit) it may have") }
                if needs > buffer.count {
                    grow(to: needs, keeping: offset)
                    offset = 0
                }
                return .read
            case .malformed(let reason):
                return .malformed(reason)
            }
        }
    }

    /// A buffer of at least `size` bytes, with the bytes from `offset` on at its start.
    private mutating func grow(to size: Int, keeping offset: Int) {
        var capacity = buffer.count
        while capacity < size { capacity *= 2 }
        let larger = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 8)
        larger.copyMemory(from: UnsafeRawBufferPointer(rebasing: buffer[offset..<filled]))
        buffer.deallocate()
        buffer = larger
        filled -= offset
    }
}
