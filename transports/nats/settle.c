/*
 * settle.c: what the server learns about each record, once the host is
 * done with it. An Ack is sent from done itself (on the dispatch thread: a
 * buffered write); everything that needs an answer from the server (the
 * delivery count, the dead-letter copy) goes to the settling thread, so
 * dispatch never waits on the network.
 *
 * A dead-letter copy carries the record's bytes and these headers:
 *   Pushhost-Reason      rejected | failed on each of N deliveries | not done after N deliveries
 *   Pushhost-Report      the host's report line (when there is one)
 *   Pushhost-Stream, Pushhost-Sequence, Pushhost-Subject, Pushhost-Deliveries
 * and Nats-Msg-Id STREAM:SEQUENCE, so that a copy made twice (an instance
 * died between the copy and the Term) is kept once. The record is settled
 * only once its copy is stored; when the copy fails it is retried later.
 */
#include "jetstream.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void jetstream_count(jetstream_plugin *self, ph_metric *metric, natsStatus status) {
    if (status == NATS_OK) transport_metric_add(self->metrics.table, metric, 1);
}

void jetstream_settle_later(jetstream_plugin *self, jetstream_job *job) {
    pthread_mutex_lock(&self->lock);
    if (self->ending) { /* an advisory after the last job: another instance takes it */
        pthread_mutex_unlock(&self->lock);
        natsMsg_Destroy(job->record);
        free(job->report);
        free(job);
        return;
    }
    if (self->last_job) self->last_job->next = job;
    else self->first_job = job;
    self->last_job = job;
    pthread_cond_broadcast(&self->changed);
    pthread_mutex_unlock(&self->lock);
}

void jetstream_under_way(jetstream_plugin *self, jetstream_job *job) {
    pthread_mutex_lock(&self->lock);
    job->under_way_next = self->under_way;
    if (self->under_way) self->under_way->under_way_prev = job;
    self->under_way = job;
    self->in_host++;
    pthread_mutex_unlock(&self->lock);
}

void jetstream_not_under_way(jetstream_plugin *self, jetstream_job *job) {
    pthread_mutex_lock(&self->lock);
    if (job->under_way_prev) job->under_way_prev->under_way_next = job->under_way_next;
    else self->under_way = job->under_way_next;
    if (job->under_way_next) job->under_way_next->under_way_prev = job->under_way_prev;
    job->under_way_prev = job->under_way_next = NULL;
    self->in_host--;
    pthread_mutex_unlock(&self->lock);
}

/* Tells the server each record in the host is being worked on, which
 * restarts its ack_wait. Called with the lock held. */
static void say_in_progress(jetstream_plugin *self) {
    for (jetstream_job *job = self->under_way; job; job = job->under_way_next) natsMsg_InProgress(job->record, NULL);
}

void jetstream_record_done(void *p, ph_result result, const char *report_line) {
    jetstream_job *job = p;
    jetstream_plugin *self = job->consumer->plugin;
    jetstream_not_under_way(self, job);
    if (result == PH_DONE) {
        jetstream_count(self, self->metrics.acked, natsMsg_Ack(job->record, NULL));
        natsMsg_Destroy(job->record);
        free(job);
        return;
    }
    job->result = result;
    job->report = strdup(report_line);
    if (!job->report) { /* no memory for the line: the record comes back after ack_wait */
        natsMsg_Destroy(job->record);
        free(job);
        return;
    }
    jetstream_settle_later(self, job);
}

/* The number after "key": in a JSON text, or 0. */
static uint64_t json_number(const char *json, const char *key) {
    const char *at = strstr(json, key);
    return at ? strtoull(at + strlen(key), NULL, 10) : 0;
}

void jetstream_on_advisory(natsConnection *connection, natsSubscription *sub, natsMsg *msg, void *consumer) {
    (void)connection;
    (void)sub;
    jetstream_consumer *c = consumer;
    char *json = strndup(natsMsg_GetData(msg) ? natsMsg_GetData(msg) : "", (size_t)natsMsg_GetDataLength(msg));
    jetstream_job *job = json ? calloc(1, sizeof *job) : NULL;
    if (job) {
        job->consumer = c;
        job->sequence = json_number(json, "\"stream_seq\":");
        job->deliveries = json_number(json, "\"deliveries\":");
    }
    if (job && job->sequence) jetstream_settle_later(c->plugin, job);
    else {
        transport_log(c->plugin->host, PH_LOG_ERROR, "a MAX_DELIVERIES advisory without a stream sequence: %s", json ? json : "");
        free(job);
    }
    free(json);
    natsMsg_Destroy(msg);
}

