import PushHostSystem
import PushHostRecords

/// The files of a template project, by path relative to its folder.
package struct TemplateFile: Sendable, Equatable {
    package let path: String
    package let text: String
    package let executable: Bool
}

/// Where a template project finds pushhost's plugin API when it is built.
package struct TemplateSDK: Sendable {
    /// The folder holding `pushhost.h`, for a C build when pkg-config does
    /// not know pushhost; nil when unknown.
    package var include: String?
    /// The Swift package holding the `PushHostPlugin` product; nil when unknown.
    package var swiftPackage: String?
    /// The folder holding the SDKs of process plugins (`python/pushhost.py`,
    /// `node/pushhost.js`); nil when unknown.
    package var programs: String?

    package init(include: String?, swiftPackage: String?, programs: String? = nil) {
        self.include = include
        self.swiftPackage = swiftPackage
        self.programs = programs
    }
}

extension PluginTemplate {
    /// Every file of the project. A Swift project needs `sdk.swiftPackage`.
    package func files(sdk: TemplateSDK) throws(UsageError) -> [TemplateFile] {
        let scenario = TemplateScenario(self)
        var files = [
            TemplateFile(path: "README.md", text: readme, executable: false),
            TemplateFile(path: ".gitignore", text: language.isProgram ? "test/results/\n" : ".build/\n*.so\nPackage.resolved\ntest/results/\n", executable: false),
            TemplateFile(path: "test/run.sh", text: TemplateTestScript(template: self).text, executable: true),
            TemplateFile(path: "test/messages.ndjson", text: lines(scenario.messages), executable: false),
            TemplateFile(path: "test/expected.ndjson", text: lines(scenario.expected), executable: false),
            TemplateFile(path: "test/expected.log", text: lines(scenario.logged), executable: false),
        ]
        if plays(.source) {
            files += [
                TemplateFile(path: "test/records.ndjson", text: lines(scenario.sourceRecords), executable: false),
                TemplateFile(path: "test/expected-source.ndjson", text: lines(scenario.expectedFromSource), executable: false),
            ]
        }
        switch language {
        case .c:
            files += [
                TemplateFile(path: "Makefile", text: cMakefile(include: sdk.include), executable: false),
                TemplateFile(path: "\(name).c", text: CPluginSource(template: self).text, executable: false),
            ]
        case .swift:
            guard let package = sdk.swiftPackage else {
                throw UsageError("no pushhost Swift SDK was found beside this pushhost: give its package folder with --sdk DIR")
            }
            let source = SwiftPluginSource(template: self)
            files += [
                TemplateFile(path: "Makefile", text: swiftMakefile, executable: false),
                TemplateFile(path: "Package.swift", text: source.manifest(sdk: package), executable: false),
                TemplateFile(path: "Sources/\(moduleName)/\(typeName).swift", text: source.text, executable: false),
            ]
        case .python, .node, .shell:
            let program = ProgramSource(template: self)
            files += [
                TemplateFile(path: "Makefile", text: programMakefile, executable: false),
                TemplateFile(path: "\(name).process.json", text: program.manifest, executable: false),
                TemplateFile(path: program.path, text: program.text, executable: language == .shell),
            ]
            if language != .shell { files.append(try sdkFile(from: sdk.programs)) }
        }
        return files
    }

    /// The SDK of its language, copied beside the program: the program
    /// reads it there, inside the walls.
    private func sdkFile(from folder: String?) throws(UsageError) -> TemplateFile {
        let file = language == .node ? "node/pushhost.js" : "python/pushhost.py"
        guard let folder, let bytes = try? RegularFile.read(folder + "/" + file, links: .follow) else {
            throw UsageError("no pushhost SDK for \(language.rawValue) (\(file)) was found beside this pushhost")
        }
        return TemplateFile(path: "\(name)/\(file.split(separator: "/").last!)", text: String(decoding: bytes, as: UTF8.self), executable: false)
    }

    /// The file `test/run.sh` loads: the manifest of a program, else the library.
    var pluginFile: String { language.isProgram ? "\(name).process.json" : "lib\(name).so" }

    private func lines(_ lines: [String]) -> String {
        lines.map { $0 + "\n" }.joined()
    }

    private var programMakefile: String {
        """
        # Tests \(name), the pushhost process plugin of \(name).process.json, under pushhost.
        #
        #     make test         # run it under pushhost and check what comes out (test/run.sh)
        #     make test PUSHHOST=/path/to/pushhost

        PUSHHOST ?= pushhost

        all:

        test:
        \tPUSHHOST='$(PUSHHOST)' PLUGIN=./\(name).process.json test/run.sh

        .PHONY: all test

        """
    }

    private var makeTargets: String {
        """
        test: lib\(name).so
        \tPUSHHOST='$(PUSHHOST)' PLUGIN=./lib\(name).so test/run.sh

        .PHONY: all test clean
        """
    }

