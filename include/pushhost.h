/*
 * pushhost.h: the plugin ABI of pushhost, version 1.2.
 *
 * A plugin is a shared library that exports one symbol, ph_plugin_entry,
 * which returns a static descriptor (ph_plugin). The host reads the
 * descriptor, calls create() once to get the plugin's own state, calls the
 * handlers the plugin filled in while messages flow, and calls destroy() once
 * at shutdown. A plugin never links against the host: everything it may ask
 * of the host is in the ph_host function table that create() receives.
 *
 * Rules that hold for the whole ABI (docs/abi.md tells them at length):
 * - Versioning: every struct that crosses the boundary starts with its
 *   struct_size and the ABI version it was built with. The host loads a
 *   plugin when the majors are equal and the plugin's minor is not above the
 *   host's. Structs only grow, by appending fields; a reader uses a field only
 *   when struct_size covers it.
 * - Ownership: a string the host hands out is borrowed. It stays valid until
 *   the handler that received it returns, or, for a message given the verdict
 *   PH_PENDING, until host->complete() is called for it or its deadline
 *   (--data-timeout) passes, whichever comes first. Strings in the
 *   descriptor belong to the plugin and must live as long as the library.
 * - Threads: the host never calls two handlers of one plugin instance at the
 *   same time. complete(), log() and the accessors may be called from any
 *   thread. Every other call the host makes on its own dispatch thread.
 * - Growth, in two ways only. A field is appended to a struct when it
 *   extends what the struct is for (a handler of an existing role, a
 *   service of the host table, a variant of a call), marked with the minor
 *   that added it. A new ability that a plugin may or may not have (a new
 *   kind of plugin, a new host service) comes as an extension, found by a
 *   versioned string id such as "ph.interceptor/1" through get_extension(),
 *   never as a new loose symbol; a table that must change otherwise gets a
 *   new id ("/2"). A host older than a plugin's minor refuses it, so a
 *   plugin may use every field of the header it was built with; one that
 *   declares an older minor, to load in older hosts, and every reader of a
 *   table another side built (an extension's, the host's), uses a field
 *   only when PH_HAS_FIELD says that table covers it.
 *
 * The smallest plugin, a background handler (plugins/ has more):
 *
 *   #include <pushhost.h>
 *   #include <stdlib.h>
 *
 *   typedef struct hello { const ph_host *host; } hello;
 *
 *   static void *create(const ph_host *host, const ph_config *config) {
 *       (void)config;
 *       hello *self = malloc(sizeof *self);
 *       if (self) self->host = host;    // each instance keeps its own table
 *       return self;                    // NULL: create failed
 *   }
 *
 *   static void destroy(void *self) { free(self); }
 *
 *   static void on_background(void *p, const ph_message *m) {
 *       hello *self = p;
 *       const char *title = self->host->message_get(m, "notification.title");
 *       self->host->log(self->host, PH_LOG_INFO, title ? title : "(no title)");
 *   }
 *
 *   static const ph_plugin plugin = {
 *       PH_PLUGIN_HEADER,
 *       .name = "hello",
 *       .version = "1.0.0",
 *       .description = "Logs the title of each message in the background.",
 *       .create = create,
 *       .destroy = destroy,
 *       .on_background = on_background,
 *   };
 *
 *   PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
 *
 * Build it with one line:
 *   cc -std=c11 -shared -fPIC -fvisibility=hidden -I include hello.c -o hello.so
 */
#ifndef PUSHHOST_H
#define PUSHHOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The ABI version this header describes. */
#define PH_ABI_MAJOR 1
#define PH_ABI_MINOR 2

/* Marks ph_plugin_entry as exported even under -fvisibility=hidden. */
#define PH_EXPORT __attribute__((visibility("default")))

/* Nullability for Swift and clang; defined away for other compilers. */
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wnullability-extension"
#define PH_NULLABLE _Nullable
#define PH_NONNULL _Nonnull
#else
#define PH_NULLABLE
#define PH_NONNULL
#endif

