/*
 * consume.c: the thread of one consumer. It fetches up to `batch` records
 * at a time and hands each to the host in the order the server gave them;
 * submit blocks while the host is full, so the server keeps what the host
 * cannot take yet. A record fetched and never submitted (the host is
 * stopping) is given back at once, so another instance gets it without
 * waiting for ack_wait.
 */
#include "jetstream.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How long one fetch waits for a record: also how long stop waits at most. */
#define FETCH_WAIT_MS 250

void nats_give_back(natsMsg *record) {
    natsMsg_Nak(record, NULL);
    natsMsg_Destroy(record);
}

/* Hands one record to the host; 0, or -1 when the host is stopping. */
static int submit(nats_consumer *c, natsMsg *record) {
    nats_plugin *self = c->plugin;
    nats_job *job = calloc(1, sizeof *job);
    if (!job) return -1;
    job->record = record;
    job->consumer = c;
    const char *data = natsMsg_GetData(record);
    nats_under_way(self, job);
    if (self->intake->submit(self->host, data ? data : "", (size_t)natsMsg_GetDataLength(record), nats_record_done, job) == 0)
        return 0;
    nats_not_under_way(self, job);
    free(job);
    return -1;
}

/* A fetch that failed while connected: logged once until one succeeds. */
static void fetch_failed(nats_consumer *c, natsStatus status, jsErrCode code, bool *said) {
    if (!atomic_load(&c->plugin->connected)) return; /* the connection's log line says why */
    if (!*said)
        transport_log(c->plugin->host, PH_LOG_ERROR, "cannot fetch from the consumer %s: %s (JetStream error %d): trying again",
                      c->name, nats_error_text(status), (int)code);
    *said = true;
}

void *nats_consume_main(void *p) {
    nats_consumer *c = p;
    nats_plugin *self = c->plugin;
    if (nats_wait_ready(self) < 0) return NULL;
    bool said = false;
    while (atomic_load(&self->submitting)) {
        natsMsgList list = {0};
        jsErrCode code = 0;
        natsStatus status = natsSubscription_Fetch(&list, c->pull, self->settings.batch, FETCH_WAIT_MS, &code);
        if (status == NATS_TIMEOUT) continue;
        if (status != NATS_OK) {
            fetch_failed(c, status, code, &said);
            if (self->settings.create && atomic_load(&self->connected)) nats_restore_consumer(self, c);
            usleep(FETCH_WAIT_MS * 1000);
            continue;
        }
        if (said) transport_log(self->host, PH_LOG_INFO, "fetching from the consumer %s again", c->name);
        said = false;
        for (int i = 0; i < list.Count; i++) {
            natsMsg *record = list.Msgs[i];
            list.Msgs[i] = NULL;
            if (!atomic_load(&self->submitting) || submit(c, record) < 0) nats_give_back(record);
        }
        natsMsgList_Destroy(&list);
    }
    return NULL;
}
