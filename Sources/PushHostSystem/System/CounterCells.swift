import Atomics

/// Counters that one thread adds to and any thread reads: each a cell
/// that the writer moves with a relaxed load and store, no locked
/// instruction and no call. What the dispatch thread counts per message
/// for `--metrics` is kept here, and copied into the registry's counters
/// when a scrape comes (``HostMetrics``).
@usableFromInline package final class CounterCells: @unchecked Sendable {
    private let cells: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>
    let count: Int

    package init(count: Int) {
        self.count = count
        cells = .allocate(capacity: count)
        cells.initialize(repeating: .init(0), count: count)
    }

    deinit {
        cells.deallocate()
    }

    /// What the one writer adds through: the cells' address, and no
    /// reference to count (the cells live as long as the run's metrics).
    package var adder: Adder { Adder(cells: cells) }

    @usableFromInline package struct Adder {
        @usableFromInline let cells: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>

        /// [the one writer] Adds 1 to cell `index`.
        @inline(__always)
        @inlinable package func add(_ index: Int) {
            CounterCells.add(1, at: cells + index)
        }
    }

    /// [the one writer] Adds `amount` to `cell`: a load and a store, no locked instruction.
    @inline(__always)
    @inlinable package static func add(_ amount: UInt64, at cell: UnsafeMutablePointer<UnsafeAtomic<UInt64>.Storage>) {
        let atomic = UnsafeAtomic<UInt64>(at: cell)
        atomic.store(atomic.load(ordering: .relaxed) &+ amount, ordering: .relaxed)
    }

    /// [any thread] The value of cell `index`.
    package func value(_ index: Int) -> UInt64 {
        UnsafeAtomic<UInt64>(at: cells + index).load(ordering: .relaxed)
    }
}
