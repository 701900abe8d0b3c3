import Foundation
import Testing

/// A message that waits (its data verdict comes later, or the one before it
/// does) reads its own bytes, however long it waits: the batch of standard
/// input it came in is filled again with later lines once every record of
/// it was taken, and the messages that still wait then keep a copy. Over
/// 1.5 MB, standard input is read on its own thread, in batches of 64 KiB;
/// every 500th message waits 50 ms for its verdict, so that thousands
/// queue behind it across batches. The background plugin reads each
/// message's body after its data stage, in the host or in a worker (where
/// its message is written from the host's copy).
@Suite struct BatchReuseTests {
    @Test(arguments: [false, true])
    func aWaitingMessageReadsItsOwnBytesAfterItsBatchIsFilledAgain(isolated: Bool) throws {
        let scratch = try Scratch()
        let count = 6000
        var input = ""
        for number in 0..<count {
            let late = number % 500 == 250 ? #","fault":"later","only":"gate""# : ""
            input += #"{"message_id":"m\#(number)","data":{"ask":"get:data.body","body":"\#(Self.body(number))"\#(late)}}"# + "\n"
        }
        let plugins = try scratch.worker("gate", [.data]) + scratch.worker("watcher", [.background])
        let run = try scratch.runHost(plugins + (isolated ? ["--isolate", "all"] : []), stdin: input, timeout: .seconds(120))
        #expect(run.exit == .status(0), "\(run.stderr)")
        #expect(run.report.count == count)
        #expect(run.statuses.allSatisfy { $0 == "delivered" }, "\(run.stderr)")
        var bodies: [String: String] = [:]
        for line in scratch.workerLines("watcher") where line.kind == "ask" && line.fields.count == 3 {
            bodies[line.id] = line.fields[2]
        }
        let wrong = (0..<count).filter { bodies["m\($0)"] != "get:data.body=" + Self.body($0) }
        #expect(wrong.isEmpty, "\(wrong.count) messages read another body, first m\(wrong.first ?? 0): \(bodies["m\(wrong.first ?? 0)"] ?? "none")")
        // The data plugin reads each late message's id again when it
        // completes it, 50 ms later, on a thread of its own (one a message:
        // they may end in any order).
        let completed = scratch.workerLines("gate").filter { $0.kind == "complete" }.map(\.id)
        #expect(completed.sorted() == (0..<count).filter { $0 % 500 == 250 }.map { "m\($0)" }.sorted())
    }

    /// The body of message `number`: 200 bytes that name it.
    static func body(_ number: Int) -> String {
        let name = "body-\(number)-"
        return name + String(repeating: Character(UnicodeScalar(UInt8(97 + number % 26))), count: 200 - name.count)
    }
}
