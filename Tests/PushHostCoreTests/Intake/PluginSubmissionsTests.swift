import CPushHost
import Foundation
import Testing
@testable import PushHostSystem
@testable import PushHostIntake
@testable import PushHostRecords

/// `ph.intake/1` as the host keeps it: a source has no more out than
/// `--max-pending`, and a stop hands back what was not started.
@Suite struct PluginSubmissionsTests {
    /// An intake that keeps what it takes: the records' sources and contents' kinds.
    final class KeepingIntake: Intake {
        var hasRoom: Bool { true }
        private(set) var taken: [String] = []

        func take(_ record: borrowing Record) {
            switch record.content {
            case .failed(let reason): taken.append("failed \(record.source.place): \(reason)")
            case .tooLong: taken.append("too long \(record.source.place)")
            default: taken.append("record \(record.source.place)")
            }
        }
    }

    /// What the `done` callbacks heard, by the number in their context.
    nonisolated(unsafe) static var heard: [Int: String] = [:]
    static let lock = NSLock()

    static let done: ph_record_done = { context, result, line in
        let number = Int(bitPattern: context)
        lock.withLock { heard[number] = "\(result.rawValue) \(String(cString: line))" }
    }

    static func submit(_ queue: PluginSubmissions, _ json: String, flags: UInt32 = 0, context: Int? = nil) -> PluginSubmissions.Answer {
        Array(json.utf8).withUnsafeBytes { bytes in
            queue.submit(bytes, from: "src", flags: flags, arrival: 0, done: context.map { _ in Self.done },
                         context: context.map { UnsafeMutableRawPointer(bitPattern: $0)! })
        }
    }

    /// What `body` returns, run on a thread of its own (not the dispatch thread, which never waits).
    static func onAnotherThread(_ body: @escaping @Sendable () -> [PluginSubmissions.Answer]) -> [PluginSubmissions.Answer] {
        nonisolated(unsafe) var result: [PluginSubmissions.Answer] = []
        let finished = DispatchSemaphore(value: 0)
        Thread {
            result = body()
            finished.signal()
        }.start()
        finished.wait()
        return result
    }

    @Test func aSourceWaitsWhileTheHostHoldsItsLimit() throws {
        let queue = PluginSubmissions(limit: 2, maxBytes: 65536)
        queue.openOnThisThread()
        let intake = KeepingIntake()
        let early = Self.onAnotherThread {
            [Self.submit(queue, "{}"), Self.submit(queue, "{}"), Self.submit(queue, "{}", flags: PH_RECORD_NO_WAIT)]
        }
        #expect(early == [.taken, .taken, .full])

        // Taken by the host, the two still count: a third waits until one ends.
        queue.deliver(to: intake)
        let third = DispatchSemaphore(value: 0)
        Thread {
            #expect(Self.submit(queue, "{}") == .taken)
            third.signal()
        }.start()
        #expect(third.wait(timeout: .now() + .milliseconds(200)) == .timedOut, "a third record went past --max-pending")
        queue.note(held: 1)
        #expect(third.wait(timeout: .now() + .seconds(10)) == .success, "the waiting submit never went on")
        queue.deliver(to: intake)
        #expect(intake.taken == ["record plugin src, record 1", "record plugin src, record 2", "record plugin src, record 3"])
    }

    @Test func aStopHandsBackWhatWasNotStarted() throws {
        let queue = PluginSubmissions(limit: 8, maxBytes: 65536)
        queue.openOnThisThread()
        let intake = KeepingIntake()
        let answers = Self.onAnotherThread { [Self.submit(queue, "{}", context: 1), Self.submit(queue, "{}")] }
        #expect(answers == [.taken, .taken])
        queue.close()
        #expect(Self.submit(queue, "{}", context: 3) == .stopping)
        queue.giveBack(to: intake)
        #expect(queue.isEmpty)
        // With done: PH_RETRY (1) and no report line; without (its source
        // answered for it already): handled, within the stop's deadline.
        #expect(Self.lock.withLock { Self.heard[1] } == "1 ")
        #expect(Self.lock.withLock { Self.heard[3] } == nil)
        #expect(intake.taken == ["record plugin src, record 2"])
    }

    /// A record longer than `--max-bytes` is taken (its source learns its
    /// result) and reaches the host as too long, never copied, as a line of
    /// standard input would; one of exactly `--max-bytes` is a record.
    @Test func aRecordLongerThanMaxBytesReachesTheHostAsTooLong() throws {
        let queue = PluginSubmissions(limit: 8, maxBytes: 16)
        queue.openOnThisThread()
        let intake = KeepingIntake()
        let answers = Self.onAnotherThread {
            [Self.submit(queue, #"{"pad":"123456"}"#), Self.submit(queue, #"{"pad":"1234567"}"#), Self.submit(queue, "{}")]
        }
        #expect(answers == [.taken, .taken, .taken])
        queue.deliver(to: intake)
        #expect(intake.taken == ["record plugin src, record 1", "too long plugin src, record 2", "record plugin src, record 3"])
    }
}
