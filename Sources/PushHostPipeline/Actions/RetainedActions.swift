#if canImport(Glibc)
import Glibc
#endif
import Logging
import PushHostJSON
import PushHostSystem

/// The actions waiting for their screen (docs/running.md, actions), in the order
/// they were taken in, kept in `STATE/retained.ndjson` (mode 0600) so a
/// restart keeps them: one line each, the whole file rewritten atomically
/// on every change (actions are few; a person makes them).
///
/// ```
/// {"id":"m-101","action":"tap","input":null,"target":"issues","retained_at":1795000000.5,"source":{"kind":"stdin","line":4},"message":{...the store's line...}}
/// ```
final class RetainedActions {
    let file: String
    private(set) var entries: [RetainedAction] = []
    private let logger: Logger

    /// The actions `file` holds; a line that does not read is logged and left out.
    init(directory: String, logger: Logger) throws(SetupError) {
        file = directory + "/retained.ndjson"
        self.logger = logger
        let bytes: [UInt8]
        do throws(FileProblem) {
            bytes = try RegularFile.read(file, links: .refuse) ?? []
        } catch {
            throw SetupError("retained actions \(file): \(error)")
        }
        var reader = JSONReader()
        for (number, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() where !line.isEmpty {
            let entry = Array(line).withUnsafeBytes { bytes in (try? reader.parse(bytes)).flatMap { RetainedAction(json: $0.root) } }
            guard let entry else {
                logger.warning("retained actions \(file), line \(number + 1): not an action this host wrote; left out")
                continue
            }
            entries.append(entry)
        }
    }

    func append(_ entry: RetainedAction) {
        entries.append(entry)
        save()
    }

    /// Calls `body` on each entry, oldest first, keeps those for which it
    /// says true, and saves them when any went.
    func keep(where body: (RetainedAction) -> Bool) {
        var kept: [RetainedAction] = []
        for entry in entries where body(entry) { kept.append(entry) }
        guard kept.count != entries.count else { return }
        entries = kept
        save()
    }

    private func save() {
        var bytes: [UInt8] = []
        for entry in entries { entry.append(to: &bytes) }
        do {
            try AtomicFile.write(bytes, to: file)
        } catch {
            logger.error("retained actions: \(error); they are kept for this run only")
        }
    }
}