/* A push message, normalized by the host. Opaque: read it through ph_host. */
typedef struct ph_message ph_message;

/* A plugin's settings (the sidecar .json and --set). Opaque: see config_get. */
typedef struct ph_config ph_config;

typedef struct ph_host ph_host;
typedef struct ph_plugin ph_plugin;

/* A data handler's verdict on one message. */
typedef enum ph_verdict {
    PH_CONTINUE = 0, /* go on to the UI stage */
    PH_SUPPRESS = 1, /* handled here; no UI stage */
    PH_FAILED = 2,   /* skip the UI stage and report a failure */
    PH_PENDING = 3   /* the verdict comes later, once, through host->complete */
} ph_verdict;

/* What a source learns once its record's report line is written (see
 * ph_intake). Added in 1.1. */
typedef enum ph_result {
    PH_DONE = 0,     /* handled, whatever its status (delivered, suppressed, undelivered, an event applied) */
    PH_RETRY = 1,    /* a plugin failed, crashed or timed out: a later try may succeed */
    PH_REJECTED = 2  /* the record is bad (not JSON, too big, unknown event ...): no try will succeed */
} ph_result;

/* Levels for host->log. */
typedef enum ph_log_level {
    PH_LOG_DEBUG = 0,
    PH_LOG_INFO = 1,
    PH_LOG_WARNING = 2,
    PH_LOG_ERROR = 3
} ph_log_level;

/* The services the host offers one plugin instance. Each instance gets its
 * own table, valid from create() until destroy() returns. */
struct ph_host {
    uint32_t struct_size; /* sizeof(ph_host) as the host was built */
    uint32_t abi_major;   /* the host's PH_ABI_MAJOR */
    uint32_t abi_minor;   /* the host's PH_ABI_MINOR */

    /* The host's own; a plugin never reads or writes it. */
    void *PH_NULLABLE host_data;

    /* [thread-safe] The message's id; never NULL. Borrowed from the message. */
    const char *PH_NONNULL (*PH_NONNULL message_id)(const ph_message *PH_NONNULL m);

    /* [thread-safe] The message's target, or NULL when it has none.
     * Borrowed from the message. */
    const char *PH_NULLABLE (*PH_NONNULL message_target)(const ph_message *PH_NONNULL m);

    /* [thread-safe] One value of the normalized message by dotted path, as
     * text: strings unescaped, numbers and booleans as their JSON text, objects
     * and arrays as compact JSON; NULL when absent or JSON null. The paths are
     * the normalized message's keys: id, target, format, priority,
     * content_available, notification.{title,subtitle,body,image,sound,badge,
     * category,...} (no notification at all for a data-only message),
     * data.KEY, topic, collapse_key, source.{kind,line,file}. Borrowed from
     * the message. */
    const char *PH_NULLABLE (*PH_NONNULL message_get)(const ph_message *PH_NONNULL m,
                                                      const char *PH_NONNULL path);

    /* [thread-safe] The whole normalized message as compact JSON, NUL-ended;
     * its length in bytes goes to *len when len is not NULL. Borrowed from the
     * message. */
    const char *PH_NONNULL (*PH_NONNULL message_json)(const ph_message *PH_NONNULL m,
                                                      size_t *PH_NULLABLE len);

    /* [thread-safe] One setting of this plugin, as text, or NULL when unset.
     * Owned by the host; valid until destroy() returns. */
    const char *PH_NULLABLE (*PH_NONNULL config_get)(const ph_config *PH_NONNULL config,
                                                     const char *PH_NONNULL key);

    /* [thread-safe] Gives the verdict on a message for which on_data returned PH_PENDING,
     * exactly once, with PH_CONTINUE, PH_SUPPRESS or PH_FAILED. A second call,
     * a call after the deadline, or a call for a message that is not pending,
     * is logged and ignored. After it returns, or once the deadline passed, m
     * and its strings are no longer valid; the host never takes such an m
     * for another message. */
    void (*PH_NONNULL complete)(const ph_host *PH_NONNULL host, const ph_message *PH_NONNULL m,
                                ph_verdict verdict);

