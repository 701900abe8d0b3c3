// fields-swift: a background plugin for Benchmarks/throughput that reads the
// target, data.title, data.body and priority of each message (FieldLengths).
// Settings: out (where "messages N bytes B" goes at shutdown; optional).
import FieldLengths
import PushHostPlugin

final class FieldsSwift: BackgroundPlugin {
    static let name = "fields-swift"
    static let version = "1.0.0"
    static let summary = "Reads target, data.title, data.body and priority of each message, in the background."

    private let lengths: FieldLengths

    init(context: PluginContext) throws {
        lengths = FieldLengths(out: context.setting("out"))
    }

    func onBackground(_ message: Message) { lengths.add(message) }
    func shutdown() { lengths.write() }
}

@_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(FieldsSwift.self) }
