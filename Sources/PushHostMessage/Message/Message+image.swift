import PushHostJSON
import PushHostRecords
import PushHostSystem

/// A message as the host read it, for a worker process to read it the same
/// without parsing it again: a header (the layout, its record's source and
/// what else the host worked out), the JSON tape, the bytes and the
/// source's name, in one block whose every part starts 8-aligned. The
/// worker runs the same executable, so the header's memory means the same
/// there; it trusts the host with the block, as it trusts the host's calls.
extension Message {
    /// What a message holds besides its bytes and tape.
    struct ImageHeader: BitwiseCopyable {
        var layout: MessageLayout
        var lifetime: Lifetime
        var dataObject: Int32
        var target: Int32
        var normalized: Bool
        var inputCount: UInt32
        var tapeCount: UInt32
        /// Its record's source: 0 standard input, 1 a spool file, 2 a
        /// plugin; the line (-1 for none) or the record; the bytes of the
        /// file's or the plugin's name.
        var sourceKind: UInt8
        var sourceNumber: Int64
        var sourceNameCount: UInt32
    }

    /// Where the tape, the bytes and the source's name begin in an image,
    /// and its whole size (a multiple of 8).
    private static func imageParts(inputCount: Int, tapeCount: Int, nameCount: Int) -> (tape: Int, input: Int, name: Int, size: Int) {
        let tape = aligned(MemoryLayout<ImageHeader>.size)
        let input = tape + aligned(tapeCount * MemoryLayout<JSONToken>.stride)
        let name = input + aligned(inputCount)
        return (tape, input, name, name + aligned(nameCount))
    }

    /// The longest name a source has in an image: a spool file's, a plugin's.
    private static let longestSourceName = 4096

    /// Its source's kind and number, as an image holds them.
    private var sourceNumbers: (kind: UInt8, number: Int64) {
        switch shown.pointee.source {
        case .stdin(let line): (0, Int64(line))
        case .spool(_, let line): (1, Int64(line ?? -1))
        case .plugin(_, let record): (2, Int64(record))
        }
    }

    /// Its source's name (a spool file's, a plugin's), nil for standard input.
    private var sourceName: String? {
        switch shown.pointee.source {
        case .stdin: nil
        case .spool(let file, _): file
        case .plugin(let name, _): name
        }
    }

    /// How many bytes of its source's name an image holds.
    private var sourceNameCount: Int {
        if case .stdin = shown.pointee.source { return 0 }
        return min(sourceName?.utf8.count ?? 0, Self.longestSourceName)
    }

    private static func aligned(_ count: Int) -> Int { (count + 7) & ~7 }

    /// The largest image of a message whose bytes are at most `bytes` long
    /// (a tape has at most a token for every two bytes, and one more).
    package static func largestImage(bytes: Int) -> Int {
        imageParts(inputCount: bytes, tapeCount: bytes / 2 + 2, nameCount: longestSourceName).size
    }

