extension PluginCatalog {
    /// What `pushhost plugins` prints: a block per loadable plugin, a line per refusal.
    ///
    /// ```
    /// issues 1.0.0 (ABI 1.0) plugins/issues.so
    ///   roles: screen; targets: issues
    ///   isolated: yes (--isolate all)
    ///   Foreground screen for the "issues" target.
    /// legacy 2.1.0 (ffi) plugins/legacy.ffi.json
    ///   roles: background
    ///   isolated: no
    ///   library: plugins/liblegacy.so
    ///   background: int32_t legacy_alert(const char *notification.title, int32_t data.priority = 3)
    /// refused plugins/bad.so: no ph_plugin_entry symbol (...)
    /// ```
    package func textListing() -> String {
        var text = ""
        for entry in entries {
            switch entry.outcome {
            case .failure(let refusal):
                text += "refused \(entry.file): \(refusal)\n"
            case .success(let plugin):
                let descriptor = plugin.descriptor
                let kind = descriptor.isManifest ? "ffi" : "ABI \(descriptor.abiMajor).\(descriptor.abiMinor)"
                text += "\(descriptor.name)\(descriptor.version.isEmpty ? "" : " " + descriptor.version) (\(kind)) \(entry.file)\n"
                let roles = descriptor.roles.isEmpty ? "none" : descriptor.roles.map(\.rawValue).joined(separator: ", ")
                text += "  roles: \(roles)"
                if !descriptor.targets.isEmpty { text += "; targets: \(descriptor.targets.joined(separator: ", "))" }
                text += "\n"
                let reason = isolationReason(plugin, file: entry.file)
                text += "  isolated: \(reason.map { "yes (\($0))" } ?? "no")\n"
                if !descriptor.summary.isEmpty { text += "  \(descriptor.summary)\n" }
                if let manifest = descriptor.manifest {
                    text += "  library: \(manifest.libraries.joined(separator: ", "))\n"
                    for function in manifest.signatures { text += "  \(function.role): \(function.signature)\n" }
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

    /// Whether a run with the same flags runs `plugin` in a worker.
    private func isIsolated(_ plugin: Loadable, file: String) -> Bool {
        isolationReason(plugin, file: file) != nil
    }
}

extension PluginCatalog {
    /// What `pushhost plugins --json` prints: one object per plugin file.
    ///
    /// ```
    /// {"file":"plugins/issues.so","name":"issues","version":"1.0.0","description":"…","abi":"1.0","roles":["screen"],"targets":["issues"],"isolated":false}
    /// {"file":"plugins/bad.so","refused":"no ph_plugin_entry symbol (…)"}
    /// ```
    package func jsonListing() -> String {
        var bytes: [UInt8] = []
        for entry in entries {
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
                line.string("abi", descriptor.isManifest ? "ffi" : "\(descriptor.abiMajor).\(descriptor.abiMinor)")
                line.strings("roles", descriptor.roles.map(\.rawValue))
                line.strings("targets", descriptor.targets)
                line.key("isolated")
                line.bytes += (isIsolated(plugin, file: entry.file) ? "true" : "false").utf8
                if let manifest = descriptor.manifest {
                    line.strings("libraries", manifest.libraries)
                    line.objects("functions", manifest.signatures) { object, function in
                        object.string("role", function.role)
                        object.string("signature", function.signature)
                    }
                }
            }
            bytes = line.finished()
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
