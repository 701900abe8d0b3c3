// TEMPORARY placeholder to compile; replaced by the real message.
final class Message {
    var idText: UnsafePointer<CChar> { fatalError() }
    var targetText: UnsafePointer<CChar>? { nil }
    func value(atPath path: UnsafePointer<CChar>) -> UnsafePointer<CChar>? { nil }
    func jsonText() -> (text: UnsafePointer<CChar>, count: Int) { fatalError() }
    static func from(_ p: OpaquePointer) -> Message { fatalError() }
}
enum PluginSettings { static func read(besides: String) throws(PluginRefusal) -> [String: String] { [:] } }
extension PluginCatalog { public func jsonListing() -> String { "" } }
