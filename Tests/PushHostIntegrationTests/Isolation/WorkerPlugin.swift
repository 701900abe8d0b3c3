import Foundation

extension PluginSource {
    /// A plugin named `name` for `--isolate` tests, with the handlers of the
    /// data, background, foreground, token and action roles among `roles`. Every line it writes goes
    /// to the file at its `log` setting, whole and flushed at once:
    /// - `create PID PPID` from create, `destroy PID` from destroy;
    /// - `HANDLER ID PID PPID` first in every handler call (on_data,
    ///   on_background, on_target, on_mismatch), and `on_token NEW PID PPID
    ///   PREVIOUS-or-dash` (a token `segv` crashes it), and `on_action ID PID PPID ACTION INPUT-or-NULL`
    ///   (an action named `segv` crashes it);
    /// - `complete ID PID PPID` from the thread of a `later` answer, just
    ///   before it calls complete;
    /// - `ask ID QUERY=ANSWER` (NULL for a NULL answer) for each query of the
    ///   message's `data.ask`, a comma-separated list of: `id`, `target`,
    ///   `token` (current_token), `json` (then `json_len=ok|mismatch`),
    ///   `get:PATH` (message_get), `config:KEY` (config_get), `log:TEXT`
    ///   (host->log at info; the answer is TEXT).
    ///
    /// Then each handler misbehaves as `data.fault` says (unless `data.only`
    /// names another plugin): `segv`, `abort`, `hang` (never returns),
    /// `slow` (sleeps `data.ms`, default 1000, then returns), `leak` (4 MiB
    /// malloc'd, written and kept), `fail` (PH_FAILED); on_data alone also
    /// knows `pending` (PH_PENDING, never completed) and `later` (PH_PENDING,
    /// then PH_CONTINUE from another thread about 50 ms later), and the
    /// faults of ``workerAttacks``, which attack the host through the
    /// worker's channel. The setting `create_fault=garbage` writes 20 bytes
    /// that are no frame to that channel from create, before the worker's
    /// first frame; `create_fault=again` makes create return NULL once its
    /// log exists (every start after the first fails).
    static func worker(name: String, roles: Set<ProbeRole>, targets: [String] = []) -> String {
        var (fields, prelude) = descriptorFields(roles: roles, targets: targets)
        if roles.contains(.action) { fields.append(".on_action = on_action") }
        return #"""
            #define _DEFAULT_SOURCE
            #include <pushhost.h>
            #include <pthread.h>
            #include <stdarg.h>
            #include <stdint.h>
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            #include <time.h>
            #include <unistd.h>

            #define NAME "\#(name)"
            #define UNUSED __attribute__((unused))

            typedef struct worker { const ph_host *host; const ph_config *config; FILE *out; } worker;

            /* What `leak` took, kept reachable so that no compiler drops it. */
            static void *volatile kept;

            static void say(worker *self, const char *format, ...) {
                va_list list;
                va_start(list, format);
                flockfile(self->out);
                vfprintf(self->out, format, list);
                fputc('\n', self->out);
                fflush(self->out);
                funlockfile(self->out);
                va_end(list);
            }

            static const char *or_null(const char *text) { return text ? text : "NULL"; }

            \#(workerAttacks)

            static void *create(const ph_host *h, const ph_config *c) {
                const char *path = h->config_get(c, "log");
                if (!path) { h->log(h, PH_LOG_ERROR, "no log setting"); return NULL; }
                const char *fault = h->config_get(c, "create_fault");
                if (fault && strcmp(fault, "again") == 0 && access(path, F_OK) == 0) {
                    h->log(h, PH_LOG_ERROR, "started before: create fails");
                    return NULL;
                }
                worker *self = calloc(1, sizeof *self);
                if (!self) return NULL;
                self->host = h;
                self->config = c;
                self->out = fopen(path, "a");
                if (!self->out) { h->log(h, PH_LOG_ERROR, "cannot open the log"); free(self); return NULL; }
                say(self, "create %d %d", (int)getpid(), (int)getppid());
                if (fault && strcmp(fault, "garbage") == 0) {
                    ssize_t written = write(3, "garbage, not a frame", 20);
                    (void)written;
                }
                return self;
            }

            static void destroy(void *p) {
                worker *self = p;
                say(self, "destroy %d", (int)getpid());
                fclose(self->out);
                free(self);
            }

            static void answer(worker *self, const char *id, const ph_message *m, const char *query) {
                const ph_host *h = self->host;
                if (strcmp(query, "id") == 0) {
                    say(self, "ask %s id=%s", id, h->message_id(m));
                } else if (strcmp(query, "target") == 0) {
                    say(self, "ask %s target=%s", id, or_null(h->message_target(m)));
                } else if (strcmp(query, "token") == 0) {
                    say(self, "ask %s token=%s", id, or_null(h->current_token(h)));
                } else if (strcmp(query, "json") == 0) {
                    size_t length = 0;
                    const char *json = h->message_json(m, &length);
                    say(self, "ask %s json=%s", id, json);
                    say(self, "ask %s json_len=%s", id, length == strlen(json) ? "ok" : "mismatch");
                } else if (strncmp(query, "get:", 4) == 0) {
                    say(self, "ask %s %s=%s", id, query, or_null(h->message_get(m, query + 4)));
                } else if (strncmp(query, "config:", 7) == 0) {
                    say(self, "ask %s %s=%s", id, query, or_null(h->config_get(self->config, query + 7)));
                } else if (strncmp(query, "log:", 4) == 0) {
                    h->log(h, PH_LOG_INFO, query + 4);
                    say(self, "ask %s log=%s", id, query + 4);
                } else {
                    say(self, "ask %s %s=UNKNOWN", id, query);
                }
            }

            /* Writes the call line and the answers; the fault this call is to show, or NULL. */
            static const char *called(worker *self, const char *handler, const ph_message *m) {
                const ph_host *h = self->host;
                const char *id = h->message_id(m);
                say(self, "%s %s %d %d", handler, id, (int)getpid(), (int)getppid());
                const char *ask = h->message_get(m, "data.ask");
                if (ask) {
                    char *copy = strdup(ask), *rest = NULL;
                    for (char *query = strtok_r(copy, ",", &rest); query; query = strtok_r(NULL, ",", &rest)) answer(self, id, m, query);
                    free(copy);
                }
                const char *only = h->message_get(m, "data.only");
                if (only && strcmp(only, NAME) != 0) return NULL;
                return h->message_get(m, "data.fault");
            }

            /* The faults every handler shows; 1 when `fault` is none of them. */
            static int misbehave(worker *self, const ph_message *m, const char *fault) {
                if (!fault) return 0;
                if (strcmp(fault, "segv") == 0) *(volatile int *)0 = 1;
                if (strcmp(fault, "abort") == 0) abort();
                if (strcmp(fault, "hang") == 0) for (;;) pause();
                if (strcmp(fault, "slow") == 0) {
                    const char *ms = self->host->message_get(m, "data.ms");
                    long delay = ms ? strtol(ms, NULL, 10) : 1000;
                    struct timespec wait = {delay / 1000, (delay % 1000) * 1000000L};
                    while (nanosleep(&wait, &wait) != 0) {}
                    return 0;
                }
                if (strcmp(fault, "leak") == 0) {
                    size_t size = 4u << 20;
                    void **block = malloc(size);
                    if (block) {
                        memset(block, 0x5a, size);
                        *block = kept;
                        kept = block;
                    }
                    return 0;
                }
                return 1;
            }

            typedef struct later { worker *self; const ph_message *m; } later;

            static void *complete_later(void *p) {
                later *answer = p;
                struct timespec wait = {0, 50 * 1000000L};
                while (nanosleep(&wait, &wait) != 0) {}
                const ph_host *h = answer->self->host;
                say(answer->self, "complete %s %d %d", h->message_id(answer->m), (int)getpid(), (int)getppid());
                h->complete(h, answer->m, PH_CONTINUE);
                free(answer);
                return NULL;
            }

            UNUSED static ph_verdict on_data(void *p, const ph_message *m) {
                worker *self = p;
                const char *fault = called(self, "on_data", m);
                if (!misbehave(self, m, fault)) return PH_CONTINUE;
                if (!attack(self, m, fault)) return PH_CONTINUE;
                if (strcmp(fault, "fail") == 0) return PH_FAILED;
                if (strcmp(fault, "pending") == 0) return PH_PENDING;
                if (strcmp(fault, "later") == 0) {
                    later *answer = malloc(sizeof *answer);
                    if (!answer) return PH_FAILED;
                    answer->self = self;
                    answer->m = m;
                    pthread_t thread;
                    if (pthread_create(&thread, NULL, complete_later, answer) != 0) {
                        free(answer);
                        self->host->log(self->host, PH_LOG_ERROR, "pthread_create failed");
                        return PH_FAILED;
                    }
                    pthread_detach(thread);
                    return PH_PENDING;
                }
                return PH_CONTINUE;
            }

            UNUSED static void on_background(void *p, const ph_message *m) { misbehave(p, m, called(p, "on_background", m)); }
            UNUSED static void on_target(void *p, const ph_message *m) { misbehave(p, m, called(p, "on_target", m)); }
            UNUSED static void on_mismatch(void *p, const ph_message *m) { misbehave(p, m, called(p, "on_mismatch", m)); }

            UNUSED static void on_token(void *p, const char *token, const char *previous) {
                say(p, "on_token %s %d %d %s", token, (int)getpid(), (int)getppid(), previous ? previous : "-");
                if (strcmp(token, "segv") == 0) *(volatile int *)0 = 1;
            }

            UNUSED static void on_action(void *p, const ph_message *m, const char *action, const char *input) {
                worker *self = p;
                say(self, "on_action %s %d %d %s %s", self->host->message_id(m), (int)getpid(), (int)getppid(), action, input ? input : "NULL");
                if (strcmp(action, "segv") == 0) *(volatile int *)0 = 1;
            }

            \#(prelude)
            static const ph_plugin plugin = {
                PH_PLUGIN_HEADER, .name = NAME, .version = "1.0.0", .description = "A plugin that misbehaves on request.",
                \#(fields.joined(separator: ", "))
            };

            PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
            """#
    }
}

/// One line of a worker plugin's log (see `PluginSource.worker`).
struct WorkerLine: CustomStringConvertible, Sendable {
    let text: String
    let fields: [String]

    init(_ text: String) {
        self.text = text
        fields = text.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
    }

    /// The first field: create, destroy, ask, complete, or the handler.
    var kind: String { fields.first ?? "" }
    /// Whether this is a handler call (`on_...`).
    var isCall: Bool { kind.hasPrefix("on_") }
    /// The message id (the new token for on_token); "" for create and destroy.
    var id: String { kind == "create" || kind == "destroy" || fields.count < 2 ? "" : fields[1] }
    /// `HANDLER ID` (as `faultyCalls` reads), or the kind alone for create and destroy.
    var call: String { id.isEmpty ? kind : "\(kind) \(id)" }

    /// The process that wrote the line (nil for `ask`).
    var pid: Int32? {
        switch kind {
        case "create", "destroy": fields.count > 1 ? Int32(fields[1]) : nil
        case "ask": nil
        default: fields.count > 2 ? Int32(fields[2]) : nil
        }
    }

    /// Its parent (nil for `ask` and `destroy`).
    var ppid: Int32? {
        switch kind {
        case "create": fields.count > 2 ? Int32(fields[2]) : nil
        case "destroy", "ask": nil
        default: fields.count > 3 ? Int32(fields[3]) : nil
        }
    }

    var description: String { text }
}

extension Scratch {
    /// Builds the worker plugin `name` (as `name.so`, so its settings file is
    /// `name.json`) and returns the `run` arguments that load it, with its
    /// `log` at `name.log` unless `settings` says otherwise.
    func worker(
        _ name: String, _ roles: Set<ProbeRole>, targets: [String] = [], settings: [String: String] = [:]
    ) throws -> [String] {
        let path = try plugin(name + ".so", PluginSource.worker(name: name, roles: roles, targets: targets))
        var all = settings
        if all["log"] == nil { all["log"] = file(name + ".log") }
        return ["--plugin", path] + all.sorted { $0.key < $1.key }.flatMap { ["--set", "\(name).\($0.key)=\($0.value)"] }
    }

    /// The worker plugin named `worker`, as above.
    func worker(_ roles: Set<ProbeRole>, targets: [String] = [], settings: [String: String] = [:]) throws -> [String] {
        try worker("worker", roles, targets: targets, settings: settings)
    }

    /// The lines of the worker plugin `name`'s log (or of the file `log`).
    func workerLines(_ name: String = "worker", log: String? = nil) -> [WorkerLine] {
        read(log ?? name + ".log").split(separator: "\n").map { WorkerLine(String($0)) }
    }

    /// Its handler calls only.
    func workerCalls(_ name: String = "worker", log: String? = nil) -> [WorkerLine] {
        workerLines(name, log: log).filter(\.isCall)
    }

    /// Its `ask` answers, as `QUERY=ANSWER` for message `id`.
    func workerAnswers(_ id: String, _ name: String = "worker", log: String? = nil) -> [String] {
        workerLines(name, log: log).filter { $0.kind == "ask" && $0.id == id }.map { $0.fields.dropFirst(2).joined(separator: " ") }
    }
}

extension Array where Element == WorkerLine {
    /// The lines cut where the writing process changes (ask lines go with
    /// the line before them): one run of lines per worker, in order.
    var byProcess: [(pid: Int32, lines: [WorkerLine])] {
        var runs: [(pid: Int32, lines: [WorkerLine])] = []
        for line in self {
            guard let pid = line.pid else {
                if !runs.isEmpty { runs[runs.count - 1].lines.append(line) }
                continue
            }
            if runs.last?.pid == pid {
                runs[runs.count - 1].lines.append(line)
            } else {
                runs.append((pid, [line]))
            }
        }
        return runs
    }
}
