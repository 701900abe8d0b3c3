import PushHostJSON

/// Plugin names as a message's report line writes them, made into JSON once
/// at start instead of escaped again for every message.
struct ReportNames {
    /// Each data plugin's `{"plugin":"NAME","verdict":`, in load order.
    let dataItems: [[UInt8]]

    init(data names: [String]) {
        dataItems = names.map { name in
            var item = Array(#"{"plugin":"#.utf8)
            JSONWriter.appendString(name, to: &item)
            item.append(contentsOf: #","verdict":"#.utf8)
            return item
        }
    }

    /// No plugin: `[]`.
    static let none: [UInt8] = [UInt8(ascii: "["), UInt8(ascii: "]")]

    /// `names` as a JSON array: `["a","b"]`.
    static func array(_ names: [String]) -> [UInt8] {
        var bytes: [UInt8] = []
        JSONWriter.appendStrings(names, to: &bytes)
        return bytes
    }
}