    /* [thread-safe] Writes one line to the host's log, marked with the
     * plugin's name. text is the caller's; the host copies what it keeps. */
    void (*PH_NONNULL log)(const ph_host *PH_NONNULL host, ph_log_level level,
                           const char *PH_NONNULL text);

    /* [thread-safe] The current registration token, or NULL when none is
     * stored yet. Owned by the host; valid until destroy() returns. */
    const char *PH_NULLABLE (*PH_NONNULL current_token)(const ph_host *PH_NONNULL host);

    /* [thread-safe] A host extension by versioned id ("ph.name/1"), or NULL
     * when the host lacks it. Owned by the host; valid until destroy(). */
    const void *PH_NULLABLE (*PH_NONNULL get_extension)(const ph_host *PH_NONNULL host,
                                                        const char *PH_NONNULL id);

    /* Added in 1.2; read it only when host->struct_size covers it. */

    /* [dispatch thread] Called from on_background, on_target or on_mismatch
     * for m: this plugin could not do its part (a notification the desktop
     * did not show). The message's status becomes failed, and reason (copied)
     * goes into its report line. */
    void (*PH_NONNULL fail)(const ph_host *PH_NONNULL host, const ph_message *PH_NONNULL m,
                            const char *PH_NONNULL reason);

    /* Added in 1.2, after fail; read it only when
     * PH_HAS_FIELD(ph_host, host, message_get_many). */

    /* [thread-safe] Several values of the message in one call: values[i]
     * gets what message_get(m, paths[i]) gives (NULL when absent), for i
     * below count. Returns how many are not NULL. One call costs about what
     * one message_get costs, so a plugin that reads several fields of each
     * message reads them at once:
     *   static const char *const paths[] = {"target", "data.title", "priority"};
     *   const char *values[3];
     *   host->message_get_many(m, paths, 3, values);
     * Borrowed from the message, as message_get's. A count above
     * SSIZE_MAX names no path: nothing is written and 0 comes back. */
    size_t (*PH_NONNULL message_get_many)(const ph_message *PH_NONNULL m,
                                          const char *PH_NONNULL const *PH_NONNULL paths, size_t count,
                                          const char *PH_NULLABLE *PH_NONNULL values);
};

/* The plugin's descriptor: static, readable before any instance exists.
 * Every function pointer may be NULL; the roles a plugin plays are the
 * handlers it fills in: data (on_data), background (on_background),
 * foreground (on_target and/or on_mismatch, with targets), token (on_token),
 * action (on_action, 1.1). */
struct ph_plugin {
    uint32_t struct_size; /* sizeof(ph_plugin) as the plugin was built */
    uint32_t abi_major;   /* the plugin's PH_ABI_MAJOR */
    uint32_t abi_minor;   /* the plugin's PH_ABI_MINOR */

    /* Unique among loaded plugins, made of [a-z0-9_-]. */
    const char *PH_NULLABLE name;
    const char *PH_NULLABLE version;
    const char *PH_NULLABLE description;

    /* Screen plugins: the targets this screen matches, NULL-terminated.
     * No two loaded plugins may claim the same target. */
    const char *PH_NULLABLE const *PH_NULLABLE targets;

    /* [dispatch thread] Makes the plugin's state; NULL means it failed (say
     * why through host->log first), and then destroy() is not called. host and
     * config stay valid until destroy() returns. A plugin without create gets
     * NULL as self. */
    void *PH_NULLABLE (*PH_NULLABLE create)(const ph_host *PH_NONNULL host,
                                            const ph_config *PH_NONNULL config);

    /* [dispatch thread] Called once at shutdown, after every other call. */
    void (*PH_NULLABLE destroy)(void *PH_NULLABLE self);

    /* [dispatch thread] The data stage: runs before any UI handler sees m. */
    ph_verdict (*PH_NULLABLE on_data)(void *PH_NULLABLE self, const ph_message *PH_NONNULL m);