    /// The image of the message `opaque` names, to write; nil when it names
    /// no message. [dispatch thread] Without the accessors' lock: only the
    /// dispatch thread changes what a message reads once its interceptors'
    /// turns are over (a `set` after its turn changes nothing), and an
    /// isolated interceptor's turn has no other writer.
    package static func image(of opaque: OpaquePointer) -> Image? {
        guard let slot = handles.slot(at: UInt(bitPattern: UnsafeRawPointer(opaque))) else { return nil }
        let bits = slot.pointee.load(ordering: .acquiring)
        guard bits >= Handles.firstObject, let object = UnsafeRawPointer(bitPattern: bits) else { return nil }
        // Never freed (see the type): no reference count is taken.
        return Unmanaged<Message>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.image(handle: slot) }
    }

    /// Its image, while it still has the handle at `address` (its record
    /// at hand: no lookup); nil once it has another. [dispatch thread]
    package func image(handle address: UInt) -> Image? {
        image(handle: Handles.Slot(bitPattern: address))
    }

    private func image(handle slot: Handles.Slot?) -> Image? {
        guard handle == slot, input != nil, tape != nil else { return nil }
        let nameCount = sourceNameCount
        let parts = Self.imageParts(inputCount: inputCount, tapeCount: tapeCount, nameCount: nameCount)
        return Image(message: Unmanaged.passUnretained(self), size: parts.size, nameCount: nameCount)
    }

    /// A message's image, as ``image(of:)`` found it.
    package struct Image {
        fileprivate let message: Unmanaged<Message>
        /// Its bytes (a multiple of 8).
        package let size: Int
        /// The bytes of its source's name.
        fileprivate let nameCount: Int

        /// Writes it at `image` (8-aligned, `size` bytes).
        package func write(to image: UnsafeMutableRawPointer) {
            message._withUnsafeGuaranteedRef { message in
                let source = message.sourceNumbers
                let parts = imageParts(inputCount: message.inputCount, tapeCount: message.tapeCount, nameCount: nameCount)
                if nameCount > 0, var name = message.sourceName {
                    name.withUTF8 { (image + parts.name).copyMemory(from: $0.baseAddress!, byteCount: nameCount) }
                }
                let header = image.assumingMemoryBound(to: ImageHeader.self)
                copyLayout(from: message.layoutAt, to: UnsafeMutableRawPointer(header) + headerLayout)
                header.pointee.lifetime = message.lifetime
                header.pointee.dataObject = message.dataObject
                header.pointee.target = message.target
                header.pointee.normalized = message.normalized
                header.pointee.inputCount = UInt32(message.inputCount)
                header.pointee.tapeCount = UInt32(message.tapeCount)
                header.pointee.sourceKind = source.kind
                header.pointee.sourceNumber = source.number
                header.pointee.sourceNameCount = UInt32(nameCount)
                (image + parts.tape).copyMemory(from: message.tape!, byteCount: message.tapeCount * MemoryLayout<JSONToken>.stride)
                (image + parts.input).copyMemory(from: message.input!, byteCount: message.inputCount)
            }
        }
    }

    /// Points the message at the image at `image` (8-aligned, written by
    /// ``Image/write(to:)`` in the host), borrowing it: every field, and its
    /// record's source, reads as it did in the host. `detach(locked:)` copies it.
    package func adopt(image: UnsafeRawPointer) {
        let header = image.assumingMemoryBound(to: ImageHeader.self)
        let nameCount = Int(header.pointee.sourceNameCount)
        let parts = Self.imageParts(inputCount: Int(header.pointee.inputCount), tapeCount: Int(header.pointee.tapeCount), nameCount: nameCount)
        let number = Int(header.pointee.sourceNumber)
        switch header.pointee.sourceKind {
        case 0: shown.pointee.source = .stdin(line: number)
        case 1: shown.pointee.source = .spool(file: Self.sourceName(image + parts.name, nameCount), line: number < 0 ? nil : number)
        default: shown.pointee.source = .plugin(name: Self.sourceName(image + parts.name, nameCount), record: number)
        }
        // Read in place, with no copy (see `layoutAt`).
        layoutAt = (UnsafeRawPointer(header) + Self.headerLayout).assumingMemoryBound(to: MessageLayout.self)
        shown.pointee.lifetime = header.pointee.lifetime
        dataObject = header.pointee.dataObject
        target = header.pointee.target
        normalized = header.pointee.normalized
        input = (image + parts.input).assumingMemoryBound(to: UInt8.self)
        inputCount = Int(header.pointee.inputCount)
        tape = (image + parts.tape).assumingMemoryBound(to: JSONToken.self)
        tapeCount = Int(header.pointee.tapeCount)
    }

    /// A layout copied as bytes, in place: copied as a value, its every
    /// field takes a move of its own.
    @inline(__always)
    private static func copyLayout(from source: UnsafeRawPointer, to target: UnsafeMutableRawPointer) {
        target.copyMemory(from: source, byteCount: MemoryLayout<MessageLayout>.size)
    }

    /// Where the layout is in an image's header.
    private static var headerLayout: Int { MemoryLayout<ImageHeader>.offset(of: \.layout)! }

    private static func sourceName(_ bytes: UnsafeRawPointer, _ count: Int) -> String {
        String(decoding: UnsafeRawBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}

/// The header's parts, copied across processes as bytes.
extension MessageLayout: BitwiseCopyable {}
extension MessageLayout.Parts: BitwiseCopyable {}
extension MessageLayout.Part: BitwiseCopyable {}
extension MessageLayout.Field: BitwiseCopyable {}
extension MessageFormat: BitwiseCopyable {}
extension Lifetime: BitwiseCopyable {}
