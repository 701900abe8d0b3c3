import PushHostJSON
import PushHostRecords
import PushHostSystem

/// A message as the host read it, for a worker process to read it the same
/// without parsing it again: a header (the layout and what else the host
/// worked out), the JSON tape and the bytes, in one block whose every part
/// starts 8-aligned. The worker runs the same executable, so the header's
/// memory means the same there; it trusts the host with the block, as it
/// trusts the host's calls.
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
    }

    /// Where the tape and the bytes begin in an image, and its whole size
    /// (a multiple of 8).
    private static func imageParts(inputCount: Int, tapeCount: Int) -> (tape: Int, input: Int, size: Int) {
        let tape = aligned(MemoryLayout<ImageHeader>.size)
        let input = tape + aligned(tapeCount * MemoryLayout<JSONToken>.stride)
        return (tape, input, input + aligned(inputCount))
    }

    private static func aligned(_ count: Int) -> Int { (count + 7) & ~7 }

    /// The largest image of a message whose bytes are at most `bytes` long
    /// (a tape has at most a token for every two bytes, and one more).
    package static func largestImage(bytes: Int) -> Int {
        imageParts(inputCount: bytes, tapeCount: bytes / 2 + 2).size
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
        let message = Unmanaged<Message>.fromOpaque(object)
        return message._withUnsafeGuaranteedRef { message in
            guard message.handle == slot, message.input != nil, message.tape != nil else { return nil }
            return Image(message: Unmanaged.passUnretained(message), size: imageParts(inputCount: message.inputCount, tapeCount: message.tapeCount).size)
        }
    }

    /// A message's image, as ``image(of:)`` found it.
    package struct Image {
        fileprivate let message: Unmanaged<Message>
        /// Its bytes (a multiple of 8).
        package let size: Int

        package var source: RecordSource { message._withUnsafeGuaranteedRef { $0.source } }

        /// Writes it at `image` (8-aligned, `size` bytes).
        package func write(to image: UnsafeMutableRawPointer) {
            message._withUnsafeGuaranteedRef { message in
                let parts = imageParts(inputCount: message.inputCount, tapeCount: message.tapeCount)
                let header = image.assumingMemoryBound(to: ImageHeader.self)
                // From place to place, in one go: the layout is large.
                header.pointee.layout = message.shown.pointee.layout
                header.pointee.lifetime = message.lifetime
                header.pointee.dataObject = message.dataObject
                header.pointee.target = message.target
                header.pointee.normalized = message.normalized
                header.pointee.inputCount = UInt32(message.inputCount)
                header.pointee.tapeCount = UInt32(message.tapeCount)
                (image + parts.tape).copyMemory(from: message.tape!, byteCount: message.tapeCount * MemoryLayout<JSONToken>.stride)
                (image + parts.input).copyMemory(from: message.input!, byteCount: message.inputCount)
            }
        }
    }

    /// Points the message at the image at `image` (8-aligned, written by
    /// ``Image/write(to:)`` in the host), borrowing it: every field reads as
    /// it did in the host; `source` is the record's. `detach()` copies it.
    package func adopt(image: UnsafeRawPointer, source: RecordSource) {
        let header = image.assumingMemoryBound(to: ImageHeader.self)
        let parts = Self.imageParts(inputCount: Int(header.pointee.inputCount), tapeCount: Int(header.pointee.tapeCount))
        shown.pointee.source = source
        // From place to place, in one go: the layout is large.
        shown.pointee.layout = header.pointee.layout
        shown.pointee.lifetime = header.pointee.lifetime
        dataObject = header.pointee.dataObject
        target = header.pointee.target
        normalized = header.pointee.normalized
        input = (image + parts.input).assumingMemoryBound(to: UInt8.self)
        inputCount = Int(header.pointee.inputCount)
        tape = (image + parts.tape).assumingMemoryBound(to: JSONToken.self)
        tapeCount = Int(header.pointee.tapeCount)
    }
}

/// The header's parts, copied across processes as bytes.
extension MessageLayout: BitwiseCopyable {}
extension MessageLayout.Parts: BitwiseCopyable {}
extension MessageLayout.Part: BitwiseCopyable {}
extension MessageLayout.Field: BitwiseCopyable {}
extension MessageFormat: BitwiseCopyable {}
extension Lifetime: BitwiseCopyable {}