    /* [dispatch thread] The app is in the background, or in the foreground
     * with no screen visible. */
    void (*PH_NULLABLE on_background)(void *PH_NULLABLE self, const ph_message *PH_NONNULL m);

    /* [dispatch thread] This screen is the first visible one whose targets
     * contain the message's target. */
    void (*PH_NULLABLE on_target)(void *PH_NULLABLE self, const ph_message *PH_NONNULL m);

    /* [dispatch thread] This screen is on top and no visible screen matches
     * the message's target. */
    void (*PH_NULLABLE on_mismatch)(void *PH_NULLABLE self, const ph_message *PH_NONNULL m);

    /* [dispatch thread] A new registration token; previous is NULL for the
     * first one. Both borrowed until the call returns. */
    void (*PH_NULLABLE on_token)(void *PH_NULLABLE self, const char *PH_NONNULL token,
                                 const char *PH_NULLABLE previous);

    /* [thread-safe] A plugin extension by versioned id, or NULL. Owned by the
     * plugin; valid until destroy() returns. */
    const void *PH_NULLABLE (*PH_NULLABLE get_extension)(void *PH_NULLABLE self,
                                                         const char *PH_NONNULL id);

    /* Added in 1.1; a 1.0 plugin's descriptor ends before it and reads as NULL. */

    /* [dispatch thread] A person acted on a notification of message m. action is
     * "tap" for the notification itself, else the id of one of m's
     * notification.actions; input is the text of a reply action, or NULL. All
     * three are borrowed until the call returns. */
    void (*PH_NULLABLE on_action)(void *PH_NULLABLE self, const ph_message *PH_NONNULL m,
                                  const char *PH_NONNULL action, const char *PH_NULLABLE input);

    /* Added in 1.2; an older plugin's descriptor ends before it and reads as NULL. */

    /* The extensions this plugin offers (PH_EXT_INTERCEPTOR, PH_EXT_SOURCE)
     * and the host extensions it uses (PH_EXT_CHAIN, PH_EXT_INTAKE,
     * PH_EXT_STATE), NULL-terminated, at most PH_MAX_EXTENSIONS: the host
     * knows them without an instance (pushhost plugins lists them), and
     * refuses a plugin whose get_extension offers a table it does not
     * declare (one it declares may still be declined, by its settings).
     * NULL: not declared, and known only once the plugin runs. Static, like
     * the descriptor. */
    const char *PH_NULLABLE const *PH_NULLABLE extensions;
};

/* The most ids ph_plugin.extensions may list (1.2). */
#define PH_MAX_EXTENSIONS 16

/* The first fields of every ph_plugin, for a designated initializer:
 *   static const ph_plugin plugin = { PH_PLUGIN_HEADER, .name = "x", ... }; */
#define PH_PLUGIN_HEADER                                                                           \
    .struct_size = sizeof(ph_plugin), .abi_major = PH_ABI_MAJOR, .abi_minor = PH_ABI_MINOR

/* ---- Extensions (1.1) ------------------------------------------------------
 * Optional abilities, found by id. A plugin offers one by returning its table
 * from its own get_extension(self, id); the host offers one through
 * host->get_extension(host, id). Every table starts with struct_size, and a
 * reader uses a field only when struct_size covers it. Since 1.2 a plugin
 * also lists the ids it offers and uses in its descriptor:
 *   static const char *const extensions[] = {PH_EXT_INTERCEPTOR, PH_EXT_CHAIN, NULL};
 *   static const ph_plugin plugin = { PH_PLUGIN_HEADER, ..., .extensions = extensions }; */

/* Plugin extensions (the plugin's get_extension returns them): */
#define PH_EXT_INTERCEPTOR "ph.interceptor/1"
#define PH_EXT_SOURCE "ph.source/1"
/* Host extensions (host->get_extension returns them): */
#define PH_EXT_CHAIN "ph.chain/1"
#define PH_EXT_INTAKE "ph.intake/1"
#define PH_EXT_STATE "ph.state/1"
#define PH_EXT_METRICS "ph.metrics/1"
#define PH_EXT_BUS "ph.bus/1"

