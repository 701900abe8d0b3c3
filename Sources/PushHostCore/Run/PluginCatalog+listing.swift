import PushHostJSON
import PushHostIsolation
import PushHostPlugins

extension PluginCatalog {
    /// What `pushhost plugins` prints: a block per loadable plugin, a line per refusal.
    ///
    /// ```
    /// issues 1.0.0 (ABI 1.0) plugins/issues.so
    ///   roles: screen; targets: issues; extensions: unknown until it runs
    ///   isolated: yes (--isolate all)
    ///   walls: own namespaces, no new privileges, no capabilities, landlock 7, seccomp; grants: read /srv/images
    ///   Foreground screen for the "issues" target.
    /// dedupe 1.0.0 (ABI 1.2) plugins/libdedupe.so
    ///   roles: interceptor
    ///   isolated: no
    /// legacy 2.1.0 (ffi) plugins/legacy.ffi.json
    ///   roles: background
    ///   isolated: no
    ///   library: plugins/liblegacy.so
    ///   background: int32_t legacy_alert(const char *notification.title, int32_t data.priority = 3)
    /// inbox 1.0.0 (process) plugins/inbox.process.json
    ///   roles: data, background
    ///   isolated: yes (a process plugin, always)
    ///   walls: own namespaces, no new privileges, no capabilities, landlock 7, seccomp; grants: exec
    ///   command: python3 inbox.py (in /srv/plugins)
    /// refused plugins/bad.so: no ph_plugin_entry symbol (...)
    /// ```
    ///
    /// With the outcome of a dry run (`--check`), each plugin block ends
    /// with the lines the plugin logged meanwhile and what became of it:
    ///
    /// ```
    /// broken 1.0.0 (ABI 1.2) plugins/broken.so
    ///   roles: background
    ///   isolated: no
    ///   log: error broken: no database here
    ///   check: refused: create returned NULL (the plugin's own log lines above say why)
    /// ```
    package func textListing(check: DryRun? = nil) -> String {
        var text = ""
        for (index, entry) in entries.enumerated() {
            switch entry.outcome {
            case .failure(let refusal):
                text += "refused \(entry.file): \(refusal)\n"
            case .success(let plugin):
                let descriptor = plugin.descriptor
                let kind = descriptor.isManifest ? "ffi" : descriptor.process != nil ? "process" : "ABI \(descriptor.abiMajor).\(descriptor.abiMinor)"
                text += "\(descriptor.name)\(descriptor.version.isEmpty ? "" : " " + descriptor.version) (\(kind)) \(entry.file)\n"
                let roles = descriptor.listedRoles
                text += "  roles: \(roles.isEmpty ? "none" : roles.joined(separator: ", "))"
                if !descriptor.targets.isEmpty { text += "; targets: \(descriptor.targets.joined(separator: ", "))" }
                if descriptor.extensions == nil { text += "; extensions: unknown until it runs" }
                text += "\n"
                let reason = isolationReason(plugin, file: entry.file)
                text += "  isolated: \(reason.map { "yes (\($0))" } ?? "no")\n"
                if reason != nil, isolation.sandbox != .off { text += "  walls: \(wallsText(plugin))\n" }
                if !descriptor.summary.isEmpty { text += "  \(descriptor.summary)\n" }
                if let process = descriptor.process { text += "  command: \(process.command.joined(separator: " ")) (in \(process.folder))\n" }
                if let manifest = descriptor.manifest {
                    text += "  library: \(manifest.libraries.joined(separator: ", "))\n"
                    for function in manifest.signatures { text += "  \(function.role): \(function.signature)\n" }
                }
                if let outcome = check?.outcome(ofEntry: index) {
                    for line in outcome.log { text += "  log: \(line)\n" }
                    text += "  check: \(outcome.refusal.map { "refused: " + $0 } ?? "created")\n"
                }
            }
        }
        return text
    }

    /// Why a run with the same flags runs `plugin`, at `file`, in a worker
    /// (as ``IsolationOptions/reason(_:file:settings:overrides:)``), or nil.
    private func isolationReason(_ plugin: Loadable, file: String) -> String? {
        isolation.reason(plugin.descriptor.name, file: file, settings: plugin.settings, overrides: overrides)
    }

    /// The grants of `plugin` as a run gives them (its settings file's,
    /// then `--set`), or why they cannot be used.
    private func grants(_ plugin: Loadable) -> Result<SandboxGrants, SandboxProblem> {
        let settings = plugin.settings(with: overrides)
        return Result { () throws(SandboxProblem) in try SandboxGrants(settings: settings) }
    }

