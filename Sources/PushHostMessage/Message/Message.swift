#if canImport(Glibc)
import Glibc
#endif
import PushHostJSON
import PushHostRecords
import PushHostSystem
import Synchronization

/// One push message as plugins see it through `ph_message`: the record's
/// bytes and JSON tape, and the layout that says where each normalized
/// field lives in them.
///
/// Nothing is copied or unescaped up front. A message first borrows the
/// input buffer and the reader's tape; when it must outlive them (its data
/// stage is pending, or it queues behind one that is) `detach(locked:)`
/// copies both (a message of standard input, only when its batch goes back
/// to the reader).
/// The strings handed to plugins are copied on request into the message's
/// ``MessageArena`` and live until `reset()`, when the message is done.
///
/// Plugins know a message by its handle, a slot of ``Handles``
/// (see there): a handle whose message is gone names no message, and the
/// accessors answer NULL for it. Accessors may race with the retiring of a
/// handle (a plugin still at work when its deadline passes), so the
/// messages that plugins see are never freed: ``MessagePool`` keeps them
/// for the next message, and an accessor checks, under the message's lock,
/// that the message still has the handle it came through.
///
/// The dispatch thread is the only writer of the storage; plugin threads
/// only read it, and the accessors they call take the lock that `detach`,
/// `reset` and a change of handle take too.
@usableFromInline package final class Message: @unchecked Sendable {
    @inlinable package var source: RecordSource { shown.pointee.source }
    /// `source.kindNumber`, read in place (reading `source` copies it).
    @usableFromInline package var sourceKind: Int { source.kindNumber }
    @inlinable package var layout: MessageLayout { layoutAt.pointee }
    /// The tape index of `data` when it is one whole object (no merge), or -1.
    var dataObject: Int32 = -1
    /// The tape index of the target, or -1.
    var target: Int32 = -1
    /// How long the message may wait for its UI stage, as its payload
    /// states it (kept through every rewrite of the message).
    @inlinable package var lifetime: Lifetime { shown.pointee.lifetime }
    /// `source`, `layout` and `lifetime`, which other targets read for
    /// every message: in memory of the message's own, so that a read
    /// inlined there is a load (a stored property of a class that another
    /// module reads costs a dynamic exclusivity check at each access).
    @usableFromInline let shown: UnsafeMutablePointer<Shown>
    /// Where the layout is read: `shown`'s own; in a worker, the image the
    /// call carries (read in place, until `reset()` or `detach(locked:)`).
    @usableFromInline var layoutAt: UnsafePointer<MessageLayout>
    /// `shown`'s layout.
    var ownLayout: UnsafeMutablePointer<MessageLayout> { shown.pointer(to: \.layout)! }
    @usableFromInline struct Shown {
        @usableFromInline var source = RecordSource.stdin(line: 0)
        @usableFromInline var layout = MessageLayout()
        @usableFromInline var lifetime = Lifetime.unlimited
    }
    /// Whether the bytes the message reads are a normalized message, as
    /// `normalizedJSON()` writes it: after a rewrite, or `load(normalized:)`.
    package var isNormalizedForm: Bool { normalized }
    /// `isNormalizedForm`, as the message keeps it.
    var normalized = false
    var input: UnsafePointer<UInt8>?
    var tape: UnsafePointer<JSONToken>?
    private var owned: (input: UnsafeMutableRawBufferPointer, tape: UnsafeMutableBufferPointer<JSONToken>)?
    /// What the message owned before its last `reset()`, kept for the next
    /// `detach` (a message that waits for a worker detaches every time).
    private var kept: (input: UnsafeMutableRawBufferPointer, tape: UnsafeMutableBufferPointer<JSONToken>)?
    var inputCount = 0
    var tapeCount = 0
    /// The strings handed to plugins, forgotten by `reset()`.
    private let strings = Mutex(MessageArena())
    /// Whether any string was handed out since the last `reset()`: when
    /// none was, `reset()` takes no lock.
    private let handedOutAny = Atomic(false)
    /// The slot plugins know this message by; written under the lock.
    var handle = Handles.none
    /// Why a handler could not take the message (see `noteProblem`); nil
    /// for nearly every message.
    private(set) var problem: String?
    /// `Handles.messages`, kept here: reading a global of another target
    /// is a call, and `message_get` finds its message through it.
    static let handles = Handles.messages

    /// A message with a handle of its own.
    package init() {
        shown = .allocate(capacity: 1)
        shown.initialize(to: Shown())
        layoutAt = UnsafePointer(shown.pointer(to: \.layout)!)
        handle = Handles.messages.claim(for: address)
    }

    deinit {
        reset()
        shown.deinitialize(count: 1)
        shown.deallocate()
        if let kept {
            kept.input.deallocate()
            kept.tape.deallocate()
        }
        strings.withLock { $0.free() }
        Handles.messages.retire(handle)
    }

    /// Points the message at a parsed push payload whose telling root
    /// members are `members`, borrowing its storage. A message whose actions
    /// are not in normalized form rewrites itself (see ``isNormalizedForm``).
    package func load(_ document: JSONDocument, members: RootMembers, source: RecordSource, platform: Platform?, targetKey: UnsafeRawBufferPointer) {
        borrow(document, source: source)
        normalized = false
        let shape = MessageLayout(root: document.root, members: members, platform: platform)
        shown.pointee.lifetime = shape.lifetime < 0 ? .unlimited : Lifetime(document.root.at(shape.lifetime), as: shape.lifetimeForm)
        let fields = DataFields(shape.data, in: document.root, targetKey: targetKey)
        var rewrite: ActionsRewrite?
        if !shape.notification.isEmpty || fields.actions >= 0 || shape.isAndroidData {
            // Completed on a copy, then stored whole.
            var rich = shape
            rewrite = rich.addRichFields(fields, in: document.root)
            shown.pointee.layout = rich
        } else {
            shown.pointee.layout = shape
        }
        dataObject = layout.data.singleObject
        target = -1
        if fields.target >= 0, case let kind = document.root.at(fields.target).kind, kind == .string || kind == .number {
            target = fields.target
        }
        if let rewrite { rewriteNormalized(rewrite) }
    }

    /// Points the message at a parsed normalized message, as
    /// `normalizedJSON()` writes it, borrowing its storage: every field
    /// reads as it did for the message that wrote it; `source` is this one.
    package func load(normalized document: JSONDocument, source: RecordSource) {
        borrow(document, source: source)
        shown.pointee.lifetime = .unlimited
        readNormalized(document.root)
    }

    /// The maximum depth for parsing a normalized message: one more than a
    /// record's, as a bare record's root is the normalized message's `data`.
    package static let normalizedMaxDepth = 65

    /// Points the message at `document`'s storage.
    @inline(__always)
    private func borrow(_ document: JSONDocument, source: RecordSource) {
        shown.pointee.source = source
        layoutAt = UnsafePointer(ownLayout)
        input = document.input.baseAddress!.assumingMemoryBound(to: UInt8.self)
        inputCount = document.input.count
        tape = document.tape.baseAddress!
        tapeCount = document.tape.count
    }

    /// Reads the normalized message at `root` of the storage the message has.
    private func readNormalized(_ root: JSONValue) {
        normalized = true
        shown.pointee.layout = MessageLayout(normalized: root)
        dataObject = layout.data.singleObject
        target = root.member(named: "target", kind: .string)?.tapeIndex ?? -1
    }

    /// Rewrites the message as its normalized JSON with its actions in
    /// normalized form, into storage of its own, and reads that from now on.
    private func rewriteNormalized(_ actions: ActionsRewrite) {
        var reader = JSONReader(maxDepth: Self.normalizedMaxDepth)
        var bytes: [UInt8] = []
        switch actions {
        case .remove:
            appendNormalizedJSON(to: &bytes, actions: .remove)
        case .replace(let array):
            array.withUnsafeBytes { array in
                // The array was written by NotificationActions: valid JSON.
                let document = try! reader.parse(array)
                appendNormalizedJSON(to: &bytes, actions: .replace(document.root))
            }
        }
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 8)
        bytes.withUnsafeBytes { storage.copyMemory(from: $0) }
        let tokens = UnsafeMutableBufferPointer<JSONToken>.allocate(capacity: bytes.count)
        // Written by appendNormalizedJSON from a valid record: valid JSON.
        let document = try! reader.parse(UnsafeRawBufferPointer(storage), into: tokens.baseAddress!)
        replaceStorage(with: (storage, tokens), document: document)
    }

    /// Reads, from now on, the normalized message `document` parsed into
    /// `storage` (which the message owns from now on), freeing what it
    /// owned before; under the lock, as accessors on other threads may be
    /// reading. `message_json` is built again when asked for.
    func replaceStorage(
        with storage: (input: UnsafeMutableRawBufferPointer, tape: UnsafeMutableBufferPointer<JSONToken>), document: JSONDocument
    ) {
        strings.withLock { arena in
            if let owned {
                owned.input.deallocate()
                owned.tape.deallocate()
            }
            owned = storage
            borrow(document, source: source)
            readNormalized(document.root)
            arena.json = nil
        }
    }

    /// Copies the borrowed bytes and tape, so the message outlives the
    /// input buffer; under its lock when `locked` (a plugin in the host may
    /// read it meanwhile, on another thread).
    package func detach(locked: Bool) {
        guard owned == nil, let input, let tape else { return }
        let (bytes, tokens) = storage(input: inputCount, tape: tapeCount)
        bytes.copyMemory(from: UnsafeRawBufferPointer(start: input, count: inputCount))
        _ = tokens.initialize(from: UnsafeBufferPointer(start: tape, count: tapeCount))
        if layoutAt != UnsafePointer(ownLayout) { ownLayout.pointee = layoutAt.pointee }
        if locked {
            strings.withLock { _ in point(at: bytes, tokens) }
        } else {
            point(at: bytes, tokens)
        }
        owned = (bytes, tokens)
    }

    private func point(at bytes: UnsafeMutableRawBufferPointer, _ tokens: UnsafeMutableBufferPointer<JSONToken>) {
        input = UnsafePointer(bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        tape = UnsafePointer(tokens.baseAddress!)
        layoutAt = UnsafePointer(ownLayout)
    }

    /// Room for `input` bytes and `tape` tokens: what was kept, when it is large enough.
    private func storage(input: Int, tape: Int) -> (UnsafeMutableRawBufferPointer, UnsafeMutableBufferPointer<JSONToken>) {
        if let kept, kept.input.count >= input, kept.tape.count >= tape {
            self.kept = nil
            return kept
        }
        return (.allocate(byteCount: max(input, 1024), alignment: 8), .allocate(capacity: max(tape, 128)))
    }

    /// Frees what the message handed out or copied; it may be loaded again.
    package func reset() {
        if handedOutAny.load(ordering: .acquiring) {
            strings.withLock { $0.reset() }
            handedOutAny.store(false, ordering: .relaxed)
        }
        if let owned {
            // Kept for the next detach, unless it is large (a rare long record).
            if let kept {
                kept.input.deallocate()
                kept.tape.deallocate()
            }
            if owned.input.count <= 1 << 16 {
                kept = owned
            } else {
                owned.input.deallocate()
                owned.tape.deallocate()
                kept = nil
            }
            self.owned = nil
        }
        input = nil
        tape = nil
        layoutAt = UnsafePointer(ownLayout)
        if problem != nil { problem = nil }
        if isGivenUp { isGivenUp = false }
    }

    /// The bytes the message reads: the record, or its normalized rewrite;
    /// valid until `reset()`.
    package var recordBytes: UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: input, count: inputCount)
    }

    /// The root of the record.
    package var root: JSONValue {
        JSONValue(tape: tape!, input: input!, index: 0)
    }

    /// The value at a tape index of the record.
    @usableFromInline package func value(_ index: Int32) -> JSONValue {
        JSONValue(tape: tape!, input: input!, index: Int(index))
    }

    // MARK: ph_message

    /// The pointer plugins get as `const ph_message *`: the handle's slot.
    @usableFromInline package var opaque: OpaquePointer {
        OpaquePointer(handle)
    }

    /// `opaque` as a number, to find the message again without touching it.
    package var handleAddress: UInt {
        UInt(bitPattern: handle)
    }

    /// This object's address, as its handle's slot holds it.
    private var address: UInt {
        UInt(bitPattern: Unmanaged.passUnretained(self).toOpaque())
    }

    /// Gives the message a new handle, for the next message it carries.
    package func claimHandle() {
        let fresh = Handles.messages.claim(for: address)
        strings.withLock { _ in handle = fresh }
    }

    /// Retires the handle: accessors find no message through it from now
    /// on, and with `expired` a late `complete` is recognized as late.
    package func retireHandle(expired: Bool = false) {
        let old = handle
        strings.withLock { _ in handle = Handles.none }
        Handles.messages.retire(old, mark: expired ? Handles.expired : 0)
    }

    /// Runs `body` with the message that `opaque` names, under the lock
    /// plugin threads share, with the arena where the C string it returns
    /// lives until `reset()`; nil when the handle names no message (any
    /// more), without touching memory the host no longer uses.
    @inline(__always)
    static func handOut(
        _ opaque: OpaquePointer, _ body: (Message, inout MessageArena) -> UnsafePointer<CChar>?
    ) -> UnsafePointer<CChar>? {
        guard let slot = handles.slot(at: UInt(bitPattern: UnsafeRawPointer(opaque))) else { return nil }
        let bits = slot.pointee.load(ordering: .acquiring)
        guard bits >= Handles.firstObject, let object = UnsafeRawPointer(bitPattern: bits) else { return nil }
        // Never freed (see the type), so locking it is safe even if it moved
        // on; and never released meanwhile, so no reference count is taken.
        return Unmanaged<Message>.fromOpaque(object)._withUnsafeGuaranteedRef { message in
            return message.strings.withLock { handed in
                guard message.handle == slot else { return nil }
                if !message.handedOutAny.load(ordering: .relaxed) { message.handedOutAny.store(true, ordering: .releasing) }
                return body(message, &handed)
            }
        }
    }

    /// Notes, on the dispatch thread, why a handler could not take the
    /// message behind `opaque` (an ffi handler whose argument does not fit
    /// its type): the message fails with `problem` as its error. Nothing
    /// happens when the handle names no message.
    /// The noted problem, which is then forgotten.
    package func takeProblem() -> String? {
        defer { if problem != nil { problem = nil } }
        return problem
    }

    /// Notes `problem` on this message (see `noteProblem`), from the thread that loads it.
    package func notePlainProblem(_ problem: String) {
        self.problem = self.problem.map { $0 + "; " + problem } ?? problem
    }

    /// Whether a stop gave up the handler call it was in (elsewhere than in
    /// the host): its record then ends as at a stop, `problem` saying why.
    package private(set) var isGivenUp = false

    /// Notes that a stop gave up the handler call on the message at `opaque`, and why.
    package static func noteGivenUp(_ opaque: OpaquePointer, _ problem: String) {
        _ = handOut(opaque) { message, _ in
            message.notePlainProblem(problem)
            message.isGivenUp = true
            return nil
        }
    }

    package static func noteProblem(_ opaque: OpaquePointer, _ problem: String) {
        _ = handOut(opaque) { message, _ in
            message.notePlainProblem(problem)
            return nil
        }
    }
}
