import Foundation
import Testing

/// Plugins with `ph.source/1` (SPEC §12): the host starts them after every
/// plugin was created, runs until SIGINT or SIGTERM even when standard input
/// ends, and sends each record they submit through `ph.intake/1` down the
/// same path as a line of standard input; `done` tells the source how it
/// ended, once, after its report line.
@Suite struct SourcePluginTests {
    /// Starts `pushhost run` with its own state folder, the report into
    /// `report.ndjson`, standard error into `stderr.log`, and standard input
    /// empty: only a source keeps it running.
    static func startHost(_ scratch: Scratch, _ arguments: [String]) throws -> HostProcess {
        try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson")] + arguments,
            errorPath: scratch.file("stderr.log"))
    }

    /// The `source` of a report line as `kind plugin record`, e.g. `plugin fifo-source 2`.
    static func source(_ line: [String: Any]) -> String {
        let source = line["source"] as? [String: Any] ?? [:]
        let record = (source["record"] as? Int).map(String.init) ?? "nil"
        return "\(source["kind"] as? String ?? "nil") \(source["plugin"] as? String ?? "nil") \(record)"
    }

    // MARK: - The sample fifo-source

    /// Opens `fifo` for writing once a reader holds it (the plugin's start),
    /// without ever blocking; -1 when none came within 20 s or the host ended.
    static func openWhenRead(_ fifo: String, host: HostProcess) -> Int32 {
        var fd: Int32 = -1
        // ENOENT until create made it, ENXIO until start opened it.
        eventually(timeout: .seconds(20)) {
            fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            return fd >= 0 || host.waitForExit(timeout: .zero) != nil
        }
        return fd
    }

    /// Writes `text` in one write (it fits in the pipe, so it does not block).
    static func write(_ fd: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) } == bytes.count
    }

    @Test func fifoSourceFeedsTheHostUntilSIGTERM() throws {
        let scratch = try Scratch()
        let fifo = scratch.file("records.fifo")
        let host = try Self.startHost(
            scratch,
            ["--plugin", Paths.sample("fifo-source"), "--set", "fifo-source.path=\(fifo)"]
                + scratch.probe("d", [.data])
                + scratch.probe("bg", [.background], settings: ["get": "source.kind,source.plugin,source.record"]))
        let fd = Self.openWhenRead(fifo, host: host)
        try #require(fd >= 0, "the FIFO was never opened for reading:\n\(host.stderr)")
        defer { close(fd) }

        let message = #"{"message_id":"m-1","to":"device","data":{"title":"Hello"}}"#
        let records = ndjson(message, "this is not JSON", #"{"pushhost":"token","token":"T1"}"#)
        try #require(Self.write(fd, records), "cannot write to the FIFO")
        let third = host.waitForStderr("info fifo-source: record 3:")
        try #require(third, "no done for record 3:\n\(host.stderr)")

        let report = try scratch.reportLines()
        try #require(report.count == 3, "\(report)")
        #expect(report[0]["id"] as? String == "m-1")
        #expect(report[0]["status"] as? String == "delivered")
        #expect(report[0]["route"] as? String == "background")
        #expect(report[1]["status"] as? String == "rejected")
        #expect(report[1]["error"] != nil, "\(report[1])")
        // Bytes from a FIFO come from outside: a host event there is rejected, never applied.
        #expect(report[2]["status"] as? String == "rejected")
        #expect((report[2]["error"] as? String)?.contains("not taken from here: plugin fifo-source did not submit it as a host event of its own") == true,
                "\(report[2])")
        #expect(report.map(Self.source) == ["plugin fifo-source 1", "plugin fifo-source 2", "plugin fifo-source 3"])
        #expect(scratch.probeCalls() == ["d data m-1", "bg background m-1"])
        let seen = scratch.probeLines().first { $0.event == "background" }
        #expect(seen?.values(["source.kind", "source.plugin", "source.record"])
            == ["source.kind": "plugin", "source.plugin": "fifo-source", "source.record": "1"], "\(String(describing: seen))")
        let done = host.stderr.split(separator: "\n").filter { $0.hasPrefix("info fifo-source: record ") }
        #expect(done == ["info fifo-source: record 1: done", "info fifo-source: record 2: rejected",
                         "info fifo-source: record 3: rejected"], "\(host.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("state/token")), "a forged token was stored")

        // Standard input ended long ago: the source keeps the host running.
        // A message without an id of its own is named after the source; a
        // failed one (the data probe says so) is worth a retry.
        #expect(host.waitForExit(timeout: .milliseconds(300)) == nil, "the host ended:\n\(host.stderr)")
        let more = ndjson(#"{"data":{"k":"v"}}"#, #"{"message_id":"m-5","data":{"d":{"verdict":"failed"}}}"#)
        try #require(Self.write(fd, more), "cannot write to the FIFO")
        let fifth = host.waitForStderr("info fifo-source: record 5:")
        #expect(fifth, "\(host.stderr)")
        let later = try scratch.reportLines().dropFirst(3)
        #expect(later.map { $0["id"] as? String ?? "nil" } == ["fifo-source-4", "m-5"])
        #expect(later.map { $0["status"] as? String ?? "nil" } == ["delivered", "failed"])
        #expect(later.map(Self.source) == ["plugin fifo-source 4", "plugin fifo-source 5"])
        let moreDone = host.stderr.split(separator: "\n").filter { $0.hasPrefix("info fifo-source: record ") }.dropFirst(3)
        #expect(Array(moreDone) == ["info fifo-source: record 4: done", "info fifo-source: record 5: retry"], "\(host.stderr)")

        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        #expect(scratch.probeLines().suffix(2).map(\.text).sorted() == ["bg destroy", "d destroy"])
        #expect(try scratch.reportLines().count == 5)
    }

    // MARK: - A test source that submits from its own thread

    /// The C source of the source plugin `burst`. Its settings:
    /// - `out` (required): the file it appends its lines to;
    /// - `count`: start spawns a thread that submits records
    ///   `{"message_id":"b-N","data":{}}` for N from 1, as fast as it can,
    ///   `count` of them, or with 0 (the default) until submit returns -1;
    /// - `pause_us`: a pause after each accepted record;
    /// - `fail=true`: start returns -1 instead;
    /// - `record=token`: the records are token events
    ///   `{"pushhost":"token","token":"b-N"}` instead;
    /// - `flags`: submits through `submit_record` (ABI 1.2) with these flags
    ///   (1 `PH_RECORD_HOST_EVENT`, 2 `PH_RECORD_NO_WAIT`; a full host's
    ///   answer, 1, is counted and the record submitted again 1 ms later).
    ///
    /// Its lines: `done N RESULT ok` from done (RESULT done, retry, rejected;
    /// `ok` when the report line holds `"b-N"`, else `other`); from the
    /// thread, `accepted K` and then `stopped after -1`, or `most
    /// outstanding M` (the most records submitted and not yet done at one
    /// time), `full F` (how often the host answered full) and `submitted all`;
    /// `stop` from stop (which leaves the thread running, so that it meets
    /// the -1); `destroy` from destroy, after it joined the thread.
    static let burstSource = #"""
        #define _POSIX_C_SOURCE 200809L
        #include <pushhost.h>
        #include <pthread.h>
        #include <stdarg.h>
        #include <stdint.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <string.h>
        #include <time.h>

        typedef struct burst {
            const ph_host *host;
            const ph_intake *intake;
            FILE *out;
            long count, pause_us, full;
            int fail, started, token, with_flags;
            uint32_t flags;
            pthread_t thread;
        } burst;

        static burst *instance; /* for done, whose ctx is the record's number */
        static pthread_mutex_t counting = PTHREAD_MUTEX_INITIALIZER;
        static long outstanding, most; /* submitted and not done yet: now, and at most */

        static void count(long change) {
            pthread_mutex_lock(&counting);
            outstanding += change;
            if (outstanding > most) most = outstanding;
            pthread_mutex_unlock(&counting);
        }

        __attribute__((format(printf, 2, 3)))
        static void put(burst *self, const char *format, ...) {
            va_list args;
            va_start(args, format);
            flockfile(self->out);
            vfprintf(self->out, format, args);
            fputc('\n', self->out);
            fflush(self->out);
            funlockfile(self->out);
            va_end(args);
        }

        static long number(const ph_host *host, const ph_config *config, const char *key) {
            const char *text = host->config_get(config, key);
            return text ? strtol(text, NULL, 10) : 0;
        }

        static void *create(const ph_host *host, const ph_config *config) {
            const char *out = host->config_get(config, "out");
            const ph_intake *intake = host->get_extension(host, PH_EXT_INTAKE);
            if (!out || !intake) {
                host->log(host, PH_LOG_ERROR, "no out setting, or no ph.intake/1");
                return NULL;
            }
            burst *self = calloc(1, sizeof *self);
            if (!self || !(self->out = fopen(out, "a"))) {
                free(self);
                host->log(host, PH_LOG_ERROR, "cannot open the out file");
                return NULL;
            }
            self->host = host;
            self->intake = intake;
            self->count = number(host, config, "count");
            self->pause_us = number(host, config, "pause_us");
            const char *fail = host->config_get(config, "fail");
            self->fail = fail && strcmp(fail, "true") == 0;
            const char *record = host->config_get(config, "record");
            self->token = record && strcmp(record, "token") == 0;
            self->with_flags = host->config_get(config, "flags") != NULL;
            self->flags = (uint32_t)number(host, config, "flags");
            if (self->with_flags && !PH_HAS_FIELD(ph_intake, intake, submit_record)) {
                host->log(host, PH_LOG_ERROR, "this host has no submit_record");
                fclose(self->out);
                free(self);
                return NULL;
            }
            instance = self;
            return self;
        }

        static void done(void *ctx, ph_result result, const char *report_line) {
            long n = (long)(uintptr_t)ctx;
            char id[32];
            snprintf(id, sizeof id, "\"b-%ld\"", n);
            const char *word = result == PH_DONE ? "done" : result == PH_RETRY ? "retry"
                : result == PH_REJECTED ? "rejected" : "unknown";
            put(instance, "done %ld %s %s", n, word, strstr(report_line, id) ? "ok" : "other");
            count(-1);
        }

        static void *submitting(void *p) {
            burst *self = p;
            long accepted = 0;
            for (long n = 1; self->count == 0 || n <= self->count; n++) {
                char json[64];
                int len = self->token
                    ? snprintf(json, sizeof json, "{\"pushhost\":\"token\",\"token\":\"b-%ld\"}", n)
                    : snprintf(json, sizeof json, "{\"message_id\":\"b-%ld\",\"data\":{}}", n);
                count(+1); /* before submit: done may come before submit returns */
                int answer;
                while ((answer = self->with_flags
                            ? self->intake->submit_record(self->host, json, (size_t)len, self->flags, done, (void *)(uintptr_t)n)
                            : self->intake->submit(self->host, json, (size_t)len, done, (void *)(uintptr_t)n)) == 1) {
                    self->full++;
                    struct timespec pause = {0, 1000000};
                    nanosleep(&pause, NULL);
                }
                if (answer != 0) {
                    count(-1);
                    put(self, "accepted %ld", accepted);
                    put(self, "stopped after -1");
                    return NULL;
                }
                accepted++;
                if (self->pause_us > 0) {
                    struct timespec pause = {self->pause_us / 1000000, (self->pause_us % 1000000) * 1000};
                    nanosleep(&pause, NULL);
                }
            }
            put(self, "accepted %ld", accepted);
            pthread_mutex_lock(&counting);
            put(self, "most outstanding %ld", most);
            pthread_mutex_unlock(&counting);
            put(self, "full %ld", self->full);
            put(self, "submitted all");
            return NULL;
        }

        static int start(void *p) {
            burst *self = p;
            if (self->fail) {
                self->host->log(self->host, PH_LOG_ERROR, "asked to fail");
                return -1;
            }
            if (pthread_create(&self->thread, NULL, submitting, self) != 0) {
                self->host->log(self->host, PH_LOG_ERROR, "pthread_create failed");
                return -1;
            }
            self->started = 1;
            put(self, "started");
            return 0;
        }

        static void stop(void *p) { put(p, "stop"); }

        static void destroy(void *p) {
            burst *self = p;
            if (self->started) pthread_join(self->thread, NULL);
            put(self, "destroy");
            fclose(self->out);
            free(self);
        }

        static const ph_source source = {.struct_size = sizeof(ph_source), .start = start, .stop = stop};

        static const void *get_extension(void *self, const char *id) {
            (void)self;
            return strcmp(id, PH_EXT_SOURCE) == 0 ? &source : NULL;
        }

        static const ph_plugin plugin = {
            PH_PLUGIN_HEADER, .name = "burst", .version = "1.0.0", .description = "A test source.",
            .create = create, .destroy = destroy, .get_extension = get_extension,
        };

        PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
        """#

    /// Builds `burst` and returns the `run` arguments that load it with `settings` and `out`.
    static func burst(_ scratch: Scratch, _ settings: [String: String]) throws -> [String] {
        let file = try scratch.plugin("burst.so", burstSource)
        let all = settings.merging(["out": scratch.file("burst.out")]) { $1 }
        return ["--plugin", file] + all.sorted { $0.key < $1.key }.flatMap { ["--set", "burst.\($0.key)=\($0.value)"] }
    }

    /// The lines `burst` wrote.
    static func burstLines(_ scratch: Scratch) -> [String] {
        scratch.read("burst.out").split(separator: "\n").map(String.init)
    }

    /// Many records, submitted far faster than the host takes them (every
    /// one waits 5 ms in the data stage, at most 2 at a time), so that submit
    /// blocks: each gets exactly one done, in submit order, after its report line.
    @Test func everySubmittedRecordGetsOneDoneInOrder() throws {
        let scratch = try Scratch()
        let count = 600
        let host = try Self.startHost(
            scratch,
            try Self.burst(scratch, ["count": "\(count)"])
                + scratch.probe("d", [.data], settings: ["verdict": "pending", "delay_ms": "5"])
                + scratch.probe("bg", [.background])
                + ["--max-pending", "2"])
        let last = "done \(count) done ok"
        eventually(timeout: .seconds(30)) {
            Self.burstLines(scratch).contains(last) || host.waitForExit(timeout: .zero) != nil
        }
        try #require(Self.burstLines(scratch).contains(last),
                     "not every record was done:\n\(Self.burstLines(scratch).suffix(5))\n\(host.stderr)")
        #expect(host.waitForExit(timeout: .milliseconds(100)) == nil, "the host ended:\n\(host.stderr)")
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")

        let lines = Self.burstLines(scratch)
        let done = lines.filter { $0.hasPrefix("done ") }
        #expect(done == (1...count).map { "done \($0) done ok" }, "\(done.prefix(5)) ... \(done.suffix(5))")
        #expect(lines.contains("accepted \(count)"))
        #expect(lines.contains("submitted all"))
        // Submit held the thread back: never more records out than --max-pending
        // (and the one waiting in submit, counted before the call).
        let most = lines.first { $0.hasPrefix("most outstanding ") }.flatMap { Int($0.dropFirst("most outstanding ".count)) }
        #expect(most.map { $0 > 0 && $0 <= 3 } == true, "most outstanding: \(String(describing: most))")
        #expect(lines.first == "started")
        #expect(lines.last == "destroy")
        #expect(lines.contains("stop"))

        let report = try scratch.reportLines()
        let ids = (1...count).map { "b-\($0)" }
        #expect(report.map { $0["id"] as? String ?? "nil" } == ids)
        #expect(report.map(Self.source) == (1...count).map { "plugin burst \($0)" })
        #expect(report.allSatisfy { $0["status"] as? String == "delivered" })
        #expect(scratch.probeCalls().filter { $0.hasPrefix("bg ") } == ids.map { "bg background \($0)" })
    }

    @Test func aSourceThatDoesNotStartStopsTheHost() throws {
        let scratch = try Scratch()
        let host = try Self.startHost(
            scratch, try Self.burst(scratch, ["fail": "true"]) + scratch.probe("bg", [.background]))
        let exit = host.waitForExit()
        #expect(exit == .status(1), "\(host.stderr)")
        let errors = host.stderr.split(separator: "\n").map(String.init)
        #expect(errors.contains("error burst: asked to fail"), "\(host.stderr)")
        #expect(errors.contains("error pushhost: plugin burst: its source did not start (start returned -1)"),
                "\(host.stderr)")
        #expect(Self.burstLines(scratch) == ["destroy"])
        #expect(scratch.probeLines().map(\.text) == ["bg destroy"])
        #expect(scratch.read("report.ndjson").isEmpty)
    }

    /// After SIGTERM, submit returns -1; what the host began before still
    /// gets its report line and its done, what it had not begun comes back
    /// (retry, no report line), and the host exits 0.
    @Test func submitReturnsMinusOneOnceTheHostStops() throws {
        let scratch = try Scratch()
        let host = try Self.startHost(
            scratch, try Self.burst(scratch, ["pause_us": "1000"]) + scratch.probe("bg", [.background]))
        eventually(timeout: .seconds(20)) {
            Self.burstLines(scratch).contains("done 20 done ok") || host.waitForExit(timeout: .zero) != nil
        }
        try #require(Self.burstLines(scratch).contains("done 20 done ok"),
                     "records are not flowing:\n\(Self.burstLines(scratch).suffix(5))\n\(host.stderr)")
        #expect(!Self.burstLines(scratch).contains("stopped after -1"))
        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")

        let lines = Self.burstLines(scratch)
        #expect(lines.contains("stopped after -1"), "\(lines.suffix(5))")
        #expect(lines.contains("stop"))
        #expect(lines.last == "destroy")
        let accepted = lines.first { $0.hasPrefix("accepted ") }.flatMap { Int($0.dropFirst("accepted ".count)) }
        let count = try #require(accepted, "\(lines.suffix(5))")
        #expect(count >= 20)
        let done = lines.filter { $0.hasPrefix("done ") }
        let handled = done.prefix { $0.hasSuffix(" done ok") }.count
        #expect(handled >= 20)
        #expect(done == (1...count).map { $0 <= handled ? "done \($0) done ok" : "done \($0) retry other" },
                "\(done.suffix(5)), accepted \(count)")
        let report = try scratch.reportLines()
        #expect(report.map { $0["id"] as? String ?? "nil" } == (1...handled).map { "b-\($0)" })
    }
    /// SIGTERM while the sample's reader thread is blocked in submit (the
    /// host is full): the host unblocks it with -1 before it calls stop, which
    /// joins that thread; it finishes the records it accepted and exits 0.
    @Test func fifoSourceStopsWhileItsReaderIsBlockedInSubmit() throws {
        let scratch = try Scratch()
        let fifo = scratch.file("records.fifo")
        let host = try Self.startHost(
            scratch,
            ["--plugin", Paths.sample("fifo-source"), "--set", "fifo-source.path=\(fifo)", "--max-pending", "1"]
                + scratch.probe("d", [.data], settings: ["verdict": "pending", "delay_ms": "5"]))
        let fd = Self.openWhenRead(fifo, host: host)
        try #require(fd >= 0, "the FIFO was never opened for reading:\n\(host.stderr)")
        defer { close(fd) }
        let total = 1000
        let records = (1...total).map { #"{"message_id":"f-\#($0)","data":{}}"# + "\n" }.joined()  // 31 KiB: fits in the pipe
        try #require(Self.write(fd, records), "cannot write to the FIFO")
        let flowing = host.waitForStderr("info fifo-source: record 3: done")
        try #require(flowing, "\(host.stderr)")

        let exit = host.stop()
        #expect(exit == .status(0), "\(host.stderr)")
        let done = host.stderr.split(separator: "\n").filter { $0.hasPrefix("info fifo-source: record ") }.map(String.init)
        let report = try scratch.reportLines()
        #expect(report.count >= 3 && report.count < total, "\(report.count) of \(total) records were reported")
        #expect(report.map { $0["id"] as? String ?? "nil" } == (0..<report.count).map { "f-\($0 + 1)" })
        // What the host had begun is done; what it had not, it gave back.
        #expect(done.prefix(report.count) == (0..<report.count).map { "info fifo-source: record \($0 + 1): done" }[...], "\(done.suffix(3))")
        #expect(done.dropFirst(report.count).allSatisfy { $0.hasSuffix(": retry") }, "\(done.suffix(3))")
        #expect(scratch.probeLines().last?.text == "d destroy")
    }
}
