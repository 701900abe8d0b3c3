import Foundation
import Testing

/// Every refusal kind, each with a real broken library built here: the host
/// exits 1 before reading input, and one line names the file and the reason.
@Suite struct RefusalTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let label: String
        /// The C source, or nil for a file that is not a shared library at all.
        let source: String?
        let reason: String
        var testDescription: String { label }
    }

    static let cases: [Case] = [
        Case(label: "not a shared library", source: nil, reason: "not a loadable shared library"),
        Case(label: "no entry", source: "int ph_plugin_entry_typo(void);\n__attribute__((visibility(\"default\"))) int ph_plugin_entry_typo(void) { return 0; }",
             reason: "no ph_plugin_entry symbol"),
        Case(label: "entry returns NULL", source: "#include <pushhost.h>\nPH_EXPORT const ph_plugin *ph_plugin_entry(void) { return NULL; }",
             reason: "ph_plugin_entry returned NULL"),
        Case(label: "ABI major 2",
             source: PluginSource.descriptor(#".name = "future""#, header: ".struct_size = sizeof(ph_plugin), .abi_major = 2, .abi_minor = 0"),
             reason: "built for ABI 2.0, but this host speaks ABI 1.2 (the majors differ)"),
        Case(label: "newer minor",
             source: PluginSource.descriptor(#".name = "newer""#, header: ".struct_size = sizeof(ph_plugin), .abi_major = PH_ABI_MAJOR, .abi_minor = PH_ABI_MINOR + 1"),
             reason: "built for ABI 1.3, but this host speaks ABI 1.2 (the plugin's minor is newer)"),
        Case(label: "NULL name", source: PluginSource.descriptor(#".version = "1""#), reason: "the descriptor has no name (NULL)"),
        Case(label: "empty name", source: PluginSource.descriptor(#".name = """#), reason: "the name is empty"),
        Case(label: "badly formed name", source: PluginSource.descriptor(#".name = "Bad Name""#),
             reason: #"the name "Bad Name" is not made of [a-z0-9_-]"#),
        Case(label: "screen without targets",
             source: PluginSource.descriptor(#".name = "screen", .on_target = on_message"#, prelude: PluginSource.noopHandlers),
             reason: "a screen plugin (on_target or on_mismatch) must list its targets"),
        Case(label: "struct_size too small",
             source: PluginSource.descriptor(#".name = "tiny""#, header: ".struct_size = 8, .abi_major = PH_ABI_MAJOR"),
             reason: "descriptor struct_size 8 is too small"),
        Case(label: "create returns NULL",
             source: PluginSource.descriptor(#".name = "broken", .create = create"#,
                                             prelude: "static void *create(const ph_host *h, const ph_config *c) { (void)c; h->log(h, PH_LOG_ERROR, \"no database here\"); return NULL; }"),
             reason: "create returned NULL"),
    ]

    @Test(arguments: cases)
    func refusesAndNamesTheFile(_ refusal: Case) throws {
        let scratch = try Scratch()
        let file: String
        if let source = refusal.source {
            file = try scratch.plugin("bad.so", source)
        } else {
            file = try scratch.write("bad.so", "this is a text file\n")
        }
        let result = try Command.pushhost(["run", "--plugin", file, "--state", scratch.file("state")], stdin: "{\"data\":{}}\n")
        #expect(result.status == 1)
        let line = result.stderr.split(separator: "\n").first { $0.contains("refused plugin") }
        #expect(line?.contains("refused plugin \(file): \(refusal.reason)") == true, "stderr was:\n\(result.stderr)")
    }

    @Test func createFailureKeepsThePluginsOwnReason() throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("bad.so", Self.cases.last!.source!)
        let result = try Command.pushhost(["run", "--plugin", file, "--state", scratch.file("state")])
        #expect(result.stderr.contains("error broken: no database here"))
    }

    @Test func twoPluginsWithOneName() throws {
        let scratch = try Scratch()
        let source = PluginSource.descriptor(#".name = "twin", .on_background = on_message"#, prelude: PluginSource.noopHandlers)
        let first = try scratch.plugin("a.so", source)
        let second = try scratch.plugin("b.so", source)
        let result = try Command.pushhost(["run", "--plugins", scratch.path, "--state", scratch.file("state")])
        #expect(result.status == 1)
        #expect(result.stderr.contains(#"refused plugin \#(second): the name "twin" is already taken by \#(first)"#), "\(result.stderr)")
        #expect(!result.stderr.contains("refused plugin \(first)"))
    }

    @Test func twoScreensClaimingOneTarget() throws {
        let scratch = try Scratch()
        func screen(_ name: String, _ targets: String) -> String {
            PluginSource.descriptor(#".name = "\#(name)", .targets = targets, .on_target = on_message"#,
                                    prelude: PluginSource.noopHandlers + "\nstatic const char *const targets[] = {\(targets), NULL};")
        }
        try scratch.plugin("1-orders.so", screen("orders", #""orders", "stock""#))
        let second = try scratch.plugin("2-stock.so", screen("stock", #""stock""#))
        let result = try Command.pushhost(["run", "--plugins", scratch.path, "--state", scratch.file("state")])
        #expect(result.status == 1)
        #expect(result.stderr.contains(#"refused plugin \#(second): the target "stock" is already claimed by the screen plugin "orders""#), "\(result.stderr)")
    }

    @Test func listingShowsTheRefusal() throws {
        let scratch = try Scratch()
        let file = try scratch.plugin("bad.so", "#include <pushhost.h>\nPH_EXPORT const ph_plugin *ph_plugin_entry(void) { return NULL; }")
        let result = try Command.pushhost(["plugins", "--plugin", file])
        #expect(result.status == 1)
        #expect(result.stdout.contains("refused \(file): ph_plugin_entry returned NULL"))
    }

    @Test func skipBadPluginsGoesOnWithTheGoodOnes() throws {
        let scratch = try Scratch()
        let good = try scratch.plugin("good.so", PluginSource.recorder("good"))
        let bad = try scratch.write("bad.so", "not ELF\n")
        let result = try Command.pushhost(
            ["run", "--skip-bad-plugins", "--plugin", bad, "--plugin", good, "--set", "good.log=\(scratch.file("good.log"))",
             "--state", scratch.file("state")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("refused plugin \(bad): not a loadable shared library"))
        #expect(scratch.read("good.log") == "create\ndestroy\n")
    }

    @Test func aMissingPluginDirectoryIsASetupError() throws {
        let scratch = try Scratch()
        let result = try Command.pushhost(["plugins", "--plugins", scratch.file("nowhere")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("plugin directory \(scratch.file("nowhere")): No such file or directory"))
    }
}
