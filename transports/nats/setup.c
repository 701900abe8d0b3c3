/*
 * setup.c: the stream and its durable consumers, as the settings describe
 * them, then (sweep.c) the stream of their MAX_DELIVERIES advisories.
 * Without create they must exist and agree with the settings; with create
 * the missing ones are made. Either way a disagreement is a problem that
 * names the setting and what the server has, never something this plugin
 * changes on the server.
 */
#include "jetstream.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What a server's answer means: a problem line naming what and why. */
static char *failure(const char *what, natsStatus status, jsErrCode code) {
    return transport_format("%s: %s (JetStream error %d)", what, jetstream_error_text(status), (int)code);
}

static bool holds(const jsStreamConfig *config, const char *subject) {
    for (int i = 0; i < config->SubjectsLen; i++)
        if (strcmp(config->Subjects[i], subject) == 0) return true;
    return false;
}

/* The stream: found (and holding each subject of the settings) or created. */
static char *check_stream(jetstream_plugin *self) {
    jetstream_settings *s = &self->settings;
    jsStreamInfo *info = NULL;
    jsErrCode code = 0;
    natsStatus status = js_GetStreamInfo(&info, self->js, s->stream, NULL, &code);
    if (status == NATS_NOT_FOUND || code == JSStreamNotFoundErr) {
        if (!s->create)
            return transport_format("the server has no stream %s: create it, or set create=true", s->stream);
        jsStreamConfig config;
        jsStreamConfig_Init(&config);
        config.Name = s->stream;
        config.Subjects = (const char **)s->subjects;
        config.SubjectsLen = transport_list_count(s->subjects);
        config.Retention = js_WorkQueuePolicy;
        config.Storage = js_FileStorage;
        config.Replicas = jetstream_replicas(s);
        status = js_AddStream(&info, self->js, &config, NULL, &code);
        if (status != NATS_OK) return failure("cannot create the stream", status, code);
        transport_log(self->host, PH_LOG_INFO, "created the stream %s (work queue)", s->stream);
    } else if (status != NATS_OK) {
        return failure("cannot read the stream", status, code);
    }
    char *problem = NULL;
    for (char **subject = s->subjects; *subject && !problem; subject++)
        if (!holds(info->Config, *subject))
            problem = transport_format("the stream %s does not hold the subject %s (setting subjects)", s->stream, *subject);
    if (!problem && s->replicas && info->Config->Replicas != s->replicas)
        problem = transport_format("the stream %s keeps %lld replicas, the replicas setting %d", s->stream,
                                   (long long)info->Config->Replicas, s->replicas);
    self->work_queue = info->Config->Retention == js_WorkQueuePolicy;
    jsStreamInfo_Destroy(info);
    return problem;
}

/* With create: a stream STREAM_DEAD for the dead-letter subject, unless a
 * stream holds it already. */
static char *create_dead_letter_stream(jetstream_plugin *self) {
    jetstream_settings *s = &self->settings;
    char *name = transport_format("%s_DEAD", s->stream);
    if (!name) return NULL;
    const char *subjects[] = {s->dead_letter};
    jsStreamConfig config;
    jsStreamConfig_Init(&config);
    config.Name = name;
    config.Subjects = subjects;
    config.SubjectsLen = 1;
    config.Storage = js_FileStorage;
    config.Replicas = jetstream_replicas(s);
    jsStreamInfo *info = NULL;
    jsErrCode code = 0;
    natsStatus status = js_AddStream(&info, self->js, &config, NULL, &code);
    jsStreamInfo_Destroy(info);
    char *problem = NULL;
    if (status == NATS_OK) transport_log(self->host, PH_LOG_INFO, "created the stream %s for %s", name, s->dead_letter);
    else if (code != JSStreamSubjectOverlapErr && code != JSStreamNameExistErr)
        problem = failure("cannot create the dead-letter stream", status, code);
    free(name);
    return problem;
}

static bool same_text(const char *a, const char *b) {
    return strcmp(a ? a : "", b ? b : "") == 0;
}

/* Where a consumer differs from the settings, or NULL. */
static char *compare(jetstream_plugin *self, jetstream_consumer *c, const jsConsumerConfig *config) {
    jetstream_settings *s = &self->settings;
    const char *name = c->name;
    if (config->DeliverSubject && *config->DeliverSubject)
        return transport_format("the consumer %s is a push consumer; pushhost pulls", name);
    if (config->AckPolicy != js_AckExplicit)
        return transport_format("the consumer %s does not take explicit Acks", name);
    if (s->ack_wait_ms && config->AckWait / 1000000 != s->ack_wait_ms)
        return transport_format("the consumer %s waits %.3g s for an Ack, the ack_wait setting %.3g s", name,
                                (double)config->AckWait / 1e9, (double)s->ack_wait_ms / 1e3);
    int64_t deliver = config->MaxDeliver > 0 ? config->MaxDeliver : -1;
    if (s->max_deliver && deliver != s->max_deliver)
        return transport_format("the consumer %s delivers a record at most %lld times, the max_deliver setting %lld", name,
                                (long long)deliver, (long long)s->max_deliver);
    if (!same_text(config->FilterSubject, c->filter))
        return transport_format("the consumer %s filters \"%s\", the filter setting \"%s\"", name,
                                config->FilterSubject ? config->FilterSubject : "", c->filter ? c->filter : "");
    if (s->max_ack_pending && config->MaxAckPending != s->max_ack_pending)
        return transport_format("the consumer %s lets %lld records be pending, the max_ack_pending setting %lld", name,
                                (long long)config->MaxAckPending, (long long)s->max_ack_pending);
    if (s->partitions && config->MaxAckPending != 1)
        return transport_format("the consumer %s lets %lld records be pending; per-key order needs 1", name,
                                (long long)config->MaxAckPending);
    return NULL;
}