    private func cMakefile(include: String?) -> String {
        let fallback = include.map { "|| echo -I\($0)" } ?? ""
        return """
            # Builds lib\(name).so, the pushhost plugin \(name), and tests it under pushhost.
            #
            #     make              # build
            #     make test         # run it under pushhost and check what comes out (test/run.sh)
            #     make test PUSHHOST=/path/to/pushhost
            #
            # The header comes from pkg-config (an installed pushhost)\(include == nil ? "" : ", else from where it was when this project was made").

            CC ?= cc
            CFLAGS ?= -O2 -g
            PKG_CONFIG ?= pkg-config
            PUSHHOST ?= pushhost
            PUSHHOST_CFLAGS := $(shell $(PKG_CONFIG) --cflags pushhost 2>/dev/null \(fallback))
            PLUGIN_FLAGS = -std=c11 -D_GNU_SOURCE -Wall -Wextra -fvisibility=hidden -fPIC -shared

            all: lib\(name).so

            lib\(name).so: \(name).c
            \t$(CC) $(PLUGIN_FLAGS) $(CFLAGS) $(PUSHHOST_CFLAGS) -o $@ \(name).c\(plays(.source) ? " -pthread" : "")

            \(makeTargets)

            clean:
            \trm -f lib\(name).so

            """
    }

    private var swiftMakefile: String {
        """
        # Builds lib\(name).so, the pushhost plugin \(name), and tests it under pushhost.
        #
        #     make              # build (swift build -c release)
        #     make test         # run it under pushhost and check what comes out (test/run.sh)
        #     make test PUSHHOST=/path/to/pushhost
        #
        # Build it with the same Swift toolchain as the pushhost that loads it.

        SWIFT ?= swift
        PUSHHOST ?= pushhost

        all: lib\(name).so

        lib\(name).so: Package.swift $(wildcard Sources/*/*.swift)
        \t$(SWIFT) build -c release
        \tcp "$$($(SWIFT) build -c release --show-bin-path)/lib\(name).so" $@

        \(makeTargets)

        clean:
        \trm -rf .build lib\(name).so

        """
    }

    private var readme: String {
        let roles = roles.map(\.rawValue).joined(separator: ", ")
        let source: String =
            switch language {
            case .c: "`\(name).c`"
            case .swift: "`Sources/\(moduleName)/\(typeName).swift`"
            default: "`\(ProgramSource(template: self).path)`"
            }
        let build = language.isProgram
            ? """
            A process plugin: \(name).process.json names its program, which the host
            starts and keeps (its protocol: docs/process-plugins.md).

            ```
            make test     # runs it under pushhost and checks what comes out
            pushhost plugins --process ./\(name).process.json
            ```
            """
            : """
            ```
            make          # builds lib\(name).so
            make test     # runs it under pushhost and checks what comes out
            pushhost plugins --plugin ./lib\(name).so
            ```
            """
        let load = language.isProgram ? "--process ./\(name).process.json" : "--plugin ./lib\(name).so"
        return """
            # \(name)

            A pushhost plugin (roles: \(roles)), made by `pushhost new plugin`.

            \(build)

            \(source) has one handler per role; each does a small thing the test
            checks: the data handler suppresses a message whose data says
            `"quiet":"yes"`, the interceptor holds back one that says `"hold":"yes"`,
            the other handlers log a line. Change them, then change the test.

            ## The test

            `test/run.sh` first runs `pushhost plugins --check \(load)`
            (the plugin created and destroyed, as a run would), then
            `pushhost run --ephemeral \(load)` with
            `test/messages.ndjson` on standard input (a state folder of its own,
            removed at exit), and checks:

            - the report, with `pushhost check`: each line of `test/expected.ndjson`
              takes a report line in order, and only the fields it names are
              compared; every report line must be expected. It also writes
              `test/results/expected.xml` (JUnit XML; `RESULTS=DIR` puts it elsewhere)
              for a CI to show;
            - the log: each line of `test/expected.log` must be found in pushhost's log.

            After changing what the plugin does on purpose, write the expected lines
            from a report instead of by hand, and keep only the fields that matter:

            ```
            pushhost run --ephemeral \(load) --report report.ndjson < test/messages.ndjson
            pushhost check report.ndjson test/expected.ndjson --update
            ```
            \(plays(.source) ? """

            A host with a source runs until it is stopped, so each run waits for its
            report lines and then sends SIGTERM. A second run has the source submit
            `test/records.ndjson` (the setting `records`) and checks
            `test/expected-source.ndjson`.

            """ : "")
            `make test PUSHHOST=/path/to/pushhost` tests against another pushhost
            binary. The ABI is `<pushhost.h>` and docs/abi.md in the pushhost
            repository; the report's fields are in its docs/running.md, and testing
            with pushhost (every status, a CI job to copy) in its docs/testing.md.

            """
    }
}
