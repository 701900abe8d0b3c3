/// A first-in, first-out queue for the dispatch thread's records: its
/// elements are read in place (`queue[0].field` loads that field alone,
/// where a `Deque` subscript copies the whole element, retaining each
/// reference in it), moved in and out without a reference count, and its
/// storage is never shared, so no append asks whether it is unique.
///
/// Not copyable: one owner, one storage.
@usableFromInline package struct Fifo<Element: ~Copyable>: ~Copyable {
    @usableFromInline var storage: UnsafeMutablePointer<Element>
    @usableFromInline var capacity: Int
    /// Where the first element is, and how many there are.
    @usableFromInline var head = 0
    @usableFromInline package internal(set) var count = 0

    package init(capacity: Int = 16) {
        self.capacity = max(capacity, 1)
        storage = .allocate(capacity: self.capacity)
    }

    deinit {
        let first = min(count, capacity - head)
        (storage + head).deinitialize(count: first)
        storage.deinitialize(count: count - first)
        storage.deallocate()
    }

    @inlinable package var isEmpty: Bool { count == 0 }

    @inlinable @inline(__always)
    func slot(_ position: Int) -> Int {
        let slot = head &+ position
        return slot >= capacity ? slot &- capacity : slot
    }

    /// The element at `position` from the first, in place.
    @inlinable package subscript(position: Int) -> Element {
        @inline(__always) unsafeAddress {
            precondition(position >= 0 && position < count, "Fifo: position out of range")
            return UnsafePointer(storage + slot(position))
        }
        @inline(__always) unsafeMutableAddress {
            precondition(position >= 0 && position < count, "Fifo: position out of range")
            return storage + slot(position)
        }
    }

    @inlinable @inline(__always)
    package mutating func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (storage + slot(count)).initialize(to: element)
        count &+= 1
    }

    @inlinable @inline(__always)
    package mutating func removeFirst() -> Element {
        precondition(count > 0, "Fifo: removeFirst on an empty queue")
        let element = (storage + head).move()
        head = head &+ 1 == capacity ? 0 : head &+ 1
        count &-= 1
        return element
    }

    @inlinable @inline(__always)
    package mutating func popFirst() -> Element? {
        count == 0 ? nil : removeFirst()
    }

    /// Takes the last element (a queue used as a stack: the one put last,
    /// still warm, comes back first).
    @inlinable @inline(__always)
    package mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        count &-= 1
        return (storage + slot(count)).move()
    }

    package mutating func removeAll() {
        while count > 0 { _ = removeFirst() }
        head = 0
    }

    /// The positions of its elements, first to last.
    @inlinable package var indices: Range<Int> { 0..<count }

    @usableFromInline mutating func grow() {
        let larger = UnsafeMutablePointer<Element>.allocate(capacity: capacity * 2)
        let first = min(count, capacity - head)
        (larger).moveInitialize(from: storage + head, count: first)
        (larger + first).moveInitialize(from: storage, count: count - first)
        storage.deallocate()
        storage = larger
        capacity *= 2
        head = 0
    }
}
