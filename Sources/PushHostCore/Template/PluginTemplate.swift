import PushHostSystem

/// What `pushhost new plugin` makes: a plugin project named `name`, in one
/// language, with one handler for each of its roles, a build and a
/// pipe-fed test.
package struct PluginTemplate: Sendable {
    package enum Language: String, CaseIterable, Sendable {
        case c, swift
        /// A process plugin's program (docs/process-plugins.md), on the SDK of its language or (shell) none.
        case python, node, shell

        /// Whether it is a process plugin's program, which plays no interceptor nor source.
        package var isProgram: Bool { self != .c && self != .swift }
    }

    /// A role the template can write a handler for.
    package enum Role: String, CaseIterable, Sendable, Comparable {
        case data, background, screen, token, action, interceptor, source

        package static func < (lhs: Role, rhs: Role) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    package let name: String
    package let language: Language
    /// In the order of `Role.allCases`, each once.
    package let roles: [Role]

    /// Checks `name` (a plugin name, `[a-z0-9_-]`, starting with a letter so
    /// that it makes a C identifier and a Swift type) and the roles.
    ///
    /// An action comes for a message some plugin delivered: a plugin with
    /// the action role but neither background nor screen gets background too,
    /// so that its own test can deliver one (`addedRoles` says so).
    package init(name: String, language: Language, roles: [Role]) throws(UsageError) {
        guard (1...64).contains(name.utf8.count),
              name.utf8.first.map({ (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) }) == true,
              name.utf8.allSatisfy({ Self.nameBytes.contains($0) })
        else {
            throw UsageError("the plugin name \"\(name)\" must be 1 to 64 of [a-z0-9_-], starting with a letter")
        }
        guard !roles.isEmpty else { throw UsageError("give at least one role (--role)") }
        if language.isProgram, let role = roles.first(where: { $0 == .interceptor || $0 == .source }) {
            throw UsageError("a \(language.rawValue) plugin cannot be an \(role.rawValue) (a process plugin has the roles data, background, screen, token and action)")
        }
        var chosen = Set(roles)
        if chosen.contains(.action), chosen.isDisjoint(with: [.background, .screen]) {
            chosen.insert(.background)
        }
        self.name = name
        self.language = language
        self.roles = chosen.sorted()
        self.addedRoles = chosen.subtracting(roles).sorted()
    }

    /// Roles added to those asked for (see `init`).
    package let addedRoles: [Role]

    /// Parses a comma-separated list of roles (`data,background`).
    package static func roles(_ list: String) throws(UsageError) -> [Role] {
        var roles: [Role] = []
        for word in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard let role = Role(rawValue: String(word)) else {
                let known = Role.allCases.map(\.rawValue).joined(separator: ", ")
                throw UsageError("unknown role \"\(word)\" (roles: \(known))")
            }
            roles.append(role)
        }
        return roles
    }

    package func plays(_ role: Role) -> Bool { roles.contains(role) }

    /// The name in upper camel case: `order-log` becomes `OrderLog`.
    private var camelName: String {
        name.split(whereSeparator: { $0 == "-" || $0 == "_" })
            .map { $0.prefix(1).uppercased() + $0.dropFirst() }
            .joined()
    }

    /// The plugin's Swift class: `OrderLogPlugin`, or `DataHandlers` where
    /// `DataPlugin` would hide the SDK's protocol of that name.
    var typeName: String {
        let plain = camelName + "Plugin"
        return Self.sdkProtocols.contains(plain) ? camelName + "Handlers" : plain
    }

    /// The Swift module (the package's target): `PluginOrderLog`.
    var moduleName: String { "Plugin" + camelName }

    private static let sdkProtocols: Set = [
        "DataPlugin", "BackgroundPlugin", "ScreenPlugin", "TokenPlugin", "ActionPlugin", "SourcePlugin",
    ]

    private static let nameBytes = Set(Array("abcdefghijklmnopqrstuvwxyz0123456789_-".utf8))
}