    /// The walls a worker would put up for `plugin`, and its grants, on one line.
    private func wallsText(_ plugin: Loadable) -> String {
        let (landlock, seccomp, namespaces) = Walls.available
        var stand = ["no new privileges", "no capabilities"]
        if namespaces == nil { stand.insert("own namespaces", at: 0) }
        if landlock > 0 { stand.append("landlock \(landlock)") }
        if seccomp { stand.append("seccomp") }
        var text = stand.joined(separator: ", ")
        let fallen = [namespaces.map { "own namespaces (\($0))" }, landlock == 0 ? "landlock" : nil, seccomp ? nil : "seccomp"].compactMap { $0 }
        if !fallen.isEmpty { text += "; cannot stand: " + fallen.joined(separator: ", ") }
        switch grants(plugin) {
        case .failure(let problem):
            return text + "; refused: \(problem)"
        case .success(let grants):
            var granted: [String] = []
            if !grants.read.isEmpty { granted.append("read " + grants.read.joined(separator: " ")) }
            if !grants.write.isEmpty { granted.append("write " + grants.write.joined(separator: " ")) }
            if grants.network {
                granted.append("network")
            } else if !grants.connect.isEmpty {
                granted.append("connect " + grants.connect.map { "\($0.host):\($0.port)" }.joined(separator: " "))
            }
            if let bus = grants.bus { granted.append("bus " + bus) }
            if grants.exec { granted.append("exec") }
            return text + (granted.isEmpty ? "" : "; grants: " + granted.joined(separator: "; "))
        }
    }

    /// Whether a run with the same flags runs `plugin` in a worker.
    private func isIsolated(_ plugin: Loadable, file: String) -> Bool {
        isolationReason(plugin, file: file) != nil
    }
}

extension PluginCatalog {
    /// What `pushhost plugins --json` prints: one object per plugin file.
    ///
    /// ```
    /// {"file":"plugins/issues.so","name":"issues","version":"1.0.0","description":"…","abi":"1.0","roles":["screen"],"targets":["issues"],"extensions":null,"isolated":false}
    /// {"file":"plugins/libdedupe.so","name":"dedupe",…,"abi":"1.2","roles":["interceptor"],"targets":[],"extensions":["ph.interceptor/1","ph.chain/1"],"isolated":false}
    /// {"file":"plugins/bad.so","refused":"no ph_plugin_entry symbol (…)"}
    /// ```
    ///
    /// With the outcome of a dry run (`--check`), each plugin's object ends
    /// with `check`: `{"created":true,"log":[...]}`, or
    /// `{"created":false,"refused":"create returned NULL (…)","log":["error broken: no database here"]}`.
    package func jsonListing(check: DryRun? = nil) -> String {
        var bytes: [UInt8] = []
        for (index, entry) in entries.enumerated() {
            var line = JSONLine(appendingTo: &bytes)
            line.string("file", entry.file)
            switch entry.outcome {
            case .failure(let refusal):
                line.string("refused", refusal.description)
            case .success(let plugin):
                let descriptor = plugin.descriptor
                line.string("name", descriptor.name)
                line.string("version", descriptor.version)
                line.string("description", descriptor.summary)
                line.string("abi", descriptor.isManifest ? "ffi" : descriptor.process != nil ? "process" : "\(descriptor.abiMajor).\(descriptor.abiMinor)")
                line.strings("roles", descriptor.listedRoles)
                line.strings("targets", descriptor.targets)
                if let extensions = descriptor.extensions {
                    line.strings("extensions", extensions)
                } else {
                    line.key("extensions")
                    line.bytes += "null".utf8
                }
                line.key("isolated")
                let isolated = isIsolated(plugin, file: entry.file)
                line.bytes += (isolated ? "true" : "false").utf8
                if isolated, isolation.sandbox != .off { sandboxJSON(plugin, into: &line) }
                if let process = descriptor.process { line.strings("command", process.command) }
                if let manifest = descriptor.manifest {
                    line.strings("libraries", manifest.libraries)
                    line.objects("functions", manifest.signatures) { object, function in
                        object.string("role", function.role)
                        object.string("signature", function.signature)
                    }
                }
                if let outcome = check?.outcome(ofEntry: index) {
                    line.key("check")
                    line.object { object in
                        object.key("created")
                        object.bytes += (outcome.refusal == nil ? "true" : "false").utf8
                        if let refusal = outcome.refusal { object.string("refused", refusal) }
                        object.strings("log", outcome.log)
                    }
                }
            }
            bytes = line.finished()
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The walls a worker would put up for `plugin` and its grants, as the member `sandbox`:
    /// `{"namespaces":true,"landlock":7,"seccomp":true,"read":[...],"write":[...],"network":[...],"bus":"session","exec":false}`,
    /// `network` being `true` when the network is granted whole; `{"refused": "..."}` when the grants are malformed.
    private func sandboxJSON(_ plugin: Loadable, into line: inout JSONLine<[UInt8]>) {
        let (landlock, seccomp, namespaces) = Walls.available
        let grants = self.grants(plugin)
        line.key("sandbox")
        line.object { object in
            object.key("namespaces")
            object.bytes += (namespaces == nil ? "true" : "false").utf8
            object.number("landlock", landlock)
            object.key("seccomp")
            object.bytes += (seccomp ? "true" : "false").utf8
            switch grants {
            case .failure(let problem):
                object.string("refused", problem.description)
            case .success(let grants):
                object.strings("read", grants.read)
                object.strings("write", grants.write)
                if grants.network {
                    object.key("network")
                    object.bytes += "true".utf8
                } else {
                    object.strings("network", grants.connect.map { "\($0.host):\($0.port)" })
                }
                object.string("bus", grants.bus)
                object.key("exec")
                object.bytes += (grants.exec ? "true" : "false").utf8
            }
        }
    }
}