/* Opaque: one message on its way through the interceptors. Valid from
 * intercept() until the call of proceed or stop that ends it. */
typedef struct ph_chain ph_chain;

/* PH_EXT_INTERCEPTOR: a plugin that wraps each push message's way through
 * the host. Interceptors run in load order, before the data stage. */
typedef struct ph_interceptor {
    uint32_t struct_size; /* sizeof(ph_interceptor) as the plugin was built */
    /* [dispatch thread] Sees each push message before the data stage. Must end,
     * now or later and from any thread, with exactly one call of the chain's
     * proceed or stop. */
    void (*PH_NONNULL intercept)(void *PH_NULLABLE self, ph_chain *PH_NONNULL chain);
    /* [dispatch thread] May be NULL. The report line of a message this
     * interceptor proceeded, once it is written (the output side of the chain).
     * m and report_line are borrowed until the call returns. */
    void (*PH_NULLABLE on_outcome)(void *PH_NULLABLE self, const ph_message *PH_NONNULL m,
                                   const char *PH_NONNULL report_line);
} ph_interceptor;

/* PH_EXT_CHAIN: what an interceptor may do with its chain. Owned by the host;
 * valid until destroy() returns. */
typedef struct ph_chain_api {
    uint32_t struct_size; /* sizeof(ph_chain_api) as the host was built */
    /* [thread-safe] The message as it stands, earlier interceptors' edits
     * applied. Borrowed until the chain ends. */
    const ph_message *PH_NONNULL (*PH_NONNULL message)(ph_chain *PH_NONNULL chain);
    /* [thread-safe] Sets the normalized field at a dotted path to a JSON value
     * (text, copied), or removes it when json is NULL. 0, or -1 with the
     * message unchanged. */
    int (*PH_NONNULL set)(ph_chain *PH_NONNULL chain, const char *PH_NONNULL path,
                          const char *PH_NULLABLE json);
    /* [thread-safe] Passes the message on: to the next interceptor, else the
     * data stage. Ends the chain for this interceptor. */
    void (*PH_NONNULL proceed)(ph_chain *PH_NONNULL chain);
    /* [thread-safe] Ends the message here, PH_SUPPRESS or PH_FAILED, with a
     * reason for the report (copied; may be NULL). */
    void (*PH_NONNULL stop)(ph_chain *PH_NONNULL chain, ph_verdict verdict,
                            const char *PH_NULLABLE reason);
} ph_chain_api;

/* PH_EXT_SOURCE: a plugin that produces records (a transport: a socket, a
 * bus, a broker), which it hands to the host through PH_EXT_INTAKE. A host
 * with a source plugin runs until SIGINT or SIGTERM. */
typedef struct ph_source {
    uint32_t struct_size; /* sizeof(ph_source) as the plugin was built */
    /* [dispatch thread] Start producing records through ph.intake/1, from the
     * plugin's own threads. 0, or -1 (logged; the host stops with exit 1).
     * Called once, after every plugin was created. */
    int (*PH_NONNULL start)(void *PH_NULLABLE self);
    /* [dispatch thread] Stop producing, promptly: called at shutdown before the
     * host drains what is under way. From then on submit returns -1. */
    void (*PH_NONNULL stop)(void *PH_NULLABLE self);
} ph_source;

/* Flags of ph_intake.submit_record (1.2). */
/* The record is a host event this plugin made itself (a tap it saw on the
 * desktop bus, an endpoint its distributor gave it). Never set it for bytes
 * received from outside (a push, a broker record, a line of a stream): a
 * record without it that holds a host event (the top-level key "pushhost")
 * is rejected, and a record with it that holds no host event is too. */
