/*
 * sweep.c: [one thread] records stranded on their last delivery: the
 * record's instance died (or hung) on delivery max_deliver, so it has no
 * done, and the server delivers it no more. They go to the dead-letter
 * subject as a record that failed its last delivery does (settle.c).
 *
 * What nats-server 2.9.10 does with such a record of a pull consumer (found
 * with the real server, Tests/Fixtures/nats/jetstream.c's fetch and floor):
 *
 *  - At ack_wait's end the record only waits to be delivered again. The
 *    MAX_DELIVERIES advisory ($JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.
 *    STREAM.CONSUMER, core NATS) is sent when the server next tries to
 *    deliver: at once when a pull request waits, else at the next pull
 *    request, from whichever client. Until then the consumer's info counts
 *    it in num_ack_pending, as a record in flight.
 *  - With the advisory it leaves num_ack_pending; the ack floor stays below
 *    it until the next Ack, and then jumps past it. The record stays in the
 *    stream, with either retention: a work queue keeps it below the floor,
 *    where acked records are gone; limits keep every record, so there an
 *    acked one and a stranded one look the same.
 *  - After the server is killed and started again, the consumer's state
 *    may come back older (the record pending again: a second advisory for
 *    it), and a work queue may hold again a record acked just before (its
 *    removal was not on disk yet), below the floor.
 *  - No API tells a consumer's state of one record (2.9 has counts and
 *    floors only).
 *
 * So the server's state does not tell a stranded record from an acked one
 * (limits), nor from one in flight (before the advisory), nor reliably from
 * an acked one (a work queue after a crash). The advisory does name it, but
 * only once and to whoever listens then: a pull by a client that is not an
 * instance, an instance killed between the advisory and the copy, or one
 * that was stopping, lost it for good.
 *
 * What this file does instead: a stream STREAM_DURABLE_ADVISORIES holds the
 * MAX_DELIVERIES advisories of the consumers (one subject each), kept by
 * the server whoever listens, and a durable pull consumer DURABLE on it,
 * shared by the instances, hands each advisory to one instance. That
 * instance copies the record from the stream to the dead-letter subject
 * (removing it from a work queue), and acks the advisory only then; one
 * that dies before has it delivered to another after ack_wait (the records'
 * ack_wait). With create=true the stream (a work queue, file storage) and
 * the consumer are made; without, they must be there: a stream holding each
 * subject, a pull consumer with explicit Acks.
 *
 * The advisory subject is open to any client allowed to publish on it, so
 * an advisory is believed only when what the server says of its record
 * agrees (advisory.c); one that is not is dropped (Term) and its record
 * left alone.
 *
 * The thread reads the consumer from the setup on, as the consumer threads
 * do the records, so it sweeps at start, within a fetch's wait of a new
 * advisory, and at once after a reconnect (connection.c wakes it). A copy
 * made twice (an advisory sent again after a server crash, or delivered
 * again) is stored once (Nats-Msg-Id, within the dead-letter stream's
 * duplicate window), and a work queue no longer has the record then.
 */
#include "jetstream.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long one fetch waits for an advisory: also how long stop waits at most. */
#define SWEEP_WAIT_MS 250
#define SWEEP_BATCH 16

static const char advisory_prefix[] = "$JS.EVENT.ADVISORY.CONSUMER.MAX_DELIVERIES.";

/* The advisory subject of the consumer c (free it), or NULL. */
static char *advisory_subject(jetstream_plugin *self, const jetstream_consumer *c) {
    return transport_format("%s%s.%s", advisory_prefix, self->settings.stream, c->name);
}

/* Whether the subject filter `pattern` (with * and >) covers `subject`. */
static bool covers(const char *pattern, const char *subject) {
    for (;;) {
        const char *pe = strchr(pattern, '.'), *se = strchr(subject, '.');
        size_t pl = pe ? (size_t)(pe - pattern) : strlen(pattern), sl = se ? (size_t)(se - subject) : strlen(subject);
        if (pl == 1 && *pattern == '>') return true;
        if (!(pl == 1 && *pattern == '*') && (pl != sl || strncmp(pattern, subject, pl) != 0)) return false;
        if (!pe || !se) return !pe && !se;
        pattern = pe + 1;
        subject = se + 1;
    }
}

static char *failure(const char *what, natsStatus status, jsErrCode code) {
    return transport_format("%s: %s (JetStream error %d)", what, jetstream_error_text(status), (int)code);
}

/* The advisory stream's info: found, or created holding `subjects` (with
 * create=true). NULL, with *problem set, when it is missing or the server fails. */
