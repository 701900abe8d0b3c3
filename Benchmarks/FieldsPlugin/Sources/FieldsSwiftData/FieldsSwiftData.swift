// fields-swift-data: the data-role twin of fields-swift, for
// Benchmarks/throughput: the same reads (FieldLengths), then the verdict
// continue. The SDK runs each data handler as a task and completes the
// message when it returns, so this measures that path too.
// Settings: out (where "messages N bytes B" goes at shutdown; optional).
import FieldLengths
import PushHostPlugin

final class FieldsSwiftData: DataPlugin {
    static let name = "fields-swift-data"
    static let version = "1.0.0"
    static let summary = "Reads target, data.title, data.body and priority of each message, in the data stage."

    private let lengths: FieldLengths

    init(context: PluginContext) throws {
        lengths = FieldLengths(out: context.setting("out"))
    }

    func onData(_ message: Message) async throws -> Verdict {
        lengths.add(message)
        return .continue
    }

    func shutdown() { lengths.write() }
}

@_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(FieldsSwiftData.self) }
