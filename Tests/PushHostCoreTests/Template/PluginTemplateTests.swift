import Testing

@testable import PushHostCore
@testable import PushHostCheck
@testable import PushHostSystem

/// The names, roles and files of `pushhost new plugin`'s projects.
@Suite struct PluginTemplateTests {
    @Test func namesMakeSwiftTypesThatHideNothingOfTheSDK() throws {
        let orders = try PluginTemplate(name: "order-log_2", language: .swift, roles: [.background])
        #expect(orders.typeName == "OrderLog2Plugin")
        #expect(orders.moduleName == "PluginOrderLog2")
        // DataPlugin would hide the SDK's protocol of that name.
        let data = try PluginTemplate(name: "data", language: .swift, roles: [.data])
        #expect(data.typeName == "DataHandlers")
        #expect(try PluginTemplate(name: "message", language: .swift, roles: [.data]).typeName == "MessagePlugin")
    }

    @Test(arguments: ["", "Hello", "9lives", "-x", "a b", "ä", String(repeating: "a", count: 65)])
    func badNamesAreRefused(name: String) {
        #expect(throws: UsageError.self) { try PluginTemplate(name: name, language: .c, roles: [.background]) }
    }

    @Test func rolesAreParsedSortedAndOnce() throws {
        let roles = try PluginTemplate.roles("source,data,source")
        let template = try PluginTemplate(name: "x", language: .c, roles: roles)
        #expect(template.roles == [.data, .source])
        #expect(template.addedRoles.isEmpty)
        #expect(throws: UsageError.self) { try PluginTemplate.roles("data,") }
        #expect(throws: UsageError.self) { try PluginTemplate(name: "x", language: .c, roles: []) }
    }

    @Test func anActionAloneComesWithBackgroundAndAScreenNeedsNone() throws {
        let alone = try PluginTemplate(name: "x", language: .c, roles: [.action])
        #expect(alone.roles == [.background, .action])
        #expect(alone.addedRoles == [.background])
        let screen = try PluginTemplate(name: "x", language: .c, roles: [.action, .screen])
        #expect(screen.roles == [.screen, .action])
        #expect(screen.addedRoles.isEmpty)
    }

    @Test func aScreenActsOnItsOwnTargetAndTheTestExpectsEachRecordOnce() throws {
        let template = try PluginTemplate(name: "s", language: .c, roles: [.screen, .action])
        let scenario = TemplateScenario(template)
        #expect(scenario.messages.count == scenario.expected.count)
        #expect(scenario.messages.contains(#"{"pushhost":"action","id":"m-2","action":"tap"}"#))
        #expect(!scenario.messages.contains { $0.contains(#""id":"m-1","action""#) })
        // Without background, the first message has nobody to go to.
        #expect(scenario.expected[0] == #"{"id":"m-1","target":null,"status":"undelivered","route":"none"}"#)
    }

    @Test func everyExpectedLineIsAnObjectThatCheckReads() throws {
        let scenario = TemplateScenario(try PluginTemplate(name: "all", language: .c, roles: PluginTemplate.Role.allCases))
        let text = (scenario.expected + scenario.expectedFromSource).map { $0 + "\n" }.joined()
        let lines = NumberedLine.lines(of: text, comments: true)
        #expect(lines.count == scenario.expected.count + scenario.expectedFromSource.count)
        for line in lines {
            if case .failure(let error) = line.value { Issue.record("line \(line.number): \(error.reason)") }
        }
    }

    @Test func aSwiftProjectNeedsTheSDKAndNamesItByItsFolder() throws {
        let template = try PluginTemplate(name: "hello", language: .swift, roles: [.source])
        #expect(throws: UsageError.self) { try template.files(sdk: TemplateSDK(include: nil, swiftPackage: nil)) }
        let files = try template.files(sdk: TemplateSDK(include: nil, swiftPackage: "/opt/pushhost/share/pushhost/PushHostPlugin"))
        let manifest = try #require(files.first { $0.path == "Package.swift" })
        #expect(manifest.text.contains(#".package(path: "/opt/pushhost/share/pushhost/PushHostPlugin")"#))
        #expect(manifest.text.contains(#".product(name: "PushHostPlugin", package: "PushHostPlugin")"#))
        #expect(files.map(\.path).contains("Sources/PluginHello/HelloPlugin.swift"))
        #expect(files.filter(\.executable).map(\.path) == ["test/run.sh"])
        #expect(files.map(\.path).contains("test/records.ndjson"))
    }
}
