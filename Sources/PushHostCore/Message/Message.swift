#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One push message as plugins see it through `ph_message`: the record's
/// bytes and JSON tape, and the layout that says where each normalized
/// field lives in them.
///
/// Nothing is copied or unescaped up front. A message first borrows the
/// input buffer and the reader's tape; when it must outlive them (its data
/// stage is pending, or it queues behind one that is) `detach()` copies both.
/// The strings handed to plugins are allocated on request and live until
/// `reset()`, when the message is done.
///
/// The dispatch thread is the only writer of the storage; plugin threads
/// only read it, and the accessors they call take the lock that `detach`
/// and `reset` take too.
package final class Message: @unchecked Sendable {
    private(set) var source = RecordSource.stdin(line: 0)
    private(set) var layout = MessageLayout()
    /// The tape index of the target, or -1.
    private(set) var target: Int32 = -1
    private var input: UnsafePointer<UInt8>?
    private var tape: UnsafePointer<JSONToken>?
    private var owned: (input: UnsafeMutableRawBufferPointer, tape: UnsafeMutableBufferPointer<JSONToken>)?
    private var inputCount = 0
    private var tapeCount = 0
    /// The strings handed to plugins, freed by `reset()`.
    private let strings = Mutex(HandedOut())
    /// Whether any string was handed out since the last `reset()`: when
    /// none was, `reset()` takes no lock.
    private let handedOutAny = Atomic(false)

    package init() {}

    deinit {
        reset()
    }

    /// Points the message at a parsed push payload whose telling root
    /// members are `members`, borrowing its storage.
    package func load(_ document: JSONDocument, members: RootMembers, source: RecordSource, platform: Platform?, targetKey: UnsafeRawBufferPointer) {
        self.source = source
        input = document.input.baseAddress!.assumingMemoryBound(to: UInt8.self)
        inputCount = document.input.count
        tape = document.tape.baseAddress!
        tapeCount = document.tape.count
        let layout = MessageLayout(root: document.root, members: members, platform: platform)
        self.layout = layout
        target = -1
        if let value = Self.lookup(layout.data, key: targetKey, in: document.root), value.kind == .string || value.kind == .number {
            target = value.tapeIndex
        }
    }

    /// Copies the borrowed bytes and tape, so the message outlives the input buffer.
    func detach() {
        guard owned == nil, let input, let tape else { return }
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(inputCount, 1), alignment: 8)
        bytes.copyMemory(from: UnsafeRawBufferPointer(start: input, count: inputCount))
        let tokens = UnsafeMutableBufferPointer<JSONToken>.allocate(capacity: max(tapeCount, 1))
        _ = tokens.initialize(from: UnsafeBufferPointer(start: tape, count: tapeCount))
        strings.withLock { _ in
            self.input = UnsafePointer(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            self.tape = UnsafePointer(tokens.baseAddress!)
        }
        owned = (bytes, tokens)
    }

    /// Frees what the message handed out or copied; it may be loaded again.
    package func reset() {
        if handedOutAny.load(ordering: .acquiring) {
            strings.withLock { $0.free() }
            handedOutAny.store(false, ordering: .relaxed)
        }
        if let owned {
            owned.input.deallocate()
            owned.tape.deallocate()
            self.owned = nil
        }
        input = nil
        tape = nil
    }

    /// The root of the record.
    var root: JSONValue {
        JSONValue(tape: tape!, input: input!, index: 0)
    }

    /// The value at a tape index of the record.
    func value(_ index: Int32) -> JSONValue {
        JSONValue(tape: tape!, input: input!, index: Int(index))
    }

    // MARK: ph_message

    /// The pointer plugins get as `const ph_message *`.
    var opaque: OpaquePointer {
        OpaquePointer(Unmanaged.passUnretained(self).toOpaque())
    }

    /// `opaque` as a number, to find the message again without touching it.
    var address: UInt {
        UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
    }

    static func from(_ opaque: OpaquePointer) -> Message {
        Unmanaged<Message>.fromOpaque(UnsafeRawPointer(opaque)).takeUnretainedValue()
    }

    /// Runs `body` under the lock plugin threads share, with a place to keep
    /// the bytes it returns as a C string until `reset()`.
    func handOut(_ body: (Message) -> [UInt8]?) -> UnsafePointer<CChar>? {
        strings.withLock { handed in
            handedOutAny.store(true, ordering: .releasing)
            return body(self).map { handed.keep($0) }
        }
    }

    /// The member `key` of the merged `parts`, the last part that has it winning.
    static func lookup(_ parts: MessageLayout.Parts, key: UnsafeRawBufferPointer, in root: JSONValue) -> JSONValue? {
        for part in parts.reversed() {
            switch part {
            case .object(let index, let withoutAPS):
                if withoutAPS && key.equals("aps") { continue }
                if let value = root.at(index).member(named: key) { return value }
            case .member(let field, let index):
                if key.equals(field.name) {
                    return root.at(index)
                }
            }
        }
        return nil
    }
}

/// The C strings a message has handed to plugins.
struct HandedOut: @unchecked Sendable {
    private var pointers: [UnsafeMutablePointer<CChar>] = []

    /// Keeps a NUL-terminated copy of `bytes` and returns it.
    mutating func keep(_ bytes: [UInt8]) -> UnsafePointer<CChar> {
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: source.count) }
        }
        copy[bytes.count] = 0
        pointers.append(copy)
        return UnsafePointer(copy)
    }

    mutating func free() {
        guard !pointers.isEmpty else { return }
        for pointer in pointers { pointer.deallocate() }
        pointers.removeAll(keepingCapacity: true)
    }
}
