/// What a template's test feeds the plugin and what it expects back, the
/// same for both languages: records on standard input (and, for a source,
/// records the plugin reads from a file in a second run), the report
/// lines expected back (the fields `pushhost check` compares), and lines its
/// handlers log.
///
/// Every handler the template writes acts on what this feeds it: the data
/// handler suppresses `"quiet":"yes"`, the interceptor holds back
/// `"hold":"yes"`, the others log a line.
struct TemplateScenario {
    /// The records of the first run, one JSON object a line.
    private(set) var messages: [String] = []
    /// For each of them, its report line's fields that matter.
    private(set) var expected: [String] = []
    /// The records a source plugin submits in the second run.
    private(set) var sourceRecords: [String] = []
    private(set) var expectedFromSource: [String] = []
    /// Text the plugin's log lines must hold, in either run.
    private(set) var logged: [String] = []

    init(_ template: PluginTemplate) {
        let name = template.name
        let delivers = template.plays(.background)
        if template.plays(.token) {
            add(#"{"pushhost":"token","token":"test-token-1"}"#, #"{"event":"token","status":"stored"}"#)
            logged.append("\(name): token test-token-1 previous -")
        }
        add(#"{"message_id":"m-1","notification":{"title":"Hello","body":"The first message"}}"#,
            delivers ? message("m-1", status: "delivered", route: "background") : message("m-1", status: "undelivered", route: "none"))
        if delivers { logged.append("\(name): background m-1: Hello") }
        if template.plays(.data) {
            add(#"{"message_id":"m-quiet","data":{"quiet":"yes"}}"#, message("m-quiet", status: "suppressed", route: "none"))
        }
        if template.plays(.interceptor) {
            add(#"{"message_id":"m-held","data":{"hold":"yes"},"notification":{"title":"Held"}}"#,
                message("m-held", status: "suppressed", route: "none", more: #","data":[],"ui":[],"by":"\#(name)","reason":"held back by \#(name)""#))
        }
        if template.plays(.screen) {
            add(#"{"pushhost":"foreground","screen":"\#(name)"}"#, #"{"event":"foreground","status":"applied"}"#)
            add(#"{"message_id":"m-2","data":{"rx_gcm_key_target":"\#(name)"},"notification":{"title":"For the screen"}}"#,
                message("m-2", target: name, status: "delivered", route: "target"))
            add(#"{"message_id":"m-3","data":{"rx_gcm_key_target":"elsewhere"},"notification":{"title":"For another screen"}}"#,
                message("m-3", target: "elsewhere", status: "delivered", route: "mismatch"))
            logged += ["\(name): target m-2: For the screen", "\(name): mismatch m-3 (target elsewhere)"]
            if template.plays(.action) { addAction(on: "m-2", target: name, name: name) }
            add(#"{"pushhost":"background"}"#, #"{"event":"background","status":"applied"}"#)
        }
        if template.plays(.action), !template.plays(.screen) { addAction(on: "m-1", target: nil, name: name) }
        if template.plays(.source) {
            sourceRecords = [#"{"message_id":"s-1","notification":{"title":"From the source"}}"#, "not json"]
            expectedFromSource = [
                delivers ? message("s-1", status: "delivered", route: "background") : message("s-1", status: "undelivered", route: "none"),
                #"{"id":null,"target":null,"status":"rejected"}"#,
            ]
            logged += ["\(name): record 1: done", "\(name): record 2: rejected"]
        }
    }

    private mutating func add(_ record: String, _ fragment: String) {
        messages.append(record)
        expected.append(fragment)
    }

    private mutating func addAction(on id: String, target: String?, name: String) {
        let target = target.map { #""\#($0)""# } ?? "null"
        add(#"{"pushhost":"action","id":"\#(id)","action":"tap"}"#,
            #"{"event":"action","id":"\#(id)","action":"tap","target":\#(target),"status":"delivered"}"#)
        logged.append("\(name): action tap on \(id)")
    }

    private func message(_ id: String, target: String? = nil, status: String, route: String, more: String = "") -> String {
        let target = target.map { #""\#($0)""# } ?? "null"
        return #"{"id":"\#(id)","target":\#(target),"status":"\#(status)","route":"\#(route)"\#(more)}"#
    }
}
