extension PluginCatalog {
    /// What `pushhost plugins` prints: a block per loadable plugin, a line per refusal.
    ///
    /// ```
    /// issues 1.0.0 (ABI 1.0) plugins/issues.so
    ///   roles: screen; targets: issues
    ///   Foreground screen for the "issues" target.
    /// legacy 2.1.0 (ffi) plugins/legacy.ffi.json
    ///   roles: background
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
                let kind = descriptor.ffi == nil ? "ABI \(descriptor.abiMajor).\(descriptor.abiMinor)" : "ffi"
                text += "\(descriptor.name)\(descriptor.version.isEmpty ? "" : " " + descriptor.version) (\(kind)) \(entry.file)\n"
                let roles = descriptor.roles.isEmpty ? "none" : descriptor.roles.map(\.rawValue).joined(separator: ", ")
                text += "  roles: \(roles)"
                if !descriptor.targets.isEmpty { text += "; targets: \(descriptor.targets.joined(separator: ", "))" }
                text += "\n"
                if !descriptor.summary.isEmpty { text += "  \(descriptor.summary)\n" }
                if let ffi = descriptor.ffi {
                    text += "  library: \(ffi.libraries.joined(separator: ", "))\n"
                    for (role, signature) in ffi.signatures { text += "  \(role): \(signature)\n" }
                }
            }
        }
        return text
    }
}

extension PluginCatalog {
    /// What `pushhost plugins --json` prints: one object per plugin file.
    ///
    /// ```
    /// {"file":"plugins/issues.so","name":"issues","version":"1.0.0","description":"…","abi":"1.0","roles":["screen"],"targets":["issues"]}
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
                line.string("abi", descriptor.ffi == nil ? "\(descriptor.abiMajor).\(descriptor.abiMinor)" : "ffi")
                line.strings("roles", descriptor.roles.map(\.rawValue))
                line.strings("targets", descriptor.targets)
                if let ffi = descriptor.ffi {
                    line.strings("libraries", ffi.libraries)
                    line.objects("functions", ffi.signatures) { object, function in
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
