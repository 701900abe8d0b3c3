import Foundation
import Testing

/// A plain C library that knows nothing of pushhost.h, as an ffi manifest
/// binds it, and the manifests the FFI tests write beside it.
enum Legacy {
    /// The library's C source. `legacy_open(path, code, log)` opens the file
    /// at `path` for appending, keeps `log`, logs `opened`, and returns `code`;
    /// every function then appends one line to that file (standard error
    /// before init) describing its call, with its arguments as received
    /// (NULL as `(null)`), flushed at once.
    static let source = #"""
        #include <inttypes.h>
        #include <stdarg.h>
        #include <stdbool.h>
        #include <stddef.h>
        #include <stdint.h>
        #include <stdio.h>

        #define API __attribute__((visibility("default")))

        static FILE *out;
        static void (*logger)(const char *text);

        static const char *s(const char *text) { return text ? text : "(null)"; }

        __attribute__((format(printf, 1, 2))) static void line(const char *format, ...) {
            FILE *to = out ? out : stderr;
            va_list args;
            va_start(args, format);
            vfprintf(to, format, args);
            va_end(args);
            fputc('\n', to);
            fflush(to);
        }

        static void say(const char *what, const char *text) {
            char buffer[512];
            snprintf(buffer, sizeof buffer, "%s %s", what, s(text));
            if (logger) logger(buffer);
        }

        API int32_t legacy_open(const char *path, int32_t code, void (*log)(const char *text)) {
            if (path) out = fopen(path, "a");
            line("legacy_open path=%s code=%" PRId32 " log=%s", s(path), code, log ? "set" : "(null)");
            logger = log;
            say("opened", path);
            return code;
        }

        API void legacy_close(void) {
            line("legacy_close");
            say("closing", "now");
            logger = NULL;
            if (out) fclose(out);
            out = NULL;
        }

        API int32_t legacy_alert(const char *title, const char *body, int32_t priority) {
            line("legacy_alert title=%s body=%s priority=%" PRId32, s(title), s(body), priority);
            say("alert", title);
            return 0;
        }

        /* Returns its count, so the message's data.count picks the verdict. */
        API int32_t legacy_check(const char *id, int64_t count) {
            line("legacy_check id=%s count=%" PRId64, s(id), count);
            return (int32_t)count;
        }

        API bool legacy_ready(const char *id, bool ready) {
            line("legacy_ready id=%s ready=%s", s(id), ready ? "true" : "false");
            return ready;
        }

        API void legacy_show(const char *message) { line("legacy_show %s", s(message)); }

        API void legacy_token(const char *token, const char *previous) {
            line("legacy_token token=%s previous=%s", s(token), s(previous));
        }

        /* Exactly length bytes of data: a wrong length shows. */
        API void legacy_bytes(const void *data, size_t length) {
            FILE *to = out ? out : stderr;
            fprintf(to, "legacy_bytes length=%zu data=", length);
            if (data) fwrite(data, 1, length, to); else fputs("(null)", to);
            fputc('\n', to);
            fflush(to);
        }

        API void legacy_numbers(int8_t a, uint8_t b, int64_t c, double d, bool e) {
            line("legacy_numbers int8=%d uint8=%u int64=%" PRId64 " double=%g bool=%s",
                 (int)a, (unsigned)b, c, d, e ? "true" : "false");
        }
        """#

    /// `init`: `legacy_open(LOG, code, log)`.
    static func initCall(_ log: String, code: Int = 0) -> String {
        #"{"symbol": "legacy_open", "returns": "int32", "params": ["string", "int32", "log"], "args": [{"value": "\#(log)"}, \#(code), "log"]}"#
    }

    static let fini = #"{"symbol": "legacy_close"}"#

    /// The background handler of the contract, with `body` as its second argument.
    static func background(body: String = #""notification.body""#) -> String {
        #"{"role": "background", "symbol": "legacy_alert", "returns": "int32", "params": ["string", "string", "int32"], "args": ["notification.title", \#(body), {"path": "data.priority", "default": 3}]}"#
    }

    /// The data handler of the contract; `verdicts` is JSON, or nil for none.
    static func data(verdicts: String? = #"{"0": "continue", "1": "suppress", "default": "failed"}"#, count: String = #"{"path": "data.count", "default": 0}"#) -> String {
        let map = verdicts.map { #", "verdicts": \#($0)"# } ?? ""
        return #"{"role": "data", "symbol": "legacy_check", "returns": "int32", "params": ["string", "int64"], "args": ["id", \#(count)]\#(map)}"#
    }

    static let screen = #"{"role": "screen", "targets": ["alerts"], "symbol": "legacy_show", "params": ["json"], "args": ["message"]}"#
    static let token = #"{"role": "token", "symbol": "legacy_token", "params": ["string", "string"], "args": ["token", "previous"]}"#

    /// A whole manifest: `library` (JSON text of the value), `top` (more
    /// top-level members), init (unless `log` is nil), fini, and `handlers`.
    static func manifest(
        _ handlers: [String], log: String?, library: String = #""liblegacy.so""#, top: String = "", fini: Bool = true
    ) -> String {
        var members = [#""library": \#(library)"#]
        if !top.isEmpty { members.append(top) }
        if let log { members.append(#""init": \#(initCall(log))"#) }
        if fini { members.append(#""fini": \#(Self.fini)"#) }
        members.append(#""handlers": [\#n    \#(handlers.joined(separator: ",\n    "))\#n]"#)
        return "{\n  " + members.joined(separator: ",\n  ") + "\n}\n"
    }
}

extension Scratch {
    /// The file the legacy library writes its calls to.
    var legacyLog: String { file("legacy.log") }

    /// Builds the legacy library as `library` (relative to the folder) and
    /// writes `text` as `name` beside it (relative too); returns the manifest's path.
    @discardableResult
    func ffi(_ text: String, name: String = "legacy.ffi.json", library: String = "liblegacy.so") throws -> String {
        try plugin(library, Legacy.source)
        return try write(name, text)
    }

    /// `ffi` with `Legacy.manifest(handlers, log: legacyLog)`: init opens `legacyLog`.
    @discardableResult
    func ffi(handlers: [String]) throws -> String {
        try ffi(Legacy.manifest(handlers, log: legacyLog))
    }

    /// The lines the legacy library wrote to `legacyLog`.
    var legacyCalls: [String] {
        read("legacy.log").split(separator: "\n").map(String.init)
    }

    /// `legacyCalls` without init's and fini's lines.
    var legacyHandlerCalls: [String] {
        legacyCalls.filter { !$0.hasPrefix("legacy_open ") && $0 != "legacy_close" }
    }
}

extension Command {
    /// The report lines (`--report -`) of one id, or nil.
    func reportLine(_ id: String) throws -> [String: Any]? {
        try report().first { $0["id"] as? String == id }
    }
}

/// JSON objects, one a line.
func jsonLines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { line in
        try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not an object: \(line)")
    }
}