#define PH_RECORD_HOST_EVENT 0x1u
/* Do not wait while the host is full: submit_record returns 1 instead. */
#define PH_RECORD_NO_WAIT 0x2u

/* Learns a submitted record's result once its report line is written, on the
 * dispatch thread; report_line is borrowed until it returns. A record the
 * host stopped before its data stage began, or before it ended, has no report
 * line: PH_RETRY with report_line "", at once, so the source can hand it to
 * someone else. */
typedef void (*ph_record_done)(void *PH_NULLABLE ctx, ph_result result,
                               const char *PH_NONNULL report_line);

/* PH_EXT_INTAKE: how any plugin hands the host a record, as standard input
 * and the spool do. Owned by the host; valid until destroy() returns.
 *
 * The host is full while it holds --max-pending records: those under way
 * (held by an interceptor, waiting for a data verdict or for the records
 * before them) and those submitted and not yet taken. A source submits no
 * more than that, so the records the host cannot start stay with the
 * transport, where another host can take them. */
typedef struct ph_intake {
    uint32_t struct_size; /* sizeof(ph_intake) as the host was built */
    /* [thread-safe] Hands the host one message (one JSON object, copied):
     * submit_record with flags 0. A record that holds a host event is
     * rejected. done, if not NULL, is called once (see ph_record_done). 0, or
     * -1 when the host is stopping (done is then never called). Waits while
     * the host is full. Records keep the order of submit. */
    int (*PH_NONNULL submit)(const ph_host *PH_NONNULL host, const char *PH_NONNULL json, size_t len,
                             ph_record_done PH_NULLABLE done, void *PH_NULLABLE ctx);

    /* Added in 1.2; read it only when struct_size covers it. */

    /* [thread-safe] submit, with flags (PH_RECORD_*): 0 taken; 1 the host is
     * full (only with PH_RECORD_NO_WAIT); -1 the host is stopping. done is
     * called only for a record taken. */
    int (*PH_NONNULL submit_record)(const ph_host *PH_NONNULL host, const char *PH_NONNULL json,
                                    size_t len, uint32_t flags, ph_record_done PH_NULLABLE done,
                                    void *PH_NULLABLE ctx);
    /* [thread-safe] submit_record, for a record that first reached its
     * transport at arrived_ms (Unix time in milliseconds; 0, or a time still
     * to come: now), from which a message's time to live counts: a broker
     * record that waited in its stream is as old as the stream says. */
    int (*PH_NONNULL submit_record_at)(const ph_host *PH_NONNULL host, const char *PH_NONNULL json,
                                       size_t len, uint32_t flags, int64_t arrived_ms,
                                       ph_record_done PH_NULLABLE done, void *PH_NULLABLE ctx);
} ph_intake;

/* Whether a table that starts with struct_size (ph_host, ph_intake, ...) as
 * its maker built it covers field: a reader uses a field only then.
 *   if (PH_HAS_FIELD(ph_intake, intake, submit_record)) ... */