/* The Nak delay of a record delivered `deliveries` times. */
static int64_t back_off(const jetstream_settings *s, uint64_t deliveries) {
    if (!s->back_off_count || deliveries == 0) return 0;
    uint64_t index = deliveries <= (uint64_t)s->back_off_count ? deliveries - 1 : (uint64_t)s->back_off_count - 1;
    return s->back_off_ms[index];
}

/* What one record is, for the dead-letter copy and the log lines. */
typedef struct record_facts {
    const char *data;
    int length;
    const char *subject;
    uint64_t sequence;
    uint64_t deliveries;
    const char *reason;
    const char *report; /* or NULL */
} record_facts;

static void header(natsMsg *copy, const char *key, const char *value) {
    natsMsgHeader_Set(copy, key, value);
}

/* Stores a copy on the dead-letter subject. 0, or -1 (logged). */
static int copy_to_dead_letter(jetstream_plugin *self, const record_facts *r) {
    jetstream_settings *s = &self->settings;
    char sequence[24], deliveries[24], id[256];
    snprintf(sequence, sizeof sequence, "%llu", (unsigned long long)r->sequence);
    snprintf(deliveries, sizeof deliveries, "%llu", (unsigned long long)r->deliveries);
    snprintf(id, sizeof id, "%s:%s", s->stream, sequence);
    natsMsg *copy = NULL;
    natsStatus status = natsMsg_Create(&copy, s->dead_letter, NULL, r->data, r->length);
    if (status == NATS_OK) {
        header(copy, "Pushhost-Reason", r->reason);
        if (r->report) header(copy, "Pushhost-Report", r->report);
        header(copy, "Pushhost-Stream", s->stream);
        header(copy, "Pushhost-Sequence", sequence);
        header(copy, "Pushhost-Subject", r->subject ? r->subject : "");
        header(copy, "Pushhost-Deliveries", deliveries);
        jsPubOptions options;
        jsPubOptions_Init(&options);
        options.MsgId = id;
        options.MaxWait = 5000;
        jsPubAck *ack = NULL;
        jsErrCode code = 0;
        status = js_PublishMsg(&ack, self->js, copy, &options, &code);
        jsPubAck_Destroy(ack);
    }
    natsMsg_Destroy(copy);
    if (status != NATS_OK) {
        transport_log(self->host, PH_LOG_ERROR,
                      "cannot copy the record at %s sequence %s to the dead-letter subject %s: %s; it stays in the stream",
                      s->stream, sequence, s->dead_letter, jetstream_error_text(status));
        return -1;
    }
    transport_metric_add(self->metrics.table, self->metrics.dead_lettered, 1);
    transport_log(self->host, PH_LOG_WARNING, "the record at %s sequence %s went to %s: %s", s->stream, sequence,
                  s->dead_letter, r->reason);
    return 0;
}

/* The record is given up on: copied to the dead-letter subject, else logged
 * (its first 4,096 bytes) and dropped. 0, or -1 when the copy failed (the record is kept). */
static int give_up(jetstream_plugin *self, const record_facts *r) {
    if (self->settings.dead_letter) return copy_to_dead_letter(self, r);
    transport_log(self->host, PH_LOG_ERROR,
                  "the record at %s sequence %llu is dropped (no dead_letter setting): %s%s%s; record %.*s%s",
                  self->settings.stream, (unsigned long long)r->sequence, r->reason, r->report ? "; report " : "",
                  r->report ? r->report : "", r->length > 4096 ? 4096 : r->length, r->data ? r->data : "",
                  r->length > 4096 ? "..." : "");
    return 0;
}

