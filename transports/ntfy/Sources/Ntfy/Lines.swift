/// Cuts a byte stream into lines, holding at most `maxLine` bytes of the
/// line under way: a longer line is counted as it passes, never kept, and
/// reported with its size once its newline comes.
struct LineSplitter {
    enum Piece: Equatable {
        /// One line, without its `\n` (nor a `\r` before it).
        case line([UInt8])
        /// A line longer than the bound, skipped: its size in bytes.
        case oversized(Int)
    }

    let maxLine: Int
    /// The line under way, while it is within the bound.
    private var pending: [UInt8] = []
    /// The size of the line under way once it went over the bound (its bytes are gone).
    private var skipped: Int?

    init(maxLine: Int) {
        self.maxLine = maxLine
    }

    /// The bytes of the line under way that the stream has not ended yet.
    var unfinished: Int { skipped ?? pending.count }

    /// Takes `bytes`, calling `emit` for each line they end.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, _ emit: (Piece) -> Void) {
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let end = newline ?? bytes.endIndex
            take(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
            guard let newline else { return }
            emit(finishLine())
            start = newline + 1
        }
    }

    /// Adds a run of bytes without a newline to the line under way.
    private mutating func take(_ run: UnsafeRawBufferPointer) {
        if let count = skipped {
            skipped = count + run.count
        } else if pending.count + run.count > maxLine {
            skipped = pending.count + run.count
            pending = []
        } else {
            pending.append(contentsOf: run)
        }
    }

    private mutating func finishLine() -> Piece {
        defer {
            skipped = nil
            pending.removeAll(keepingCapacity: pending.capacity <= 64 << 10)
        }
        if let count = skipped { return .oversized(count) }
        if pending.last == UInt8(ascii: "\r") { return .line(Array(pending.dropLast())) }
        return .line(pending)
    }
}