#define PH_HAS_FIELD(type, table, field)                                                           \
    ((table)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* PH_EXT_STATE: a folder of the plugin's own inside the host's state
 * directory, for what it keeps across restarts (keys, cursors, ids). Owned
 * by the host; valid until destroy() returns. */
typedef struct ph_state {
    uint32_t struct_size; /* sizeof(ph_state) as the host was built */
    /* [thread-safe] STATE/plugins/NAME (NAME: the plugin's name), made with
     * mode 0700 on the first call; NULL, logged, when it cannot be made.
     * Owned by the host; valid until destroy() returns. */
    const char *PH_NULLABLE (*PH_NONNULL directory)(const ph_host *PH_NONNULL host);
} ph_state;

/* PH_EXT_BUS: a connection to a D-Bus bus, for a plugin that talks to
 * one (notifications, a distributor). Behind a worker's walls a plugin
 * makes no Unix socket of its own: the host connects to the bus its
 * settings grant ("sandbox": {"bus": "session"}) and hands the socket over,
 * so it reaches that bus and no other socket. In the host, and in a worker
 * without walls, it connects to any bus. Owned by the host; valid until
 * destroy() returns. */
typedef struct ph_bus {
    uint32_t struct_size; /* sizeof(ph_bus) as the host was built */
    /* [thread-safe] A socket connected to `bus` ("session" or "system", as
     * the host's DBUS_SESSION_BUS_ADDRESS, DBUS_SYSTEM_BUS_ADDRESS or their
     * defaults name it), which the caller owns and closes; -1 with errno
     * set when it cannot be had (EACCES: not granted). Call it again after
     * the bus restarted. With sd-bus: sd_bus_new, sd_bus_set_fd(bus, fd,
     * fd), sd_bus_set_bus_client(bus, 1), sd_bus_start. */
    int (*PH_NONNULL connect)(const ph_host *PH_NONNULL host, const char *PH_NONNULL bus);
} ph_bus;

/* PH_EXT_METRICS: metrics of the plugin's own, served with the host's at
 * /metrics under --metrics, isolated plugins' too (docs/plugins.md, metrics).
 * Owned by the host; valid until destroy() returns. Without --metrics the
 * same calls work and nobody reads the values. */
typedef enum ph_metric_kind {
    PH_METRIC_COUNTER = 0,  /* only goes up (add); its name ends in _total */
    PH_METRIC_GAUGE = 1,    /* goes up and down (set, add) */
    PH_METRIC_HISTOGRAM = 2 /* observations counted in buckets (observe) */
} ph_metric_kind;

/* Opaque: one series of a plugin's metric (one set of label values). Valid
 * until destroy() returns. */
typedef struct ph_metric ph_metric;

typedef struct ph_metrics {
    uint32_t struct_size; /* sizeof(ph_metrics) as the host was built */
    /* [dispatch thread, in create() only] One series of the metric
     * PLUGIN_name, PLUGIN being the plugin's name with '-' as '_'. name is
     * lowercase snake case ([a-z_][a-z0-9_]*, 100 bytes at most), a
     * counter's ending in _total and no other's; help is one line (300 bytes
     * at most); labels is NULL or a NULL-terminated list of names and values,
     * "name", "value", ..., 8 pairs at most, names as metric names but not
     * "le" nor starting with "__", values 128 bytes of UTF-8 at most; buckets
     * (a histogram's, ascending, 64 at most) are upper bounds, NULL for the
     * host's own (1e-6 to 30, for seconds). The same name again takes the same
     * kind, help, label names and buckets, and another set of label values
     * makes another series (1000 a plugin at most). NULL, with the reason
     * logged, when any rule is broken. */
    ph_metric *PH_NULLABLE (*PH_NONNULL metric)(const ph_host *PH_NONNULL host, ph_metric_kind kind,
                                                 const char *PH_NONNULL name, const char *PH_NONNULL help,
                                                 const char *PH_NULLABLE const *PH_NULLABLE labels,
                                                 const double *PH_NULLABLE buckets, size_t bucket_count);
    /* [thread-safe] A counter: adds value, which must be 0 or more. A gauge:
     * adds value. Anything else (a histogram, NaN, a counter's negative) is
     * ignored, logged once a series. */
    void (*PH_NONNULL add)(ph_metric *PH_NONNULL metric, double value);
    /* [thread-safe] A gauge: sets it to value. */
    void (*PH_NONNULL set)(ph_metric *PH_NONNULL metric, double value);
    /* [thread-safe] A histogram: counts value in its bucket and its sum. */
    void (*PH_NONNULL observe)(ph_metric *PH_NONNULL metric, double value);
} ph_metrics;

/* The one symbol a plugin exports. Returns the descriptor, or NULL to refuse
 * loading. [dispatch thread] Called once, before anything else. */
PH_EXPORT const ph_plugin *PH_NULLABLE ph_plugin_entry(void);

#ifdef __cplusplus
}
#endif

#if defined(__clang__)
#pragma clang diagnostic pop
#endif

#endif /* PUSHHOST_H */