/* A record the host could not handle (PH_RETRY) or refused (PH_REJECTED). */
static void settle_record(jetstream_plugin *self, jetstream_job *job) {
    if (job->result == PH_RETRY && !*job->report) {
        /* The host stopped before it ended: no fault of the record's; given
         * back at once (on its last delivery, the advisory takes it on). */
        jetstream_count(self, self->metrics.naked, natsMsg_Nak(job->record, NULL));
        return;
    }
    jsMsgMetaData *meta = NULL;
    natsMsg_GetMetaData(&meta, job->record);
    record_facts r = {
        .data = natsMsg_GetData(job->record),
        .length = natsMsg_GetDataLength(job->record),
        .subject = natsMsg_GetSubject(job->record),
        .sequence = meta ? meta->Sequence.Stream : 0,
        .deliveries = meta ? meta->NumDelivered : 0,
        .report = job->report,
    };
    jsMsgMetaData_Destroy(meta);
    char reason[64];
    const int64_t max = self->settings.max_deliver;
    bool last = max > 0 && r.deliveries >= (uint64_t)max;
    if (job->result == PH_REJECTED) r.reason = "rejected";
    else if (last) {
        snprintf(reason, sizeof reason, "failed on each of %llu deliveries", (unsigned long long)r.deliveries);
        r.reason = reason;
    }
    if (r.reason && give_up(self, &r) == 0)
        jetstream_count(self, self->metrics.terminated, natsMsg_Term(job->record, NULL));
    else
        jetstream_count(self, self->metrics.naked,
                        natsMsg_NakWithDelay(job->record, back_off(&self->settings, r.deliveries), NULL));
}

/* A record the server stopped delivering (MAX_DELIVERIES) with no done: its
 * instance died or hung on the last delivery. Copied from the stream, and
 * removed from a work-queue stream once copied. */
static void settle_exhausted(jetstream_plugin *self, jetstream_job *job) {
    jetstream_settings *s = &self->settings;
    natsMsg *stored = NULL;
    jsErrCode code = 0;
    natsStatus status = js_GetMsg(&stored, self->js, s->stream, job->sequence, NULL, &code);
    if (status != NATS_OK) {
        /* Gone already: settled late, or another instance copied it. */
        transport_log(self->host, PH_LOG_DEBUG, "advisory for %s sequence %llu: %s", s->stream,
                      (unsigned long long)job->sequence, jetstream_error_text(status));
        return;
    }
    char reason[64];
    snprintf(reason, sizeof reason, "not done after %llu deliveries", (unsigned long long)job->deliveries);
    record_facts r = {
        .data = natsMsg_GetData(stored),
        .length = natsMsg_GetDataLength(stored),
        .subject = natsMsg_GetSubject(stored),
        .sequence = job->sequence,
        .deliveries = job->deliveries,
        .reason = reason,
    };
    if (give_up(self, &r) == 0 && self->work_queue) js_DeleteMsg(self->js, s->stream, job->sequence, NULL, NULL);
    natsMsg_Destroy(stored);
}

/* A third of ack_wait, from now (CLOCK_REALTIME, for the condition variable). */
static struct timespec next_in_progress(const jetstream_plugin *self) {
    int64_t ms = self->settings.ack_wait_ms / 3 > 100 ? self->settings.ack_wait_ms / 3 : 100;
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_sec += ms / 1000;
    at.tv_nsec += (ms % 1000) * 1000000;
    if (at.tv_nsec >= 1000000000) at.tv_sec++, at.tv_nsec -= 1000000000;
    return at;
}

void *jetstream_settle_main(void *p) {
    jetstream_plugin *self = p;
    pthread_mutex_lock(&self->lock);
    struct timespec in_progress = next_in_progress(self);
    for (;;) {
        while (!self->first_job && !self->ending)
            if (pthread_cond_timedwait(&self->changed, &self->lock, &in_progress) == ETIMEDOUT) {
                say_in_progress(self);
                in_progress = next_in_progress(self);
            }
        jetstream_job *job = self->first_job;
        if (!job) break;
        self->first_job = job->next;
        if (!self->first_job) self->last_job = NULL;
        pthread_mutex_unlock(&self->lock);
        if (job->record) settle_record(self, job);
        else settle_exhausted(self, job);
        natsMsg_Destroy(job->record);
        free(job->report);
        free(job);
        pthread_mutex_lock(&self->lock);
    }
    pthread_mutex_unlock(&self->lock);
    return NULL;
}
