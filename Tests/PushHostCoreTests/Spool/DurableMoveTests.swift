import Foundation
import Logging
import Testing
@testable import PushHostCore
@testable import PushHostPlugins
@testable import PushHostIntake
@testable import PushHostRecords

/// A spool file leaves new/ only once its outcome is durable: the moves of
/// a batch wait for one `durable()` that says yes.
@Suite struct DurableMoveTests {
    /// An intake that takes every record at once and answers it done.
    final class AnsweringIntake: Intake {
        var hasRoom: Bool { true }
        private(set) var taken = 0

        func take(_ record: borrowing Record) {
            taken += 1
            record.completion?(RecordOutcome(result: .done, problem: nil, line: []))
        }
    }

    /// One run over `spool`: every file in new/ is handed, then the finished ones moved.
    static func run(_ spool: Spool, durable: @escaping () -> Bool) throws -> Int {
        let source = try SpoolSource(
            spool: spool, maxBytes: 1024, events: true, journal: CrashJournal(path: nil), crashLimit: 3, logger: Logger(label: "test"), durable: durable)
        let intake = AnsweringIntake()
        source.deliver(to: intake)
        source.moveFinished()
        #expect(source.nothingUnderWay)
        return intake.taken
    }

    @Test func filesMoveOnlyOnceTheReportIsDurable() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pushhost-durable-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let spool = try Spool(directory: folder)
        for name in ["a", "b"] {
            try #"{"data":{}}"#.write(toFile: "\(folder)/new/\(name)", atomically: false, encoding: .utf8)
        }
        var asked = 0
        #expect(try Self.run(spool) { asked += 1; return false } == 2)
        #expect(asked == 1, "durable() is asked once for the batch")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(folder)/new").sorted() == ["a", "b"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(folder)/cur").isEmpty)

        #expect(try Self.run(spool) { asked += 1; return true } == 2)
        #expect(asked == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(folder)/new").isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: "\(folder)/cur").sorted() == ["a", "b"])
    }
}
