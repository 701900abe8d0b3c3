/*
 * settle.c: what the server learns about each record, once the host is
 * done with it. done queues the record for the settling thread, so that
 * dispatch never waits on the network.
 *
 * A record is this instance's only until its ack_wait runs out: from the
 * fetch, or from the last InProgress the server answered for. After that
 * the server delivers it again, maybe to another instance, and an Ack,
 * Nak or Term from here would settle that instance's delivery (the server
 * goes by the stream sequence). So nothing is sent on a record's behalf
 * unless the server is heard from first: the settling thread asks it for
 * an answer (a PING, answered after all that came before) and then
 * settles what the host finished; while the server does not answer (a
 * cut link is silent), what is finished waits, and what outlives its
 * ack_wait is not settled here (logged, counted in lapsed_total): it is
 * delivered again. InProgress rounds follow the same rule, and a record
 * is held for another ack_wait only once the server answered after them.
 *
 * InProgress goes to every record this instance holds and has not
 * settled, from the fetch on: the records in the host, and those of a
 * fetch that wait for room in a full host (the one being submitted, and
 * the ones behind it), which would otherwise be delivered again while
 * they wait.
 *
 * A dead-letter copy carries the record's bytes and these headers:
 *   Pushhost-Reason      rejected | failed on each of N deliveries | not done after N deliveries
 *   Pushhost-Report      the host's report line (when there is one)
 *   Pushhost-Stream, Pushhost-Sequence, Pushhost-Subject, Pushhost-Deliveries
 * and Nats-Msg-Id STREAM:SEQUENCE, so that a copy made twice (an instance
 * died between the copy and the Term) is kept once, and counted and logged
 * once. The record is settled only once its copy is stored; when the copy
 * fails it is retried later. A record stranded on its last delivery (no
 * done) comes from sweep.c, which reads the server's MAX_DELIVERIES advisories.
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
    if (self->ending) { /* a done after the last job: the record comes back after ack_wait */
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

/* Whether the record may have gone to another instance by `now` (with a
 * tenth of ack_wait to spare for the clocks and the way there). */
static bool lapsed(const jetstream_plugin *self, const jetstream_job *job, uint64_t now) {
    return job->owned_until_ms != UINT64_MAX && now + (uint64_t)self->settings.ack_wait_ms / 10 >= job->owned_until_ms;
}

void jetstream_hold(jetstream_plugin *self, jetstream_job *job, uint64_t fetched_ms) {
    const int64_t ack_wait = self->settings.ack_wait_ms;
    job->owned_until_ms = ack_wait > 0 ? fetched_ms + (uint64_t)ack_wait : UINT64_MAX;
    jsMsgMetaData *meta = NULL;
    if (natsMsg_GetMetaData(&meta, job->record) == NATS_OK) {
        job->sequence = meta->Sequence.Stream;
        job->deliveries = meta->NumDelivered;
        job->stored_ms = meta->Timestamp > 0 ? meta->Timestamp / 1000000 : 0;
    }
    jsMsgMetaData_Destroy(meta);
    pthread_mutex_lock(&self->lock);
    job->held_next = self->held;
    if (self->held) self->held->held_prev = job;
    self->held = job;
    pthread_mutex_unlock(&self->lock);
}

void jetstream_hand_over(jetstream_plugin *self, jetstream_job *job) {
    pthread_mutex_lock(&self->lock);
    job->in_host = true;
    self->in_host++;
    pthread_mutex_unlock(&self->lock);
}

void jetstream_release(jetstream_plugin *self, jetstream_job *job) {
    pthread_mutex_lock(&self->lock);
    if (job->held_prev) job->held_prev->held_next = job->held_next;
    else self->held = job->held_next;
    if (job->held_next) job->held_next->held_prev = job->held_prev;
    job->held_prev = job->held_next = NULL;
    if (job->in_host) self->in_host--;
    job->in_host = false;
    pthread_mutex_unlock(&self->lock);
}

bool jetstream_holds(jetstream_plugin *self, const jetstream_consumer *c, uint64_t sequence, uint64_t *deliveries) {
    const uint64_t now = transport_now_ms();
    bool holds = false;
    pthread_mutex_lock(&self->lock);
    for (jetstream_job *job = self->held; job && !holds; job = job->held_next) {
        holds = job->consumer == c && job->sequence == sequence && !lapsed(self, job, now);
        if (holds) *deliveries = job->deliveries;
    }
    pthread_mutex_unlock(&self->lock);
    return holds;
}

