import PushHostMessage
import PushHostPlugins
import PushHostRecords
/// The Swift source and manifest of a template plugin: one class that
/// conforms to the protocol of each role, exported with one line.
struct SwiftPluginSource {
    let template: PluginTemplate

    /// `Package.swift`, depending on the SDK package at `sdk`.
    func manifest(sdk: String) -> String {
        let identity = sdk.split(separator: "/").last.map(String.init) ?? sdk
        return """
            // swift-tools-version: 6.1
            // The plugin \(template.name), built as lib\(template.name).so on top of the pushhost
            // Swift SDK (PushHostPlugin). Build it with the same Swift toolchain as the host.
            import PackageDescription

            let package = Package(
                name: "\(template.name)",
                products: [
                    .library(name: "\(template.name)", type: .dynamic, targets: ["\(template.moduleName)"]),
                ],
                dependencies: [
                    .package(path: \(swiftLiteral(sdk))),
                ],
                targets: [
                    .target(
                        name: "\(template.moduleName)",
                        dependencies: [.product(name: "PushHostPlugin", package: \(swiftLiteral(identity)))]
                    ),
                ]
            )

            """
    }

    var text: String {
        let protocols = template.roles.compactMap(protocolName).joined(separator: ", ")
        var members = [
            """
                static let name = "\(template.name)"
                static let version = "0.1.0"
                static let summary = "\(template.name): roles \(template.roles.map(\.rawValue).joined(separator: ", "))."
            """,
        ]
        if template.plays(.screen) {
            members.append("""
                    /// Messages aimed at one of these come to `onTarget` while the screen is visible.
                    static let targets = ["\(template.name)"]
                """)
        }
        var stored = ["    let context: PluginContext"]
        var initBody = ["        self.context = context"]
        if template.plays(.source) {
            stored.append("    /// The setting `records`: a file of records, one a line, for `run` to submit.")
            stored.append("    let records: String?")
            initBody.append(#"        records = context.setting("records")"#)
        } else {
            initBody.append(#"        // Settings: context.setting("KEY"); throwing refuses the plugin."#)
        }
        members.append("""
            \(stored.joined(separator: "\n"))

                init(context: PluginContext) throws {
            \(initBody.joined(separator: "\n"))
                }
            """)
        if template.plays(.data) { members.append(data) }
        if template.plays(.background) { members.append(background) }
        if template.plays(.screen) { members.append(screen) }
        if template.plays(.token) { members.append(token) }
        if template.plays(.action) { members.append(action) }
        if template.plays(.interceptor) { members.append(interceptor) }
        if template.plays(.source) { members.append(source) }
        var file = """
            // \(template.typeName).swift: a pushhost plugin (roles: \(template.roles.map(\.rawValue).joined(separator: ", "))),
            // made by `pushhost new plugin`. Build it with `make`, test it with `make test`.
            // The SDK's documentation: `swift package generate-documentation` in its package;
            // the ABI: docs/abi.md in the pushhost repository.
            \(template.plays(.source) ? "#if canImport(Glibc)\nimport Glibc\n#endif\n" : "")import PushHostPlugin

            final class \(template.typeName): \(protocols) {
            \(members.joined(separator: "\n\n"))
            }

            @_cdecl("ph_plugin_entry") public func entry() -> OpaquePointer? { export(\(template.typeName).self) }

            """
        if template.plays(.source) { file += lines }
        return file
    }

    private func protocolName(_ role: PluginTemplate.Role) -> String? {
        switch role {
        case .data: "DataPlugin"
        case .background: "BackgroundPlugin"
        case .screen: "ScreenPlugin"
        case .token: "TokenPlugin"
        case .action: "ActionPlugin"
        case .interceptor: "Interceptor"
        case .source: "SourcePlugin"
        }
    }

    private var data: String {
        """
            /// The data stage, before any UI handler. `"quiet":"yes"` in data: handled here.
            func onData(_ message: Message) async throws -> Verdict {
                message.data["quiet"] == "yes" ? .suppress : .continue
            }
        """
    }

    private var background: String {
        """
            /// The app is in the background (or no screen is visible).
            func onBackground(_ message: Message) {
                context.log("background \\(message.id): \\(message.title ?? "")")
            }
        """
    }

    private var screen: String {
        """
            /// A message aimed at one of `targets`, while this screen is visible.
            func onTarget(_ message: Message) {
                context.log("target \\(message.id): \\(message.title ?? "")")
            }

            /// This screen is on top, and no visible screen claims the message's target.
            func onMismatch(_ message: Message) {
                context.log("mismatch \\(message.id) (target \\(message.target ?? "none"))")
            }
        """
    }

    private var token: String {
        """
            /// A new registration token; `previous` is nil for the first one.
            func onToken(_ token: String, previous: String?) {
                context.log("token \\(token) previous \\(previous ?? "-")")
            }
        """
    }

    private var action: String {
        """
            /// A person acted on the notification of `message`: a tap, or one of its actions.
            func onAction(_ action: Action, message: Message) {
                if let input = action.input {
                    context.log("action \\(action.id) on \\(message.id): \\(input)")
                } else {
                    context.log("action \\(action.id) on \\(message.id)")
                }
            }
        """
    }

    private var interceptor: String {
        """
            /// Sees each push message before the data stage. `"hold":"yes"` in data: stopped here.
            func intercept(_ chain: Chain) async -> Outcome {
                if chain.message.data["hold"] == "yes" { return .suppressed("held back by \\(Self.name)") }
                return await chain.proceed()
            }
        """
    }

    private var source: String {
        """
            /// Submits each line of the records file, in a task of its own from
            /// the host's start; cancelled at stop. Never mark bytes from outside
            /// as a host event.
            func run(_ intake: Intake) async throws {
                guard let records else { return }  // nothing to read: the source stays quiet
                for (index, line) in try lines(of: records).enumerated() {
                    let result: String
                    switch await intake.submit(line) {
                    case .done: result = "done"
                    case .retry: result = "retry"
                    case .rejected: result = "rejected"
                    case .stopped: return
                    }
                    context.log("record \\(index + 1): \\(result)")
                }
            }
        """
    }

    private var lines: String {
        """

        /// The lines of the file at `path`, without their line ends.
        private func lines(of path: String) throws -> [String] {
            guard let file = fopen(path, "r") else { throw FileError(path: path, code: errno) }
            defer { fclose(file) }
            var lines: [String] = []
            var buffer: UnsafeMutablePointer<CChar>?
            var size = 0
            defer { free(buffer) }
            while case let length = getline(&buffer, &size, file), length >= 0, let buffer {
                let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
                lines.append(String(decoding: bytes.last == UInt8(ascii: "\\n") ? bytes.dropLast() : bytes[...], as: UTF8.self))
            }
            return lines
        }

        struct FileError: Error, CustomStringConvertible {
            let path: String
            let code: Int32
            var description: String { "cannot read \\(path): \\(String(cString: strerror(code)))" }
        }

        """
    }

    /// `text` as a Swift string literal.
    private func swiftLiteral(_ text: String) -> String {
        var literal = "\""
        for character in text {
            switch character {
            case "\"": literal += "\\\""
            case "\\": literal += "\\\\"
            default: literal.append(character)
            }
        }
        return literal + "\""
    }
}