/* The consumer's info: found, or created (with create=true). NULL, with
 * *problem set, when it is missing or the server fails. */
static jsConsumerInfo *find_consumer(jetstream_plugin *self, jetstream_consumer *c, char **problem) {
    jetstream_settings *s = &self->settings;
    jsConsumerInfo *info = NULL;
    jsErrCode code = 0;
    natsStatus status = js_GetConsumerInfo(&info, self->js, s->stream, c->name, NULL, &code);
    if (status == NATS_OK) return info;
    if (status != NATS_NOT_FOUND && code != JSConsumerNotFoundErr) {
        *problem = failure("cannot read the consumer", status, code);
        return NULL;
    }
    if (!s->create) {
        *problem = transport_format("the stream %s has no consumer %s: create it, or set create=true", s->stream, c->name);
        return NULL;
    }
    jsConsumerConfig config;
    jsConsumerConfig_Init(&config);
    config.Durable = c->name;
    config.AckPolicy = js_AckExplicit;
    config.AckWait = s->ack_wait_ms * 1000000;
    config.MaxDeliver = s->max_deliver;
    config.FilterSubject = c->filter;
    config.MaxAckPending = s->partitions ? 1 : s->max_ack_pending;
    status = js_AddConsumer(&info, self->js, s->stream, &config, NULL, &code);
    if (status != NATS_OK) {
        *problem = failure("cannot create the consumer", status, code);
        return NULL;
    }
    transport_log(self->host, PH_LOG_INFO, "created the consumer %s on %s", c->name, s->stream);
    return info;
}

void jetstream_restore_consumer(jetstream_plugin *self, jetstream_consumer *c) {
    char *problem = NULL;
    jsConsumerInfo_Destroy(find_consumer(self, c, &problem));
    free(problem); /* the fetch's own log line says what is wrong */
}

static char *check_consumer(jetstream_plugin *self, jetstream_consumer *c, int64_t *max_deliver, int64_t *ack_wait_ms) {
    jetstream_settings *s = &self->settings;
    char *problem = NULL;
    jsConsumerInfo *info = find_consumer(self, c, &problem);
    if (!info) return problem;
    jsErrCode code = 0;
    natsStatus status;
    problem = compare(self, c, info->Config);
    *max_deliver = info->Config->MaxDeliver > 0 ? info->Config->MaxDeliver : -1;
    *ack_wait_ms = info->Config->AckWait / 1000000;
    c->max_ack_pending = info->Config->MaxAckPending;
    jsConsumerInfo_Destroy(info);
    if (problem) return problem;

    jsSubOptions bind;
    jsSubOptions_Init(&bind);
    bind.Stream = s->stream;
    bind.Consumer = c->name;
    status = js_PullSubscribe(&c->pull, self->js, c->filter ? c->filter : "", c->name, NULL, &bind, &code);
    return status == NATS_OK ? NULL : failure("cannot pull from the consumer", status, code);
}

int jetstream_setup(jetstream_plugin *self, char **problem) {
    jetstream_settings *s = &self->settings;
    *problem = check_stream(self);
    if (!*problem && s->create && s->dead_letter) *problem = create_dead_letter_stream(self);
    int64_t max_deliver = 0, ack_wait_ms = 0;
    for (int i = 0; i < self->consumer_count && !*problem; i++) {
        *problem = check_consumer(self, &self->consumers[i], &max_deliver, &ack_wait_ms);
        /* What the consumers have: for the last delivery, and how often to
         * say InProgress (which the settling thread reads with the lock held). */
        pthread_mutex_lock(&self->lock);
        if (!s->max_deliver) s->max_deliver = max_deliver;
        if (!s->ack_wait_ms) s->ack_wait_ms = ack_wait_ms;
        pthread_mutex_unlock(&self->lock);
    }
    /* The MAX_DELIVERIES advisories of the consumers, once their ack_wait is known. */
    if (!*problem) *problem = jetstream_sweep_setup(self);
    if (!*problem) return 0;
    for (int i = 0; i < self->consumer_count; i++) {
        natsSubscription_Destroy(self->consumers[i].pull);
        self->consumers[i].pull = NULL;
    }
    jetstream_sweep_release(self);
    return -1;
}

/* Waits for `changed` at most ms. Called with the lock held. */
static void wait_changed(jetstream_plugin *self, long ms) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (ms % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) until.tv_sec++, until.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&self->changed, &self->lock, &until);
}

int jetstream_wait_ready(jetstream_plugin *self) {
    pthread_mutex_lock(&self->lock);
    while (!self->ready && atomic_load(&self->submitting)) {
        if (self->setting_up || !atomic_load(&self->connected) || transport_now_ms() < self->setup_after_ms) {
            wait_changed(self, 250);
            continue;
        }
        self->setting_up = true;
        pthread_mutex_unlock(&self->lock);
        char *problem = NULL;
        int failed = jetstream_setup(self, &problem);
        pthread_mutex_lock(&self->lock);
        self->setting_up = false;
        if (!failed) {
            self->ready = true;
            transport_log(self->host, PH_LOG_INFO, "reading the stream %s", self->settings.stream);
        } else if (problem) {
            char *line = transport_format("%s: trying again", problem);
            transport_log_once(self->host, PH_LOG_ERROR, &self->said, line ? line : problem);
            free(line);
        }
        free(problem);
        pthread_cond_broadcast(&self->changed);
        if (!self->ready) self->setup_after_ms = transport_now_ms() + 2000;
    }
    bool ready = self->ready;
    pthread_mutex_unlock(&self->lock);
    return ready ? 0 : -1;
}
