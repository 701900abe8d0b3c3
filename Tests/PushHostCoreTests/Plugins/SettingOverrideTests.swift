import Testing

@testable import PushHostPlugins
@testable import PushHostSystem

@Suite struct SettingOverrideTests {
    @Test(arguments: [
        ("cache.path=/tmp/x", "cache", "path", "/tmp/x"),
        ("cache.path=", "cache", "path", ""),
        ("token-log.a.b=c=d", "token-log", "a.b", "c=d"),
    ])
    func parses(_ text: String, _ plugin: String, _ key: String, _ value: String) throws {
        let parsed = try SettingOverride(parsing: text)
        #expect(parsed.plugin == plugin)
        #expect(parsed.key == key)
        #expect(parsed.value == value)
    }

    @Test(arguments: ["cache", "cache=1", ".path=1", "cache.=1", "=1"])
    func refuses(_ text: String) {
        #expect(throws: UsageError.self) { try SettingOverride(parsing: text) }
    }
}

@Suite struct PluginNameTests {
    @Test(arguments: ["cache", "token-log", "a_b", "x1", "0"])
    func valid(_ name: String) {
        #expect(PluginDescriptor.isValidName(name))
    }

    @Test(arguments: ["", "Cache", "a b", "é", "a.b", "a/b"])
    func invalid(_ name: String) {
        #expect(!PluginDescriptor.isValidName(name))
    }
}

@Suite struct HostABITests {
    @Test func acceptsEqualMajorAndNoNewerMinor() {
        #expect(HostABI.accepts(major: 1, minor: 0))
        #expect(HostABI.accepts(major: 1, minor: 1))
        #expect(HostABI.accepts(major: 1, minor: 2))
        #expect(!HostABI.accepts(major: 1, minor: 3))
        #expect(!HostABI.accepts(major: 0, minor: 0))
        #expect(!HostABI.accepts(major: 2, minor: 0))
    }
}
