/* A background plugin that counts what it sees through ph.metrics/1, and
 * tries what the rules refuse, for the tests of plugins' own metrics. A
 * message whose data.crash is "yes" crashes it (SIGSEGV) before it counts. */
#include <pushhost.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct counting {
    const ph_host *host;
    const ph_metrics *metrics;
    ph_metric *seen;
    ph_metric *events;
    ph_metric *length;
    ph_metric *bytes;
    int misused;
};

static void *create(const ph_host *host, const ph_config *config) {
    (void)config;
    struct counting *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->host = host;
    self->metrics = host->get_extension(host, PH_EXT_METRICS);
    if (!self->metrics) return self;
    const ph_metrics *m = self->metrics;
    const char *message[] = {"kind", "message", NULL};
    const char *event[] = {"kind", "event \"quoted\"\\", NULL};
    static const double buckets[] = {1, 10, 100};
    self->seen = m->metric(host, PH_METRIC_COUNTER, "seen_total", "Messages seen, by kind.", message, NULL, 0);
    self->events = m->metric(host, PH_METRIC_COUNTER, "seen_total", "Messages seen, by kind.", event, NULL, 0);
    self->length = m->metric(host, PH_METRIC_GAUGE, "last_title_bytes", "The last title's length in bytes.", NULL, NULL, 0);
    self->bytes = m->metric(host, PH_METRIC_HISTOGRAM, "title_bytes", "Titles' lengths in bytes.", NULL, buckets, 3);
    /* The same series again: the same handle. */
    if (m->metric(host, PH_METRIC_COUNTER, "seen_total", "Messages seen, by kind.", message, NULL, 0) != self->seen) return NULL;
    /* What the rules refuse, each logged. */
    const char *nine[] = {"a", "1", "b", "1", "c", "1", "d", "1", "e", "1", "f", "1", "g", "1", "h", "1", "i", "1", NULL};
    const char *le[] = {"le", "1", NULL};
    static const double unordered[] = {10, 1};
    if (m->metric(host, PH_METRIC_COUNTER, "Bad-Name_total", "x", NULL, NULL, 0)) return NULL;
    if (m->metric(host, PH_METRIC_COUNTER, "seen", "x", NULL, NULL, 0)) return NULL;
    if (m->metric(host, PH_METRIC_GAUGE, "level_total", "x", NULL, NULL, 0)) return NULL;
    if (m->metric(host, PH_METRIC_GAUGE, "many", "x", nine, NULL, 0)) return NULL;
    if (m->metric(host, PH_METRIC_HISTOGRAM, "sizes", "x", le, NULL, 0)) return NULL;
    if (m->metric(host, PH_METRIC_HISTOGRAM, "sizes", "x", NULL, unordered, 2)) return NULL;
    if (m->metric(host, PH_METRIC_HISTOGRAM, "last_title_bytes", "The last title's length in bytes.", NULL, NULL, 0)) return NULL;
    if (m->metric(host, PH_METRIC_COUNTER, "seen_total", "Other help.", message, NULL, 0)) return NULL;
    if (m->metric(host, PH_METRIC_GAUGE, "two_lines", "one\nand two", NULL, NULL, 0)) return NULL;
    if (m->metric(host, (ph_metric_kind)7, "odd", "x", NULL, NULL, 0)) return NULL;
    return self;
}

static void destroy(void *self) { free(self); }

static void on_background(void *state, const ph_message *message) {
    struct counting *self = state;
    const char *crash = self->host->message_get(message, "data.crash");
    if (crash && strcmp(crash, "yes") == 0) raise(SIGSEGV);
    if (!self->metrics || !self->seen) return;
    const char *title = self->host->message_get(message, "data.title");
    double length = title ? (double)strlen(title) : 0;
    self->metrics->add(self->seen, 1);
    self->metrics->set(self->length, length);
    self->metrics->observe(self->bytes, length);
    if (!self->misused) {
        self->misused = 1;
        /* Each ignored and logged once: a counter going down, a counter set, NaN. */
        self->metrics->add(self->seen, -1);
        self->metrics->set(self->seen, 5);
        self->metrics->observe(self->bytes, 0.0 / 0.0);
        /* Too late to declare. */
        self->metrics->metric(self->host, PH_METRIC_GAUGE, "late", "Declared after create.", NULL, NULL, 0);
    }
}

static const char *const extensions[] = {PH_EXT_METRICS, NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "counting-bg",
    .version = "1.0.0",
    .description = "Counts what it sees through ph.metrics/1.",
    .create = create,
    .destroy = destroy,
    .on_background = on_background,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
