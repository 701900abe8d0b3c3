/*
 * consume.c: the thread of one consumer. It fetches records and hands each
 * to the host in the order the server gave them, fetching no more than the
 * host can start, so that the server keeps the rest for an instance that
 * has room.
 *
 * The host is full while it holds --max-pending records. A record is
 * submitted with PH_RECORD_NO_WAIT, and when the host answers full it is
 * submitted again, waiting for room; the plugin then notes how many of its
 * records the host held (host_limit). A fetch asks for host_limit less the
 * records still in the host, at least 1 and at most batch: right after the
 * host was full one record, then as many as the host finished since. Each
 * fetch the host takes whole raises host_limit by one, so the first
 * fetches ask for 1, 2, 3 ... records, and a host that has room again is
 * soon fetched batch for again. So the records this instance holds (in the
 * host, fetched, waiting for room) are at most --max-pending + 1 per
 * consumer while the plugin is the host's only source; when other sources
 * fill the host too, more of a fetch can wait behind the record that waits
 * for room. A host older than ABI 1.2 never answers full (its submit
 * waits): each fetch asks for batch.
 *
 * Each record of a fetch is held from the fetch on (settle.c tells the
 * server InProgress for it until it is settled), so one that waits for
 * room is not delivered again meanwhile. A record is never given back
 * (Nak) only because the host is full: a Nak counts as a delivery toward
 * max_deliver. A record fetched and never submitted (the host is stopping)
 * is given back at once, so another instance gets it without waiting for
 * ack_wait.
 */
#include "jetstream.h"

#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

/* How long one fetch waits for a record: also how long stop waits at most. */
#define FETCH_WAIT_MS 250

void jetstream_give_back(jetstream_plugin *self, natsMsg *record) {
    jetstream_count(self, self->metrics.naked, natsMsg_Nak(record, NULL));
    natsMsg_Destroy(record);
}

/* Counts the records of a fetch, and those of them delivered before. */
static void count_fetched(jetstream_plugin *self, const natsMsgList *list) {
    transport_metric_add(self->metrics.table, self->metrics.fetched, list->Count);
    if (!self->metrics.redelivered) return;
    int again = 0;
    for (int i = 0; i < list->Count; i++) {
        jsMsgMetaData *meta = NULL;
        if (natsMsg_GetMetaData(&meta, list->Msgs[i]) == NATS_OK && meta->NumDelivered > 1) again++;
        jsMsgMetaData_Destroy(meta);
    }
    if (again) transport_metric_add(self->metrics.table, self->metrics.redelivered, again);
}

/* A job for the record, held from now on (InProgress goes to it while it
 * waits for room); NULL, the record given back, when there is no memory. */
static jetstream_job *hold(jetstream_consumer *c, natsMsg *record, uint64_t fetched_ms) {
    jetstream_job *job = calloc(1, sizeof *job);
    if (!job) {
        jetstream_give_back(c->plugin, record);
        return NULL;
    }
    job->record = record;
    job->consumer = c;
    jetstream_hold(c->plugin, job, fetched_ms);
    return job;
}

/* A held record that never reached the host (it is stopping), given back. */
static void drop(jetstream_plugin *self, jetstream_job *job) {
    jetstream_release(self, job);
    jetstream_give_back(self, job->record);
    free(job);
}

/* submit_record, telling the host when the stream stored the record (a
 * message's time to live counts from then) when the host can be told. */
static int hand(jetstream_plugin *self, jetstream_job *job, const char *data, size_t length, uint32_t flags) {
    if (PH_HAS_FIELD(ph_intake, self->intake, submit_record_at))
        return self->intake->submit_record_at(self->host, data, length, flags, job->stored_ms, jetstream_record_done, job);
    return self->intake->submit_record(self->host, data, length, flags, jetstream_record_done, job);
}

/* Hands one held record to the host: 0 taken, 1 taken after waiting for
 * the full host, -1 not taken (the host is stopping: then no consumer
 * fetches again, so none fetches a record only to give it back). */
