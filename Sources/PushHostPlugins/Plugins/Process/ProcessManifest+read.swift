import PushHostJSON

extension ProcessManifest {
    /// Reads and checks the manifest at `path`; every problem refuses it
    /// with one line naming the key and what is wrong with it. The program
    /// is not started: a command that cannot run is found when it is.
    package static func read(_ path: String) throws(PluginRefusal) -> ProcessManifest {
        let fileName = path.split(separator: "/").last.map(String.init) ?? path
        let name = String(fileName.dropLast(suffix.count))
        guard PluginDescriptor.isValidName(name) else { throw .badName(name) }
        let json = ManifestJSON(refuse: PluginRefusal.process)
        return try json.read(path) { root throws(PluginRefusal) in
            // "settings" and "sandbox" are the plugin's settings (SettingsFile.of(plugin:)).
            let keys = try json.members(root, of: "the manifest", allowed: ["command", "roles", "screens", "settings", "sandbox", "version", "description"])
            guard let commandValue = keys["command"] else { throw .process("the manifest needs \"command\", the program and its arguments") }
            let command = try json.strings(commandValue, "command")
            guard let program = command.first, !program.isEmpty else { throw .process("command: the first item, the program, is missing or empty") }
            if let empty = command.firstIndex(of: "") { throw .process("command: item \(empty + 1) is empty") }
            if let zero = command.firstIndex(where: { $0.utf8.contains(0) }) { throw .process("command: item \(zero + 1) holds a NUL byte") }
            guard let rolesValue = keys["roles"] else { throw .process("the manifest needs \"roles\" (\(Self.roleWords))") }
            var roles: [PluginRole] = []
            for word in try json.strings(rolesValue, "roles") {
                guard let role = PluginRole(rawValue: word) else { throw .process("roles: unknown role \"\(word)\" (roles: \(Self.roleWords))") }
                guard !roles.contains(role) else { throw .process("roles: \(word) is listed twice") }
                roles.append(role)
            }
            guard !roles.isEmpty else { throw .process("roles: the list is empty (roles: \(Self.roleWords))") }
            let screens = try keys["screens"].map { value throws(PluginRefusal) in try json.strings(value, "screens") } ?? []
            if roles.contains(.screen) {
                guard !screens.isEmpty else { throw .process("screens: the screen role needs its targets, a non-empty \"screens\"") }
                if screens.contains("") { throw .process("screens: a target is empty") }
            } else if keys["screens"] != nil {
                throw .process("screens: targets are for the screen role, which \"roles\" does not list")
            }
            if let settings = keys["settings"], settings.kind != .object {
                throw .process("settings must be an object, not \(settings.kind.withArticle)")
            }
            return ProcessManifest(
                name: name, command: command, folder: PluginCatalog.realPath(PluginCatalog.directory(of: path)) ?? PluginCatalog.directory(of: path),
                version: try keys["version"].map { value throws(PluginRefusal) in try json.string(value, "version") } ?? "",
                summary: try keys["description"].map { value throws(PluginRefusal) in try json.string(value, "description") } ?? "",
                roles: roles.sorted { PluginRole.allCases.firstIndex(of: $0)! < PluginRole.allCases.firstIndex(of: $1)! }, screens: screens)
        }
    }

    private static let roleWords = PluginRole.allCases.map(\.rawValue).joined(separator: ", ")
}