static jsStreamInfo *find_stream(jetstream_plugin *self, char **subjects, char **problem) {
    jetstream_settings *s = &self->settings;
    const char *name = self->advisory_stream;
    jsStreamInfo *info = NULL;
    jsErrCode code = 0;
    natsStatus status = js_GetStreamInfo(&info, self->js, name, NULL, &code);
    if (status == NATS_OK) return info;
    if (status != NATS_NOT_FOUND && code != JSStreamNotFoundErr) {
        *problem = failure("cannot read the stream of the MAX_DELIVERIES advisories", status, code);
        return NULL;
    }
    if (!s->create) {
        *problem = transport_format("the server has no stream %s for the MAX_DELIVERIES advisories of %s (subjects %s%s): "
                                    "create it, or set create=true",
                                    name, s->durable, subjects[0], self->consumer_count > 1 ? " ..." : "");
        return NULL;
    }
    jsStreamConfig config;
    jsStreamConfig_Init(&config);
    config.Name = name;
    config.Subjects = (const char **)subjects;
    config.SubjectsLen = self->consumer_count;
    config.Retention = js_WorkQueuePolicy;
    config.Storage = js_FileStorage;
    config.Replicas = jetstream_replicas(s);
    code = 0;
    status = js_AddStream(&info, self->js, &config, NULL, &code);
    if (status == NATS_OK)
        transport_log(self->host, PH_LOG_INFO, "created the stream %s for the MAX_DELIVERIES advisories of %s", name, s->durable);
    else if (code == JSStreamNameExistErr) /* another instance made it meanwhile */
        status = js_GetStreamInfo(&info, self->js, name, NULL, &code);
    if (status != NATS_OK) *problem = failure("cannot create the stream for the MAX_DELIVERIES advisories", status, code);
    return status == NATS_OK ? info : NULL;
}

/* The advisory stream: found or created, and holding each consumer's subject. */
static char *check_stream(jetstream_plugin *self) {
    char **subjects = calloc((size_t)self->consumer_count, sizeof *subjects);
    bool made = subjects != NULL;
    for (int i = 0; made && i < self->consumer_count; i++) made = (subjects[i] = advisory_subject(self, &self->consumers[i])) != NULL;
    char *problem = made ? NULL : transport_format("out of memory");
    jsStreamInfo *info = made ? find_stream(self, subjects, &problem) : NULL;
    for (int i = 0; info && !problem && i < self->consumer_count; i++) {
        bool held = false;
        for (int k = 0; k < info->Config->SubjectsLen && !held; k++) held = covers(info->Config->Subjects[k], subjects[i]);
        if (!held)
            problem = transport_format("the stream %s does not hold the subject %s (the MAX_DELIVERIES advisories of %s)",
                                       self->advisory_stream, subjects[i], self->consumers[i].name);
    }
    jsStreamInfo_Destroy(info);
    for (int i = 0; subjects && i < self->consumer_count; i++) free(subjects[i]);
    free(subjects);
    return problem;
}

/* Its durable consumer: found or created, a pull consumer with explicit Acks. */
static char *check_consumer(jetstream_plugin *self) {
    jetstream_settings *s = &self->settings;
    const char *stream = self->advisory_stream;
    jsConsumerInfo *info = NULL;
    jsErrCode code = 0;
    natsStatus status = js_GetConsumerInfo(&info, self->js, stream, s->durable, NULL, &code);
    if ((status == NATS_NOT_FOUND || code == JSConsumerNotFoundErr) && !s->create)
        return transport_format("the stream %s has no consumer %s: create it, or set create=true", stream, s->durable);
    if (status == NATS_NOT_FOUND || code == JSConsumerNotFoundErr) {
        jsConsumerConfig config;
        jsConsumerConfig_Init(&config);
        config.Durable = s->durable;
        config.AckPolicy = js_AckExplicit;
        config.AckWait = s->ack_wait_ms * 1000000;
        config.MaxDeliver = -1;
        code = 0;
        status = js_AddConsumer(&info, self->js, stream, &config, NULL, &code);
        if (status != NATS_OK) return failure("cannot create the consumer of the MAX_DELIVERIES advisories", status, code);
        transport_log(self->host, PH_LOG_INFO, "created the advisory consumer %s on %s", s->durable, stream);
    } else if (status != NATS_OK) {
        return failure("cannot read the consumer of the MAX_DELIVERIES advisories", status, code);
    }
    char *problem = NULL;
    if (info->Config->DeliverSubject && *info->Config->DeliverSubject)
        problem = transport_format("the consumer %s on %s is a push consumer; pushhost pulls", s->durable, stream);
    else if (info->Config->AckPolicy != js_AckExplicit)
        problem = transport_format("the consumer %s on %s does not take explicit Acks", s->durable, stream);
    jsConsumerInfo_Destroy(info);
    return problem;
}

char *jetstream_sweep_setup(jetstream_plugin *self) {
    if (!self->advisory_stream)
        self->advisory_stream = transport_format("%s_%s_ADVISORIES", self->settings.stream, self->settings.durable);
    if (!self->advisory_stream) return transport_format("out of memory");
    char *problem = check_stream(self);
    if (!problem) problem = check_consumer(self);
    if (problem || self->advisories) return problem;
    jsSubOptions bind;
    jsSubOptions_Init(&bind);
    bind.Stream = self->advisory_stream;
    bind.Consumer = self->settings.durable;
    jsErrCode code = 0;
    natsStatus status = js_PullSubscribe(&self->advisories, self->js, "", self->settings.durable, NULL, &bind, &code);
    return status == NATS_OK ? NULL : failure("cannot pull the MAX_DELIVERIES advisories", status, code);
}

