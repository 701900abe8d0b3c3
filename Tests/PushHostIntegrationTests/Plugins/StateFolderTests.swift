import Foundation
import Testing

/// `ph.state/1`: each plugin's own folder in the state directory,
/// `STATE/plugins/NAME`, made 0700 on first use; a symbolic link in its
/// place is refused with a line that names it.
@Suite struct StateFolderTests {
    /// A plugin that asks for its folder in create() and logs what it got.
    static let source = """
        #include <pushhost.h>
        #include <stdio.h>
        #include <stdlib.h>

        static void *create(const ph_host *host, const ph_config *config) {
            (void)config;
            const ph_state *state = host->get_extension(host, PH_EXT_STATE);
            const char *folder = state ? state->directory(host) : NULL;
            const char *again = state ? state->directory(host) : NULL;
            char line[4200];
            snprintf(line, sizeof line, "folder %s, same pointer %d", folder ? folder : "(none)", folder == again);
            host->log(host, PH_LOG_INFO, line);
            return malloc(1);
        }

        static void destroy(void *self) { free(self); }

        static const ph_plugin plugin = {
            PH_PLUGIN_HEADER, .name = "keeper", .version = "1.0.0", .create = create, .destroy = destroy,
        };

        PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
        """

    @Test func eachPluginGetsAFolderOfItsOwn() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("keeper.so", Self.source)
        let result = try scratch.run(["--plugin", plugin], stdin: "")
        #expect(result.status == 0, "\(result.stderr)")
        let folder = scratch.file("state/plugins/keeper")
        #expect(result.stderr.contains("info keeper: folder \(folder), same pointer 1"))
        for path in [scratch.file("state/plugins"), folder] {
            let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(path)")
        }
    }

    @Test func aSymbolicLinkInItsPlaceIsRefused() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("keeper.so", Self.source)
        try FileManager.default.createDirectory(atPath: scratch.file("state/plugins"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.file("elsewhere"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: scratch.file("state/plugins/keeper"), withDestinationPath: scratch.file("elsewhere"))
        let result = try scratch.run(["--plugin", plugin], stdin: "")
        #expect(result.stderr.contains(
            "error keeper: no state folder: \(scratch.file("state/plugins/keeper")) is a symbolic link, which pushhost does not follow"))
        #expect(result.stderr.contains("info keeper: folder (none), same pointer 1"))
    }
}
