import ArgumentParser
import PushHostCore
import PushHostSystem
import PushHostPlugins

/// `pushhost new`: starting points for plugin authors.
struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Make a starting point: a plugin project that builds and tests itself.",
        subcommands: [NewPluginCommand.self]
    )
}

/// `pushhost new plugin NAME`: a plugin project with a build and a pipe-fed test.
struct NewPluginCommand: ParsableCommand, LoggingCommand {
    static let configuration = CommandConfiguration(
        commandName: "plugin",
        abstract: "Write a plugin project: one handler per role, a build (make), and a test (make test) that runs it under pushhost.",
        discussion: """
            The folder (--output, default ./NAME) must be new or empty. A C project builds with cc and finds \
            <pushhost.h> with pkg-config (else where this pushhost's header is); a Swift project is a package that \
            depends on the Swift SDK (PushHostPlugin) installed beside this pushhost, or on the one --sdk names. \
            Its test, test/run.sh, runs pushhost plugins --check, pipes test/messages.ndjson into pushhost run \
            --ephemeral, holds the report against test/expected.ndjson with pushhost check (JUnit XML into \
            test/results/) and checks the plugin's log lines. A python, node or shell project is a process plugin: \
            NAME.process.json and its program in NAME/, with the SDK of its language copied beside it (shell: none, \
            it reads calls with jq). A plugin with the action role but neither background nor screen gets \
            background too, so that its test can deliver a message to act on.
            """
    )

    @Argument(help: ArgumentHelp("The plugin's name: 1 to 64 of [a-z0-9_-], starting with a letter."))
    var name: String

    @Option(help: ArgumentHelp("The plugin's language: a library (c, swift), or a process plugin's program (python, node, shell with jq).", valueName: "c|swift|python|node|shell"))
    var language: String = "c"

    @Option(help: ArgumentHelp("The roles it plays, comma-separated: data, background, screen, token, action, interceptor, source.", valueName: "ROLES"))
    var role: String = "background"

    @Option(help: ArgumentHelp("Where to write it (default: ./NAME).", valueName: "DIR"))
    var output: String?

    @Option(help: ArgumentHelp("The Swift SDK's package folder, for --language swift (default: the one installed beside this pushhost, or the sdk/ of the clone that built it).", valueName: "DIR"))
    var sdk: String?

    @OptionGroup var log: LogOptions

    func run() throws {
        guard let language = PluginTemplate.Language(rawValue: language) else {
            throw UsageError("unknown language \"\(language)\" (languages: \(PluginTemplate.Language.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let template = try PluginTemplate(name: name, language: language, roles: try PluginTemplate.roles(role))
        var found = TemplateSDK.currentExecutable.map(TemplateSDK.beside(executable:)) ?? TemplateSDK(include: nil, swiftPackage: nil)
        if let sdk { found.swiftPackage = try TemplateSDK.swiftPackage(at: sdk) }
        let folder = output ?? name
        try PluginTemplate.write(try template.files(sdk: found), into: folder)
        if !template.addedRoles.isEmpty {
            print("\(name): added the role \(template.addedRoles.map(\.rawValue).joined(separator: ", ")), so that its test can deliver a message to act on")
        }
        let words: [PluginTemplate.Language: String] = [.c: "C", .swift: "Swift", .python: "Python", .node: "Node.js", .shell: "sh with jq"]
        print("""
            wrote \(folder): \(name) in \(words[language]!), roles \(template.roles.map(\.rawValue).joined(separator: ", "))
            next: cd \(folder) && \(language.isProgram ? "make test" : "make && make test")
            """)
    }
}