/* Whether the server answers: a PING, which it answers (PONG) after all
 * that was sent before it. Waits a third of ack_wait at most (0.1 to 1 s). */
static bool server_answers(jetstream_plugin *self) {
    if (!atomic_load(&self->connected)) return false;
    int64_t wait = self->settings.ack_wait_ms / 3;
    wait = wait < 100 ? 100 : wait > 1000 ? 1000 : wait;
    return natsConnection_FlushTimeout(self->connection, wait) == NATS_OK;
}

/* Tells the server each record held here is being worked on (in the host,
 * or waiting for room in it), which restarts its ack_wait; once it answered
 * after them, each is held for another ack_wait from when they were sent.
 * Nothing while the server does not answer, and nothing for a record that
 * may be another's already. */
static void say_in_progress(jetstream_plugin *self) {
    pthread_mutex_lock(&self->lock);
    const bool any = self->held != NULL;
    pthread_mutex_unlock(&self->lock);
    if (!any || !server_answers(self)) return;
    const uint64_t sent = transport_now_ms(), round = ++self->round;
    pthread_mutex_lock(&self->lock);
    for (jetstream_job *job = self->held; job; job = job->held_next)
        if (!lapsed(self, job, sent)) {
            natsMsg_InProgress(job->record, NULL);
            job->round = round;
        }
    pthread_mutex_unlock(&self->lock);
    if (!server_answers(self)) return;
    pthread_mutex_lock(&self->lock);
    for (jetstream_job *job = self->held; job; job = job->held_next)
        if (job->round == round && job->owned_until_ms != UINT64_MAX)
            job->owned_until_ms = sent + (uint64_t)self->settings.ack_wait_ms;
    pthread_mutex_unlock(&self->lock);
}