void jetstream_sweep_release(jetstream_plugin *self) {
    natsSubscription_Destroy(self->advisories);
    self->advisories = NULL;
}

void jetstream_sweep_free(jetstream_plugin *self) {
    jetstream_sweep_release(self);
    free(self->advisory_stream);
    free(self->sweep_said);
    self->advisory_stream = self->sweep_said = NULL;
}

/* The consumer whose advisory subject `subject` is, or NULL. */
static const jetstream_consumer *ours(jetstream_plugin *self, const char *subject) {
    for (int i = 0; i < self->consumer_count; i++) {
        char *mine = advisory_subject(self, &self->consumers[i]);
        bool same = mine && strcmp(mine, subject) == 0;
        free(mine);
        if (same) return &self->consumers[i];
    }
    return NULL;
}

/* One advisory: its record dead-lettered, then the advisory acked; one not
 * believed (advisory.c) dropped, its record left alone. 0, or -1 when the
 * record could not be settled or checked (the advisory comes back after ack_wait). */
static int sweep_one(jetstream_plugin *self, natsMsg *advisory) {
    const jetstream_consumer *c = ours(self, natsMsg_GetSubject(advisory));
    if (!c) { /* an operator's stream may hold more: not this plugin's to settle */
        natsMsg_Ack(advisory, NULL);
        return 0;
    }
    uint64_t sequence = 0, deliveries = 0;
    const int believed = jetstream_advisory_believed(self, c, advisory, &sequence, &deliveries);
    if (believed == 0) natsMsg_Term(advisory, NULL);
    if (believed <= 0) return believed;
    if (jetstream_settle_exhausted(self, sequence, deliveries) < 0) return -1;
    /* Acked only once the record is settled; an Ack that is lost brings
     * the advisory again, and the record is found copied or gone. */
    natsMsg_AckSync(advisory, NULL, NULL);
    return 0;
}

/* A fetch that failed while connected: logged once until one succeeds; with
 * create=true the stream and consumer are made again (an operator deleted them). */
static void fetch_failed(jetstream_plugin *self, natsStatus status, jsErrCode code, bool *said) {
    if (!atomic_load(&self->connected)) return; /* the connection's log line says why */
    if (!*said)
        transport_log(self->host, PH_LOG_ERROR,
                      "cannot read the MAX_DELIVERIES advisories (the consumer %s on %s): %s (JetStream error %d): trying again",
                      self->settings.durable, self->advisory_stream, jetstream_error_text(status), (int)code);
    *said = true;
    struct timespec pause = {0, SWEEP_WAIT_MS * 1000000L};
    nanosleep(&pause, NULL);
    if (self->settings.create && atomic_load(&self->connected)) free(jetstream_sweep_setup(self));
}

/* Waits for `changed` at most SWEEP_WAIT_MS while not connected. */
static void wait_connected(jetstream_plugin *self) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += SWEEP_WAIT_MS * 1000000L;
    if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
    pthread_mutex_lock(&self->lock);
    if (!atomic_load(&self->connected) && atomic_load(&self->submitting))
        pthread_cond_timedwait(&self->changed, &self->lock, &until);
    pthread_mutex_unlock(&self->lock);
}

void *jetstream_sweep_main(void *p) {
    jetstream_plugin *self = p;
    if (jetstream_wait_ready(self) < 0) return NULL;
    bool said = false;
    while (atomic_load(&self->submitting)) {
        if (!atomic_load(&self->connected)) {
            wait_connected(self);
            continue;
        }
        natsMsgList list = {0};
        jsErrCode code = 0;
        natsStatus status = natsSubscription_Fetch(&list, self->advisories, SWEEP_BATCH, SWEEP_WAIT_MS, &code);
        if (status != NATS_OK && status != NATS_TIMEOUT) {
            fetch_failed(self, status, code, &said);
            continue;
        }
        if (said) /* a fetch that waited for nothing works too */
            transport_log(self->host, PH_LOG_INFO, "reading the MAX_DELIVERIES advisories (the consumer %s on %s) again",
                          self->settings.durable, self->advisory_stream);
        said = false;
        int unsettled = 0;
        for (int i = 0; i < list.Count; i++) unsettled += sweep_one(self, list.Msgs[i]) < 0;
        if (unsettled) /* each copy that failed said why (settle.c) */
            transport_log_once(self->host, PH_LOG_WARNING, &self->sweep_said,
                               "a record named by a MAX_DELIVERIES advisory could not be settled: trying again after ack_wait");
        else if (list.Count && self->sweep_said) {
            free(self->sweep_said);
            self->sweep_said = NULL;
        }
        natsMsgList_Destroy(&list);
    }
    return NULL;
}
