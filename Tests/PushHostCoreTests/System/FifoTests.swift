import Testing
@testable import PushHostSystem

/// The dispatch thread's queue: first in, first out, across its storage's
/// end and through growth, every element released once.
@Suite struct FifoTests {
    final class Counted {
        let value: Int
        let released: Box

        init(_ value: Int, _ released: Box) {
            self.value = value
            self.released = released
        }

        deinit { released.count += 1 }
    }

    final class Box { var count = 0 }

    @Test func keepsTheOrderAcrossItsEndAndThroughGrowth() {
        var fifo = Fifo<Int>(capacity: 4)
        var expected: [Int] = []
        var next = 0
        // Fill, take some, fill past the end (so the elements wrap), then grow while wrapped.
        for (adds, takes) in [(3, 2), (3, 1), (6, 5), (1, 5)] {
            for _ in 0..<adds {
                fifo.append(next)
                expected.append(next)
                next += 1
            }
            let count = fifo.count
            var held: [Int] = []
            for position in fifo.indices { held.append(fifo[position]) }
            #expect(count == expected.count)
            #expect(held == expected)
            for _ in 0..<takes {
                let first = fifo.removeFirst()
                #expect(first == expected.removeFirst())
            }
        }
        let isEmpty = fifo.isEmpty
        let popped = fifo.popFirst()
        #expect(isEmpty)
        #expect(popped == nil)
    }

    @Test func anElementChangesInPlace() {
        var fifo = Fifo<(name: String, count: Int)>(capacity: 2)
        fifo.append(("a", 1))
        fifo.append(("b", 2))
        fifo[1].count += 40
        let (changed, first) = (fifo[1].count, fifo[0].name)
        #expect(changed == 42)
        #expect(first == "a")
    }

    @Test func releasesWhatItHoldsOnce() {
        let released = Box()
        do {
            var fifo = Fifo<Counted>(capacity: 2)
            for value in 0..<5 { fifo.append(Counted(value, released)) }
            let first = fifo.removeFirst().value
            #expect(first == 0)
            #expect(released.count == 1)
            fifo.removeAll()
            #expect(released.count == 5)
            for value in 5..<8 { fifo.append(Counted(value, released)) }
            _ = fifo.removeFirst()
            // Two left, wrapped; the queue ends with them.
        }
        #expect(released.count == 8)
    }
}
