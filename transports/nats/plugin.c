/*
 * plugin.c: the nats plugin's descriptor, lifetime and source role.
 *
 * start connects and sets up the stream and consumers; a server that
 * disagrees with the settings refuses the start (the host exits 1) with
 * the reason. When no server answers yet, it starts anyway and sets up
 * once one does. Then one thread per consumer pulls records (consume.c),
 * one settles them (settle.c), and one dead-letters the records stranded on
 * their last delivery, from the server's MAX_DELIVERIES advisories (sweep.c).
 *
 * stop ends the pulling within a fetch's wait (250 ms) and gives back
 * what was fetched and not submitted; the records the host still drains
 * are settled from their done (a record the host hands back unbegun, or
 * stopped waiting for, is given back at once), until destroy, which sends
 * the last Acks and closes the connection.
 */
#include "jetstream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The consumers of the settings: durable, or durable-0 ... durable-(N-1)
 * with {partition} in the filter replaced by the partition. */
static int make_consumers(jetstream_plugin *self) {
    jetstream_settings *s = &self->settings;
    int count = s->partitions ? s->partitions : 1;
    self->consumers = calloc((size_t)count, sizeof *self->consumers);
    if (!self->consumers) return -1;
    self->consumer_count = count;
    for (int i = 0; i < count; i++) {
        jetstream_consumer *c = &self->consumers[i];
        c->plugin = self;
        if (!s->partitions) {
            c->name = strdup(s->durable);
            c->filter = s->filter ? strdup(s->filter) : NULL;
            if (!c->name || (s->filter && !c->filter)) return -1;
            continue;
        }
        c->name = transport_format("%s-%d", s->durable, i);
        const char *mark = strstr(s->filter, "{partition}");
        c->filter = transport_format("%.*s%d%s", (int)(mark - s->filter), s->filter, i, mark + strlen("{partition}"));
        if (!c->name || !c->filter) return -1;
    }
    return 0;
}

/* Its own metrics (ph.metrics/1), which the host takes in create only:
 * none when the host lacks it, and then nothing is counted. */
static void register_metrics(jetstream_plugin *self) {
    jetstream_metrics *m = &self->metrics;
    const transport_metric_spec specs[] = {
        {&m->fetched, PH_METRIC_COUNTER, "fetched_total",
         "Records fetched from the JetStream consumers."},
        {&m->redelivered, PH_METRIC_COUNTER, "redelivered_total",
         "Records fetched whose delivery count was above 1 (delivered before)."},
        {&m->acked, PH_METRIC_COUNTER, "acked_total",
         "Records acknowledged (Ack) once the host was done with them."},
        {&m->naked, PH_METRIC_COUNTER, "naked_total",
         "Records given back to the server (Nak) for another delivery, now or after the back-off."},
        {&m->terminated, PH_METRIC_COUNTER, "terminated_total",
         "Records the server was told never to deliver again (Term): rejected, or failed on the last delivery."},
        {&m->dead_lettered, PH_METRIC_COUNTER, "dead_lettered_total",
         "Records copied to the dead-letter subject."},
        {&m->lapsed, PH_METRIC_COUNTER, "lapsed_total",
         "Records not settled here: held past ack_wait while the server did not answer, so it delivers them again."},
        {&m->connected, PH_METRIC_GAUGE, "connected",
         "1 while connected to a NATS server, else 0."},
    };
    m->table = transport_metrics_declare(self->host, specs, sizeof specs / sizeof *specs);
}

static void jetstream_destroy(void *p);

static void *jetstream_create(const ph_host *host, const ph_config *config) {
    const ph_intake *intake = host->get_extension(host, PH_EXT_INTAKE);
    if (!intake || !PH_HAS_FIELD(ph_intake, intake, submit_record)) {
        host->log(host, PH_LOG_ERROR, "the host lacks " PH_EXT_INTAKE ", which this plugin needs");
        return NULL;
    }
    jetstream_plugin *self = calloc(1, sizeof *self);
    if (!self) {
        host->log(host, PH_LOG_ERROR, "out of memory");
        return NULL;
    }
    self->host = host;
    self->intake = intake;
    self->host_limit = 1;
    pthread_mutex_init(&self->lock, NULL);
    pthread_cond_init(&self->changed, NULL);
    if (jetstream_settings_read(host, config, &self->settings) < 0) {
        jetstream_destroy(self);
        return NULL;
    }
    if (make_consumers(self) < 0) {
        host->log(host, PH_LOG_ERROR, "out of memory");
        jetstream_destroy(self);
        return NULL;
    }
    register_metrics(self);
    return self;
}