static int submit(jetstream_plugin *self, jetstream_job *job) {
    const char *data = natsMsg_GetData(job->record) ? natsMsg_GetData(job->record) : "";
    const size_t length = (size_t)natsMsg_GetDataLength(job->record);
    jetstream_hand_over(self, job);
    int answer = hand(self, job, data, length, PH_RECORD_NO_WAIT);
    if (answer == 1) {
        pthread_mutex_lock(&self->lock);
        self->host_limit = self->in_host - 1; /* in_host counts this record, which the host did not take */
        pthread_mutex_unlock(&self->lock);
        answer = hand(self, job, data, length, 0) == 0 ? 1 : -1;
    }
    if (answer < 0) atomic_store(&self->submitting, false);
    return answer;
}

/* Hands a fetch's records to the host in order, each held from the fetch
 * on; whether the host was full for one of them. What the host does not
 * take (it is stopping) is given back. */
static bool submit_all(jetstream_consumer *c, natsMsgList *list, uint64_t fetched_ms) {
    jetstream_plugin *self = c->plugin;
    if (list->Count <= 0) return false;
    jetstream_job **jobs = calloc((size_t)list->Count, sizeof *jobs);
    for (int i = 0; i < list->Count; i++) {
        natsMsg *record = list->Msgs[i];
        list->Msgs[i] = NULL;
        if (jobs) jobs[i] = hold(c, record, fetched_ms);
        else jetstream_give_back(self, record);
    }
    bool full = false;
    for (int i = 0; jobs && i < list->Count; i++) {
        if (!jobs[i]) continue;
        const int answer = atomic_load(&self->submitting) ? submit(self, jobs[i]) : -1;
        if (answer < 0) drop(self, jobs[i]);
        full = full || answer == 1;
    }
    free(jobs);
    return full;
}

/* How many records the next fetch of consumer c asks for: never more than
 * the consumer hands out before it waits for settlements (MaxAckPending; 1
 * for a partition's), since a fetch for more would wait its whole
 * FETCH_WAIT_MS for records the server cannot send yet. */
static int fetch_size(jetstream_consumer *c) {
    jetstream_plugin *self = c->plugin;
    pthread_mutex_lock(&self->lock);
    const int room = self->host_limit - self->in_host;
    pthread_mutex_unlock(&self->lock);
    int size = room < 1 ? 1 : room < self->settings.batch ? room : self->settings.batch;
    if (c->max_ack_pending > 0 && size > c->max_ack_pending) size = (int)c->max_ack_pending;
    return size;
}

/* The host took a whole fetch without being full: it may have room for one more. */
static void took_whole(jetstream_plugin *self) {
    pthread_mutex_lock(&self->lock);
    if (self->host_limit < INT_MAX) self->host_limit++;
    pthread_mutex_unlock(&self->lock);
}

/* A fetch that failed while connected: logged once until one succeeds. */
static void fetch_failed(jetstream_consumer *c, natsStatus status, jsErrCode code, bool *said) {
    if (!atomic_load(&c->plugin->connected)) return; /* the connection's log line says why */
    if (!*said)
        transport_log(c->plugin->host, PH_LOG_ERROR, "cannot fetch from the consumer %s: %s (JetStream error %d): trying again",
                      c->name, jetstream_error_text(status), (int)code);
    *said = true;
}

void *jetstream_consume_main(void *p) {
    jetstream_consumer *c = p;
    jetstream_plugin *self = c->plugin;
    if (jetstream_wait_ready(self) < 0) return NULL;
    bool said = false;
    while (atomic_load(&self->submitting)) {
        natsMsgList list = {0};
        jsErrCode code = 0;
        const int size = fetch_size(c);
        const uint64_t asked = transport_now_ms();
        natsStatus status = natsSubscription_Fetch(&list, c->pull, size, FETCH_WAIT_MS, &code);
        if (status == NATS_TIMEOUT) continue;
        if (status != NATS_OK) {
            fetch_failed(c, status, code, &said);
            /* A consumer being deleted answers "Consumer Deleted" a moment
             * before it is gone: a check made at once could still find it. */
            usleep(FETCH_WAIT_MS * 1000);
            if (self->settings.create && atomic_load(&self->connected)) jetstream_restore_consumer(self, c);
            continue;
        }
        if (said) transport_log(self->host, PH_LOG_INFO, "fetching from the consumer %s again", c->name);
        said = false;
        count_fetched(self, &list);
        const bool full = submit_all(c, &list, asked);
        if (!full && list.Count == size) took_whole(self);
        natsMsgList_Destroy(&list);
    }
    return NULL;
}
