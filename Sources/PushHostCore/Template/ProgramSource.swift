/// The program of a template project in a language the host runs as a
/// process plugin (Python, Node.js, sh with jq): one handler per role, each
/// doing what ``TemplateScenario`` checks (the data handler suppresses
/// `"quiet":"yes"`, the others log a line), and the manifest that names it.
struct ProgramSource {
    let template: PluginTemplate

    /// `NAME/main.py`, `NAME/main.js` or `NAME/main.sh`.
    var path: String { "\(template.name)/main.\(fileExtension)" }

    private var fileExtension: String {
        switch template.language {
        case .node: "js"
        case .shell: "sh"
        default: "py"
        }
    }

    /// `NAME.process.json`.
    var manifest: String {
        let interpreter = switch template.language {
        case .node: "node"
        case .shell: "sh"
        default: "python3"
        }
        let roles = template.roles.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        let screens = template.plays(.screen) ? ",\n  \"screens\": [\"\(template.name)\"]" : ""
        return """
            {
              "command": ["\(interpreter)", "\(path)"],
              "roles": [\(roles)]\(screens),
              "version": "0.1.0",
              "description": "\(template.name), made by pushhost new plugin"
            }

            """
    }

    var text: String {
        switch template.language {
        case .node: node
        case .shell: shell
        default: python
        }
    }

    private var python: String {
        var text = """
            # \(template.name): a pushhost process plugin in Python (docs/process-plugins.md).
            # pushhost.py beside it is the SDK: it reads the host's calls and writes the answers.
            import pushhost


            """
        var handlers: [String] = []
        if template.plays(.data) {
            text += """
                def data(message):
                    \"\"\"Before any UI handler: a message whose data says "quiet": "yes" is suppressed.\"\"\"
                    return "suppress" if message["data"].get("quiet") == "yes" else "continue"


                """
            handlers.append("data=data")
        }
        if template.plays(.background) {
            text += """
                def background(message):
                    \"\"\"The app is in the background.\"\"\"
                    pushhost.log("background %s: %s" % (message["id"], message.get("notification", {}).get("title", "")))


                """
            handlers.append("background=background")
        }
        if template.plays(.screen) {
            text += """
                def target(message):
                    \"\"\"The message is aimed at this screen, which is shown.\"\"\"
                    pushhost.log("target %s: %s" % (message["id"], message.get("notification", {}).get("title", "")))


                def mismatch(message):
                    \"\"\"This screen is on top, and the message is aimed elsewhere.\"\"\"
                    pushhost.log("mismatch %s (target %s)" % (message["id"], message.get("target", "none")))


                """
            handlers += ["target=target", "mismatch=mismatch"]
        }
        if template.plays(.token) {
            text += """
                def token(token, previous):
                    \"\"\"A new registration token.\"\"\"
                    pushhost.log("token %s previous %s" % (token, previous or "-"))


                """
            handlers.append("token=token")
        }
        if template.plays(.action) {
            text += """
                def action(action, input, message):
                    \"\"\"Someone acted on the notification of a message this plugin delivered.\"\"\"
                    pushhost.log("action %s on %s" % (action, message["id"]))


                """
            handlers.append("action=action")
        }
        return text + "pushhost.run(\(handlers.joined(separator: ", ")))\n"
    }

    private var node: String {
        var text = """
            'use strict';
            // \(template.name): a pushhost process plugin in Node.js (docs/process-plugins.md).
            // pushhost.js beside it is the SDK: it reads the host's calls and writes the answers.
            const pushhost = require('./pushhost.js');

            pushhost.run({

            """
        if template.plays(.data) {
            text += """
                  // Before any UI handler: a message whose data says "quiet": "yes" is suppressed.
                  data: (message) => (message.data.quiet === 'yes' ? 'suppress' : 'continue'),

                """
        }
        if template.plays(.background) {
            text += """
                  // The app is in the background.
                  background: (message) => pushhost.log(`background ${message.id}: ${(message.notification || {}).title || ''}`),

                """
        }
        if template.plays(.screen) {
            text += """
                  // The message is aimed at this screen, which is shown.
                  target: (message) => pushhost.log(`target ${message.id}: ${(message.notification || {}).title || ''}`),
                  // This screen is on top, and the message is aimed elsewhere.
                  mismatch: (message) => pushhost.log(`mismatch ${message.id} (target ${message.target || 'none'})`),

                """
        }
        if template.plays(.token) {
            text += """
                  // A new registration token.
                  token: (token, previous) => pushhost.log(`token ${token} previous ${previous || '-'}`),

                """
        }
        if template.plays(.action) {
            text += """
                  // Someone acted on the notification of a message this plugin delivered.
                  action: (action, input, message) => pushhost.log(`action ${action} on ${message.id}`),

                """
        }
        return text + "});\n"
    }

    private var shell: String {
        var cases: [String] = []
        if template.plays(.data) {
            cases.append("""
                        data)
                            # Before any UI handler: a message whose data says "quiet": "yes" is suppressed.
                            if [ "$(field '.message.data.quiet // ""')" = yes ]; then verdict=suppress; else verdict=continue; fi
                            printf '{"id":%s,"verdict":"%s"}\\n' "$id" "$verdict"
                            continue ;;
                """)
        }
        if template.plays(.background) {
            cases.append("""
                        background) log "background $(field .message.id): $(field '.message.notification.title // ""')" ;;
                """)
        }
        if template.plays(.screen) {
            cases.append("""
                        target) log "target $(field .message.id): $(field '.message.notification.title // ""')" ;;
                        mismatch) log "mismatch $(field .message.id) (target $(field '.message.target // "none"'))" ;;
                """)
        }
        if template.plays(.token) {
            cases.append("""
                        token) log "token $(field .token) previous $(field '.previous // "-"')" ;;
                """)
        }
        if template.plays(.action) {
            cases.append("""
                        action) log "action $(field .action) on $(field .message.id)" ;;
                """)
        }
        return """
            #!/bin/sh
            # \(template.name): a pushhost process plugin in sh with jq (docs/process-plugins.md).
            # It reads one call a line and answers each as it goes, with a jq for each
            # field it reads: the simplest program, not the fastest.
            set -u

            # field FILTER: what jq's FILTER gives of the call in $line, as text.
            field() { printf '%s\\n' "$line" | jq -r "$1"; }

            # log TEXT: one log line that the host logs as this plugin's.
            log() { jq -cn --arg source "$PUSHHOST_PLUGIN" --arg message "$1" '{level: "info", source: $source, message: $message}' >&2; }

            printf '{"pushhost":1}\\n'
            while IFS= read -r line; do
                id=$(field .id)
                case $(field .call) in
            \(cases.joined(separator: "\n"))
                    *) printf '{"id":%s,"error":"no handler for this call"}\\n' "$id"
                       continue ;;
                esac
                printf '{"id":%s}\\n' "$id"
            done

            """
    }
}
