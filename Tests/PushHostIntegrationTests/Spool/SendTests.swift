import Foundation
import Testing

/// `pushhost send --to DIR [FILE|-]` writes the payload's exact bytes into
/// new/ through tmp/, or refuses it and writes nothing.
@Suite struct SendTests {
    /// Checks that `result` printed a path in new/ holding exactly `payload`, and returns the name.
    @discardableResult
    static func expectSent(_ result: Command, _ payload: String, spool: SpoolFolder) throws -> String {
        #expect(result.status == 0, "\(result.stderr)")
        let path = result.stdout.trimmingCharacters(in: .newlines)
        let name = (path as NSString).lastPathComponent
        #expect(path == spool.folder("new") + "/" + name)
        #expect(!name.hasPrefix("."))
        #expect(spool.contents("new", name) == Data(payload.utf8))
        #expect(spool.names("tmp").isEmpty)
        return name
    }

    @Test func sendsAFile() throws {
        let scratch = try Scratch()
        // Several lines, no trailing newline, non-ASCII text: the bytes are kept as they are.
        let payload = "{\"data\":{\"text\":\"café ☕\"}}\n{\"aps\":{\"alert\":\"hi\"}}"
        let file = try scratch.write("payload.json", payload)
        let result = try Command.pushhost(["send", "--to", scratch.spool.path, file])
        try Self.expectSent(result, payload, spool: scratch.spool)
        #expect(scratch.spool.names("new").count == 1)
        #expect(scratch.spool.names("") == ["cur", "failed", "new", "tmp"])
    }

    @Test(arguments: [["-"], []])
    func sendsStandardInput(_ argument: [String]) throws {
        let scratch = try Scratch()
        let payload = "{\n  \"notification\": {\"title\": \"T\"}\n}\n"
        let result = try Command.pushhost(["send", "--to", scratch.spool.path] + argument, stdin: payload)
        try Self.expectSent(result, payload, spool: scratch.spool)
    }

    /// Two sends never pick the same name.
    @Test func namesAreUnique() throws {
        let scratch = try Scratch()
        let names = try (1...5).map { index in
            try Self.expectSent(
                try Command.pushhost(["send", "--to", scratch.spool.path], stdin: #"{"n":\#(index)}"#),
                #"{"n":\#(index)}"#, spool: scratch.spool)
        }
        #expect(Set(names).count == 5)
        #expect(scratch.spool.names("new") == names.sorted())
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        let testDescription: String
        let payload: String
        let says: String
    }

    @Test(arguments: [
        Bad(testDescription: "invalid JSON", payload: #"{"data": }"#, says: "byte"),
        Bad(testDescription: "a non-object", payload: "[1, 2, 3]\n", says: "not a JSON object"),
        Bad(testDescription: "a string", payload: #""hello""#, says: "not a JSON object"),
        Bad(testDescription: "an empty payload", payload: "", says: "no JSON object"),
        Bad(testDescription: "blank lines only", payload: "\n\n", says: "no JSON object"),
        Bad(testDescription: "a bad second record", payload: "{\"a\":1}\n42\n", says: "line 2"),
    ])
    func badPayloadIsRefusedAndNothingWritten(_ bad: Bad) throws {
        for source in ["file", "stdin"] {
            let scratch = try Scratch()
            let spool = scratch.spool
            let result: Command
            if source == "file" {
                let file = try scratch.write("payload", bad.payload)
                result = try Command.pushhost(["send", "--to", spool.path, file])
            } else {
                result = try Command.pushhost(["send", "--to", spool.path, "-"], stdin: bad.payload)
            }
            #expect(result.status == 1, "\(source): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(source): \(result.stdout)")
            let error = result.errorLines.first { $0.hasPrefix("error pushhost: refused") }
            #expect(error?.contains(bad.says) == true, "\(source): \(result.stderr)")
            #expect(error?.contains("nothing was written") == true, "\(source): \(result.stderr)")
            #expect(spool.names("tmp").isEmpty, "\(source)")
            #expect(spool.names("new").isEmpty, "\(source)")
        }
    }

    @Test func missingFileIsASetupError() throws {
        let scratch = try Scratch()
        let result = try Command.pushhost(["send", "--to", scratch.spool.path, scratch.file("absent.json")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("absent.json"), "\(result.stderr)")
        #expect(scratch.spool.names("new").isEmpty)
        #expect(scratch.spool.names("tmp").isEmpty)
    }
}