void jetstream_record_done(void *p, ph_result result, const char *report_line) {
    jetstream_job *job = p;
    jetstream_plugin *self = job->consumer->plugin;
    jetstream_release(self, job);
    job->result = result;
    job->report = result == PH_DONE ? NULL : strdup(report_line);
    if (result != PH_DONE && !job->report) { /* no memory for the line: the record comes back after ack_wait */
        natsMsg_Destroy(job->record);
        free(job);
        return;
    }
    jetstream_settle_later(self, job);
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
    bool duplicate = false;
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
        duplicate = ack && ack->Duplicate;
        jsPubAck_Destroy(ack);
    }
    natsMsg_Destroy(copy);
    if (status != NATS_OK) {
        transport_log(self->host, PH_LOG_ERROR,
                      "cannot copy the record at %s sequence %s to the dead-letter subject %s: %s; it stays in the stream",
                      s->stream, sequence, s->dead_letter, jetstream_error_text(status));
        return -1;
    }
    if (duplicate) { /* copied before (Nats-Msg-Id): by an instance that died before it settled, or for an advisory again */
        transport_log(self->host, PH_LOG_INFO, "the record at %s sequence %s was in %s already", s->stream, sequence,
                      s->dead_letter);
        return 0;
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
         * back at once (on its last delivery, its advisory takes it on: sweep.c). */
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

int jetstream_settle_exhausted(jetstream_plugin *self, uint64_t sequence, uint64_t deliveries) {
    jetstream_settings *s = &self->settings;
    natsMsg *stored = NULL;
    jsErrCode code = 0;
    natsStatus status = js_GetMsg(&stored, self->js, s->stream, sequence, NULL, &code);
    if (status != NATS_OK) {
        /* Gone already (settled late, or copied and removed from a work
         * queue), or the server did not answer (then later). */
        bool gone = status == NATS_NOT_FOUND || code == JSNoMessageFoundErr;
        transport_log(self->host, PH_LOG_DEBUG, "MAX_DELIVERIES advisory for %s sequence %llu: %s", s->stream,
                      (unsigned long long)sequence, jetstream_error_text(status));
        return gone ? 0 : -1;
    }
    char reason[64];
    snprintf(reason, sizeof reason, "not done after %llu deliveries", (unsigned long long)deliveries);
    record_facts r = {
        .data = natsMsg_GetData(stored),
        .length = natsMsg_GetDataLength(stored),
        .subject = natsMsg_GetSubject(stored),
        .sequence = sequence,
        .deliveries = deliveries,
        .reason = reason,
    };
    int settled = give_up(self, &r);
    if (settled == 0 && self->work_queue) {
        code = 0;
        status = js_DeleteMsg(self->js, s->stream, sequence, NULL, &code);
        if (status != NATS_OK && status != NATS_NOT_FOUND && code != JSNoMessageFoundErr) settled = -1;
    }
    natsMsg_Destroy(stored);
    return settled;
}

/* CLOCK_REALTIME `ms` from now, for the condition variable. */
static struct timespec after_ms(int64_t ms) {
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_sec += ms / 1000;
    at.tv_nsec += (ms % 1000) * 1000000;
    if (at.tv_nsec >= 1000000000) at.tv_sec++, at.tv_nsec -= 1000000000;
    return at;
}

/* A third of ack_wait, from now. */
static struct timespec next_in_progress(const jetstream_plugin *self) {
    return after_ms(self->settings.ack_wait_ms / 3 > 100 ? self->settings.ack_wait_ms / 3 : 100);
}

/* A record the host is done with, settled or not: forgotten. */
static void free_job(jetstream_job *job) {
    natsMsg_Destroy(job->record);
    free(job->report);
    free(job);
}

/* A record that may be another instance's by now: not settled here. */
static void let_lapse(jetstream_plugin *self, jetstream_job *job) {
    jsMsgMetaData *meta = NULL;
    natsMsg_GetMetaData(&meta, job->record);
    transport_log(self->host, PH_LOG_WARNING,
                  "the record at %s sequence %llu is not settled here: the server did not answer within its ack_wait "
                  "(%.1f s) and delivers it again",
                  self->settings.stream, meta ? (unsigned long long)meta->Sequence.Stream : 0ULL,
                  (double)self->settings.ack_wait_ms / 1e3);
    jsMsgMetaData_Destroy(meta);
    transport_metric_add(self->metrics.table, self->metrics.lapsed, 1);
}

/* Settles the `finished` records once the server answers; returns those
 * still waiting for it. When ending, none waits: a record not settled now
 * is delivered again after its ack_wait. */
static jetstream_job *settle_finished(jetstream_plugin *self, jetstream_job *finished, bool ending) {
    const bool answers = server_answers(self);
    const uint64_t now = transport_now_ms();
    jetstream_job *waiting = NULL, **end = &waiting;
    while (finished) {
        jetstream_job *job = finished;
        finished = job->next;
        job->next = NULL;
        if (lapsed(self, job, now)) let_lapse(self, job);
        else if (answers && job->result == PH_DONE) jetstream_count(self, self->metrics.acked, natsMsg_Ack(job->record, NULL));
        else if (answers) settle_record(self, job);
        else if (!ending) {
            *end = job;
            end = &job->next;
            continue;
        }
        free_job(job);
    }
    return waiting;
}

static bool before(const struct timespec *a, const struct timespec *b) {
    return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

void *jetstream_settle_main(void *p) {
    jetstream_plugin *self = p;
    jetstream_job *finished = NULL; /* done, waiting for the server to answer */
    pthread_mutex_lock(&self->lock);
    struct timespec in_progress = next_in_progress(self);
    for (;;) {
        while (!self->first_job && !self->ending) {
            /* Records waiting for the server: asked again every 100 ms. */
            struct timespec retry = after_ms(100), until = finished && before(&retry, &in_progress) ? retry : in_progress;
            if (pthread_cond_timedwait(&self->changed, &self->lock, &until) == ETIMEDOUT) break;
        }
        jetstream_job **end = &finished;
        while (*end) end = &(*end)->next;
        *end = self->first_job;
        self->first_job = self->last_job = NULL;
        const bool ending = self->ending;
        pthread_mutex_unlock(&self->lock);
        if (finished) finished = settle_finished(self, finished, ending);
        struct timespec now = after_ms(0);
        if (!before(&now, &in_progress)) {
            say_in_progress(self);
            in_progress = next_in_progress(self);
        }
        pthread_mutex_lock(&self->lock);
        if (ending && !self->first_job) break;
    }
    pthread_mutex_unlock(&self->lock);
    return NULL;
}
