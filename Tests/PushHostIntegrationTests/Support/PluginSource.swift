/// C sources of small plugins that tests build with `cc`, as a third-party
/// author would.
enum PluginSource {
    /// The text of `Tests/Fixtures/plugins/NAME.c`, after a `#define` line
    /// for each of `defines` (`MACRO` or `MACRO VALUE`); a `#line` keeps cc's
    /// messages pointing into the file.
    static func fixture(_ name: String, defines: [String] = []) throws -> String {
        let file = Paths.fixturePlugins.appendingPathComponent(name + ".c")
        let text = try String(contentsOf: file, encoding: .utf8)
        return (defines.map { "#define \($0)\n" } + ["#line 1 \"\(file.path)\"\n", text]).joined()
    }

    /// A plugin whose descriptor is `fields` (designated initializers, after
    /// `PH_PLUGIN_HEADER` unless `header` replaces it), with `prelude` before it.
    static func descriptor(_ fields: String, header: String = "PH_PLUGIN_HEADER", prelude: String = "") -> String {
        """
        #include <pushhost.h>
        #include <stdio.h>
        #include <stdlib.h>
        \(prelude)
        static const ph_plugin plugin = { \(header), \(fields) };
        PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
        """
    }

    /// Handlers that do nothing (`on_data`, `on_message`, `on_token`), to
    /// give a descriptor roles (Tests/Fixtures/plugins/noop.h).
    static let noopHandlers = "#include \"noop.h\"\n"

    /// A background plugin named `name` that appends `create`, its settings
    /// `keys` (as key=value) and `destroy` to the file at its `log` setting
    /// (Tests/Fixtures/plugins/recorder.c).
    static func recorder(_ name: String, keys: [String] = []) throws -> String {
        let list = keys.map { "\"\($0)\"" }.joined(separator: ", ")
        return try fixture("recorder", defines: [#"NAME "\#(name)""#] + (keys.isEmpty ? [] : ["KEYS " + list]))
    }
}