static int start_thread(jetstream_plugin *self, pthread_t *thread, void *(*main)(void *), void *argument) {
    int failed = pthread_create(thread, NULL, main, argument);
    if (failed) transport_log(self->host, PH_LOG_ERROR, "cannot start a thread: %s", strerror(failed));
    return failed ? -1 : 0;
}

static void jetstream_stop(void *p);

static int jetstream_start(void *p) {
    jetstream_plugin *self = p;
    if (jetstream_connect(self) < 0) return -1;
    if (atomic_load(&self->connected)) {
        char *problem = NULL;
        if (jetstream_setup(self, &problem) < 0) {
            transport_log(self->host, PH_LOG_ERROR, "%s", problem ? problem : "out of memory");
            free(problem);
            return -1;
        }
        self->ready = true;
        transport_log(self->host, PH_LOG_INFO, "reading the stream %s", self->settings.stream);
    }
    atomic_store(&self->submitting, true);
    if (start_thread(self, &self->settler, jetstream_settle_main, self) < 0) return -1;
    self->settling = true;
    if (start_thread(self, &self->sweeper, jetstream_sweep_main, self) < 0) {
        jetstream_stop(self);
        return -1;
    }
    self->sweeping = true;
    for (int i = 0; i < self->consumer_count; i++) {
        jetstream_consumer *c = &self->consumers[i];
        if (start_thread(self, &c->thread, jetstream_consume_main, c) < 0) {
            jetstream_stop(self);
            return -1;
        }
        c->thread_running = true;
    }
    return 0;
}

static void jetstream_stop(void *p) {
    jetstream_plugin *self = p;
    pthread_mutex_lock(&self->lock);
    atomic_store(&self->submitting, false);
    pthread_cond_broadcast(&self->changed);
    pthread_mutex_unlock(&self->lock);
    for (int i = 0; i < self->consumer_count; i++)
        if (self->consumers[i].thread_running) {
            pthread_join(self->consumers[i].thread, NULL);
            self->consumers[i].thread_running = false;
        }
    if (self->sweeping) {
        pthread_join(self->sweeper, NULL);
        self->sweeping = false;
    }
}

static void jetstream_destroy(void *p) {
    jetstream_plugin *self = p;
    if (!self) return;
    jetstream_stop(self);
    if (self->settling) {
        pthread_mutex_lock(&self->lock);
        self->ending = true;
        pthread_cond_broadcast(&self->changed);
        pthread_mutex_unlock(&self->lock);
        pthread_join(self->settler, NULL);
    }
    for (int i = 0; i < self->consumer_count; i++) {
        jetstream_consumer *c = &self->consumers[i];
        natsSubscription_Destroy(c->pull);
        free(c->name);
        free(c->filter);
    }
    jetstream_sweep_free(self);
    jetstream_disconnect(self);
    free(self->consumers);
    free(self->said);
    jetstream_settings_free(&self->settings);
    pthread_cond_destroy(&self->changed);
    pthread_mutex_destroy(&self->lock);
    free(self);
}

static const ph_source source = {
    .struct_size = sizeof(ph_source),
    .start = jetstream_start,
    .stop = jetstream_stop,
};

static const void *jetstream_get_extension(void *self, const char *id) {
    (void)self;
    return strcmp(id, PH_EXT_SOURCE) == 0 ? &source : NULL;
}

/* What it offers and uses of the extensions, declared (ABI 1.2). */
static const char *const extensions[] = {PH_EXT_SOURCE, PH_EXT_INTAKE, PH_EXT_METRICS, NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "nats",
    .version = "1.0.0",
    .description = "Records from a NATS JetStream stream shared by many hosts: durable pull consumers, an Ack only once "
                   "done, retries with back-off, a dead-letter subject.",
    .create = jetstream_create,
    .destroy = jetstream_destroy,
    .get_extension = jetstream_get_extension,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
