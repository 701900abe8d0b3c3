#if canImport(Glibc)
import Glibc
#endif
import PushHostJSON

/// The members of a normalized object (`data`, `notification`) merged from
/// its parts: in first-seen order, a later member of the same key replacing
/// the value of an earlier one, in time linear in the number of members.
///
/// ```
/// {"a":1,"b":2} then {"b":3,"c":4}   ->   {"a":1,"b":3,"c":4}
/// {"a":1,"a":2}                      ->   {"a":2}
/// ```
///
/// A key is found by a linear scan while there are few members, and by a
/// hash table once there are more, so a message of one key pays for no
/// table and a message of a million keys for no quadratic scan. Keys borrow
/// the message's bytes (an escaped key is unescaped into storage of its
/// own), so the merge lives only while the message is held.
struct MergedMembers: ~Copyable {
    /// The members so far, in first-seen order.
    private var members: [(key: UnsafeRawBufferPointer, value: JSONValue)] = []
    /// Each key's position in `members`, once there are more than `scanLimit`.
    private var positions: [MemberKey: Int] = [:]
    /// Whether `positions` is kept: there are more than `scanLimit` members.
    private var indexed = false
    /// The unescaped copies of escaped keys, freed with the merge.
    private var copies: [UnsafeMutableRawBufferPointer] = []
    /// Up to this many members, a key is looked for by comparing it with each.
    private static let scanLimit = 16

    /// The most members the parts can give, to size the table once.
    private let expected: Int

    /// A merge of parts that hold `expected` members at most.
    init(expected: Int) {
        self.expected = expected
        members.reserveCapacity(expected)
    }

    deinit {
        for copy in copies { copy.deallocate() }
    }

    /// Adds the member `key` (its JSON token), or replaces the value of the
    /// member of the same key added before.
    mutating func add(key: JSONValue, value: JSONValue) {
        guard key.isEscaped else { return add(key.rawBytes, value) }
        var bytes: [UInt8] = []
        key.appendUnescaped(to: &bytes)
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        bytes.withUnsafeBytes { copy.copyMemory(from: $0) }
        copies.append(copy)
        add(UnsafeRawBufferPointer(copy), value)
    }

    /// Adds the member whose unescaped key is `key`, or replaces the value
    /// of the member of the same key added before; `key` must stay valid
    /// for as long as the merge.
    mutating func add(_ key: UnsafeRawBufferPointer, _ value: JSONValue) {
        let position: Int
        if indexed {
            // One probe of the table finds the key, or claims the next position for it.
            position = Self.claim(MemberKey(bytes: key), next: members.count, in: &positions)
        } else {
            position = members.firstIndex { MemberKey(bytes: $0.key) == MemberKey(bytes: key) } ?? members.count
        }
        guard position == members.count else {
            members[position].value = value
            return
        }
        members.append((key, value))
        if !indexed && members.count > Self.scanLimit {
            positions.reserveCapacity(max(expected, members.count))
            for (position, member) in members.enumerated() { positions[MemberKey(bytes: member.key)] = position }
            indexed = true
        }
    }

    /// The position of `key` in `table`, or `next`, stored for it when it is absent.
    private static func claim(_ key: MemberKey, next: Int, in table: inout [MemberKey: Int]) -> Int {
        read(&table[key, default: next])
    }

    /// The value at `place`: through `inout`, a dictionary's default
    /// subscript stores the default when the key is absent.
    private static func read(_ place: inout Int) -> Int {
        place
    }

    /// Appends the merged object as compact JSON.
    func append(to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "{"))
        for (position, member) in members.enumerated() {
            if position > 0 { bytes.append(UInt8(ascii: ",")) }
            JSONWriter.appendString(member.key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            member.value.appendCompact(to: &bytes)
        }
        bytes.append(UInt8(ascii: "}"))
    }
}

/// An unescaped object key, compared and hashed by its bytes.
struct MemberKey: Hashable {
    let bytes: UnsafeRawBufferPointer

    /// Whether the two keys are the same bytes.
    static func == (a: MemberKey, b: MemberKey) -> Bool {
        a.bytes.count == b.bytes.count && (a.bytes.count == 0 || memcmp(a.bytes.baseAddress!, b.bytes.baseAddress!, a.bytes.count) == 0)
    }

    /// Hashes the bytes with the process's seeded hasher, so that no input
    /// can choose keys that collide.
    func hash(into hasher: inout Hasher) {
        hasher.combine(bytes: bytes)
    }
}
