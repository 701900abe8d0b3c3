import Foundation
import Testing

/// The `ph_message` handles of pending messages cannot be mistaken: a
/// `complete` that comes again, or after the deadline, finds no message
/// (whatever came since), is ignored with a warning, and changes no other
/// message's outcome.
@Suite struct HandleTests {
    /// A data plugin that answers every message `PH_PENDING` and completes
    /// it from its own thread with `PH_CONTINUE`; just before, it calls
    /// `complete` a second time, with `PH_FAILED`, for the message `lag`
    /// before it: after `lag` later messages went pending and completed.
    static let twice = PluginSource.descriptor(
        #".name = "twice", .version = "1.0.0", .create = create, .destroy = destroy, .on_data = on_data"#,
        prelude: #"""
            #include <pthread.h>

            enum { QUEUE = 1 << 16 };
            typedef struct twice {
                const ph_host *host;
                long lag, stopping;
                const ph_message **done;
                const ph_message *queue[QUEUE];
                long head, tail;
                pthread_mutex_t lock;
                pthread_cond_t more;
                pthread_t worker;
            } twice;

            static void *answer(void *p) {
                twice *self = p;
                for (long answered = 0;; answered++) {
                    pthread_mutex_lock(&self->lock);
                    while (self->head == self->tail && !self->stopping) pthread_cond_wait(&self->more, &self->lock);
                    if (self->head == self->tail) {
                        pthread_mutex_unlock(&self->lock);
                        return NULL;
                    }
                    const ph_message *m = self->queue[self->head++ % QUEUE];
                    pthread_mutex_unlock(&self->lock);
                    long slot = answered % self->lag;
                    if (answered >= self->lag) self->host->complete(self->host, self->done[slot], PH_FAILED);
                    self->done[slot] = m;
                    self->host->complete(self->host, m, PH_CONTINUE);
                }
            }

            static void *create(const ph_host *h, const ph_config *c) {
                twice *self = calloc(1, sizeof *self);
                if (!self) return NULL;
                self->host = h;
                self->lag = strtol(h->config_get(c, "lag"), NULL, 10);
                self->done = calloc((size_t)self->lag, sizeof *self->done);
                pthread_mutex_init(&self->lock, NULL);
                pthread_cond_init(&self->more, NULL);
                pthread_create(&self->worker, NULL, answer, self);
                return self;
            }

            static void destroy(void *p) {
                twice *self = p;
                pthread_mutex_lock(&self->lock);
                self->stopping = 1;
                pthread_cond_signal(&self->more);
                pthread_mutex_unlock(&self->lock);
                pthread_join(self->worker, NULL);
                free(self->done);
                free(self);
            }

            static ph_verdict on_data(void *p, const ph_message *m) {
                twice *self = p;
                pthread_mutex_lock(&self->lock);
                self->queue[self->tail++ % QUEUE] = m;
                pthread_cond_signal(&self->more);
                pthread_mutex_unlock(&self->lock);
                return PH_PENDING;
            }
            """#)

    /// Each message completed a second time after 8,196 later messages went
    /// pending and completed: every message keeps its first verdict, and
    /// each second call is one warning.
    ///
    /// One message pending at a time (`--max-pending 1`) makes a host that
    /// lets message memory be reused fail at every second call: one that
    /// kept the last 4,096 completed messages from reuse handed each
    /// message the address of the one 4,098 before it, so the second call
    /// landed on the message then pending, and failed it.
    @Test func aSecondCompleteMuchLaterChangesNoOtherMessage() throws {
        let scratch = try Scratch()
        let plugin = try scratch.plugin("twice.so", Self.twice)
        let lag = 8_196, count = 12_000
        let input = (1...count).map { #"{"message_id":"m\#($0)","data":{"n":"\#($0)"}}"# }.joined(separator: "\n")
        let result = try scratch.run(["--plugin", plugin, "--set", "twice.lag=\(lag)", "--max-pending", "1"], stdin: input)
        #expect(result.status == 0, "\(result.stderr)")
        let report = try result.report()
        try #require(report.count == count)
        let changed = report.filter { $0["status"] as? String != "undelivered" }
        #expect(changed.isEmpty, "\(changed.count) messages took another's verdict, e.g. \(changed.prefix(3))")
        #expect(report.map { $0["id"] as? String } == (1...count).map { "m\($0)" })
        let warnings = result.errorLines.filter { $0.hasPrefix("warning") }
        #expect(warnings.count == count - lag, "\(warnings.prefix(3))")
        #expect(Set(warnings) == ["warning pushhost: twice: complete for a message that is not waiting for it (a second call, or an unknown message); ignored"])
    }

    /// A data plugin that answers `PH_PENDING` for a message with
    /// `data.late`, and `delay_ms` later, from its own thread, reads it
    /// through the accessors (writing what they answer) and completes it.
    static let late = "#define _DEFAULT_SOURCE\n" + PluginSource.descriptor(
        #".name = "late", .version = "1.0.0", .create = create, .on_data = on_data"#,
        prelude: #"""
            #include <pthread.h>
            #include <string.h>
            #include <unistd.h>

            static const ph_host *host;
            static FILE *out;
            static long delay_ms;

            static void *create(const ph_host *h, const ph_config *c) {
                host = h;
                out = fopen(h->config_get(c, "log"), "a");
                delay_ms = strtol(h->config_get(c, "delay_ms"), NULL, 10);
                return out;
            }

            static void *answer(void *p) {
                const ph_message *m = p;
                usleep((useconds_t)delay_ms * 1000);
                size_t length = 99;
                const char *json = host->message_json(m, &length);
                const char *data = host->message_get(m, "data");
                const char *target = host->message_target(m);
                fprintf(out, "late id=[%s] data=%s target=%s json=[%s] length=%zu\n", host->message_id(m),
                        data ? data : "NULL", target ? target : "NULL", json, length);
                fflush(out);
                host->complete(host, m, PH_CONTINUE);
                return NULL;
            }

            static ph_verdict on_data(void *self, const ph_message *m) {
                (void)self;
                if (!host->message_get(m, "data.late")) return PH_CONTINUE;
                fprintf(out, "pending %s\n", host->message_id(m));
                fflush(out);
                pthread_t thread;
                pthread_create(&thread, NULL, answer, (void *)m);
                pthread_detach(thread);
                return PH_PENDING;
            }
            """#)

    /// The deadline passes: the message is failed, the next data plugin
    /// still gets it (under a new handle), the late plugin's accessors find
    /// no message, and its `complete` is ignored with a warning.
    @Test func aCompleteAfterTheDeadlineFindsNoMessage() throws {
        let scratch = try Scratch()
        let late = try scratch.plugin("late.so", Self.late)
        let plugins = ["--plugin", late, "--set", "late.log=\(scratch.file("late.log"))", "--set", "late.delay_ms=500"]
            + (try scratch.probe("d2", [.data], settings: ["get": "data.late"])) + (try scratch.probe("bg", [.background]))
        signal(SIGPIPE, SIG_IGN)
        let feed = Pipe()
        let host = try HostProcess(
            ["run", "--state", scratch.file("state"), "--report", scratch.file("report.ndjson"), "--data-timeout", "0.2"] + plugins,
            errorPath: scratch.file("stderr.log"), input: feed)
        try feed.fileHandleForWriting.write(contentsOf: Data(ndjson(#"{"message_id":"m1","data":{"late":"yes","rx_gcm_key_target":"t"}}"#).utf8))
        #expect(host.waitForStderr("late: no complete for message m1 within 0.2s; counted as failed"), "\(host.stderr)")
        #expect(host.waitForStderr("late: complete arrived after the --data-timeout deadline; ignored"), "\(host.stderr)")
        try feed.fileHandleForWriting.write(contentsOf: Data(ndjson(#"{"message_id":"m2","data":{}}"#).utf8))
        try feed.fileHandleForWriting.close()
        #expect(host.waitForExit() == .status(0), "\(host.stderr)")

        #expect(scratch.read("late.log").split(separator: "\n") == [
            "pending m1", "late id=[] data=NULL target=NULL json=[] length=0",
        ])
        #expect(scratch.probeCalls() == ["d2 data m1", "d2 data m2", "bg background m2"])
        #expect(scratch.probeLines().first?.values(["data.late"]) == ["data.late": "yes"])
        let report = try scratch.reportLines()
        #expect(report.map { $0["status"] as? String } == ["failed", "delivered"])
        #expect(report.first?["data"] as? [[String: String]] == [["plugin": "late", "verdict": "failed"], ["plugin": "d2", "verdict": "continue"]])
        #expect(report.first?["target"] as? String == "t")
        #expect(host.stderr.components(separatedBy: "ignored").count == 2, "\(host.stderr)")
    }
}
