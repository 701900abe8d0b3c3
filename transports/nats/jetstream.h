/*
 * jetstream.h: the parts of the nats plugin, shared by its files.
 *
 * The plugin is a source (ph.source/1): it pulls records from durable
 * JetStream consumers that any number of pushhost instances share, hands
 * each to the host (ph.intake/1), and settles it on the server only from
 * the host's done:
 *
 *   PH_DONE      Ack
 *   PH_RETRY     Nak, redelivered after the back-off; on the last delivery
 *                (max_deliver) a copy goes to the dead-letter subject, then Term
 *   PH_REJECTED  a copy to the dead-letter subject, then Term
 *
 * A record the host gives back unbegun at a stop (PH_RETRY, report line
 * "") is a Nak with no delay: the next instance gets it now.
 *
 * While the host works on a record, the server hears so (InProgress)
 * every third of ack_wait, so a slow handler never gets its record
 * delivered again; a dead instance stops saying so, and its records are.
 *
 * A fetch asks for no more records than the host can start (consume.c),
 * never more than batch: once the host answered full, as many as it
 * finished since, and one more for each fetch it took whole.
 *
 * A record whose instance died on its last delivery is never settled: the
 * server's MAX_DELIVERIES advisory names it, and one instance (a queue
 * group) copies it from the stream to the dead-letter subject.
 *
 *   plugin.c      the descriptor, create/destroy, the source role
 *   settings.c    the settings
 *   connection.c  the connection: servers, credentials, reconnecting, its log lines
 *   setup.c       the stream and consumers: checked, or created when told to
 *   consume.c     [one thread per consumer] fetch, submit
 *   settle.c      Ack (from done); on the settling thread Nak, Term, InProgress, the dead-letter subject
 *   ../common     settings, formats, log lines (a problem once while it lasts), the clock, metrics
 *
 * Its own metrics (ph.metrics/1, registered in create; none when the host
 * lacks it), served as nats_NAME: the counters fetched_total (records
 * fetched), redelivered_total (of those, the ones delivered before),
 * acked_total, naked_total, terminated_total (each a call the client
 * library took), dead_lettered_total (copies stored on the dead-letter
 * subject), and the gauge connected (1 while connected to a server).
 */
#ifndef JETSTREAM_H
#define JETSTREAM_H

#include "../common/clock.h"
#include "../common/metrics.h"
#include "../common/settings.h"
#include "../common/text.h"

#include <nats/nats.h>
#include <pushhost.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct jetstream_settings {
    char **servers;        /* nats:// URLs */
    char *credentials;     /* a .creds file, or NULL */
    char *tls_ca;          /* the CA certificates (PEM) the server's certificate must chain to, or NULL */
    char *tls_cert;        /* the client's certificate chain (PEM) for mutual TLS, or NULL */
    char *tls_key;         /* its private key (PEM), with tls_cert */
    char *tls_hostname;    /* the name the server's certificate must carry, or NULL for the URL's host */
    char *user;            /* a user name, with password */
    char *password;        /* read from password_file, never a setting itself */
    char *stream;
    char **subjects;       /* the stream's subjects (empty: not checked) */
    char *filter;          /* the consumer's filter subject, or NULL; with partitions it has {partition} */
    char *durable;         /* the consumer's name; with partitions, NAME-0 ... NAME-(N-1) */
    int batch;             /* records per fetch */
    int64_t ack_wait_ms;   /* 0: the consumer's (unset and not creating) */
    int64_t max_deliver;   /* 0: the consumer's (unset and not creating); -1 no limit */
    int64_t *back_off_ms;  /* the Nak delay of delivery n is back_off_ms[min(n, count) - 1] */
    int back_off_count;
    char *dead_letter;     /* a subject, or NULL */
    bool create;           /* create the stream and consumers when missing */
    int partitions;        /* 0: one consumer; N: N consumers with MaxAckPending 1 */
} jetstream_settings;

struct jetstream_plugin;

/* One durable consumer and the thread that pulls from it. */
typedef struct jetstream_consumer {
    struct jetstream_plugin *plugin;
    char *name;
    char *filter;                 /* or NULL */
    natsSubscription *pull;       /* bound to the durable consumer, once set up */
    natsSubscription *advisories; /* MAX_DELIVERIES, in a queue group of the instances */
    pthread_t thread;
    bool thread_running;
} jetstream_consumer;

/* Work for the settling thread: a record the host is done with, or one the
 * server gave up on (an advisory). */
typedef struct jetstream_job {
    struct jetstream_job *next;
    struct jetstream_job *under_way_prev, *under_way_next; /* in the host: the list InProgress goes to */
    natsMsg *record;     /* the delivered record, or NULL for an advisory */
    ph_result result;
    char *report;        /* the report line (copied), or NULL */
    uint64_t sequence;   /* an advisory's stream sequence */
    uint64_t deliveries; /* an advisory's delivery count */
    jetstream_consumer *consumer;
} jetstream_job;

/* The plugin's own metrics: each NULL when the host has no ph.metrics/1
 * (or refused it), and then never counted. Set in create, then only read. */
typedef struct jetstream_metrics {
    const ph_metrics *table;
    ph_metric *fetched, *redelivered, *acked, *naked, *terminated, *dead_lettered;
    ph_metric *connected; /* a gauge */
} jetstream_metrics;

typedef struct jetstream_plugin {
    const ph_host *host;
    const ph_intake *intake;
    jetstream_metrics metrics;
    jetstream_settings settings;
    jetstream_consumer *consumers;
    int consumer_count;

    natsOptions *options;
    natsConnection *connection;
    jsCtx *js;
    atomic_bool connected;
    atomic_bool closing;       /* destroy closes the connection: its callbacks no longer touch the metrics */
    char url[256];             /* the server last connected to, for log lines [libnats's callback thread] */
    atomic_bool submitting;    /* from start until stop, or until submit says the host is stopping */
    bool work_queue;           /* the stream's retention: a dead-lettered record is removed from it */

    pthread_mutex_t lock;      /* guards what follows */
    pthread_cond_t changed;    /* jobs came, stopping began, setup finished */
    bool ready;                /* the stream and consumers are set up */
    bool setting_up;           /* a consumer thread is setting them up */
    uint64_t setup_after_ms;   /* when to try again after a problem (CLOCK_MONOTONIC) */
    char *said;                /* the last setup problem logged, so that a repeated one is not */
    jetstream_job *first_job, *last_job;
    jetstream_job *under_way;       /* records in the host, newest first */
    int in_host;               /* how many under_way holds */
    int host_limit;            /* how many records the host may hold: in_host when it last answered
                                  full, one more for each fetch it took whole since; from 1 (INT_MAX
                                  for a host that never answers full) */
    bool settling;             /* the settling thread runs */
    bool ending;               /* destroy asks it to finish the jobs and end */
    pthread_t settler;
} jetstream_plugin;

/* settings.c: reads them all; 0, or -1 (logged). jetstream_settings_free frees them. */
int jetstream_settings_read(const ph_host *host, const ph_config *config, jetstream_settings *out);
void jetstream_settings_free(jetstream_settings *s);

/* connection.c: connects, or starts trying in the background when no
 * server answers. 0, or -1 (logged). */
int jetstream_connect(jetstream_plugin *self);
void jetstream_disconnect(jetstream_plugin *self);
/* The last error libnats recorded on this thread, or the status's text. */
const char *jetstream_error_text(natsStatus status);

/* setup.c: checks the stream and consumers (creates them with create=true)
 * and binds a pull subscription to each. 0; or -1 with *problem set (free
 * it) when the server has no such stream or consumer, or they differ from
 * the settings. */
int jetstream_setup(jetstream_plugin *self, char **problem);
/* A consumer that fetching says is gone: created again with create=true
 * (the pull subscription goes on with it). */
void jetstream_restore_consumer(jetstream_plugin *self, jetstream_consumer *consumer);
/* Waits until set up (0) or stopping (-1), trying again every 2 s. */
int jetstream_wait_ready(jetstream_plugin *self);

/* consume.c: the thread of one consumer. */
void *jetstream_consume_main(void *consumer);

/* settle.c: a record goes to the host, and comes back in its done (ctx: its jetstream_job). */
void jetstream_under_way(jetstream_plugin *self, jetstream_job *job);
void jetstream_not_under_way(jetstream_plugin *self, jetstream_job *job);
void jetstream_record_done(void *job, ph_result result, const char *report_line);
/* Queues a job for the settling thread. */
void jetstream_settle_later(jetstream_plugin *self, jetstream_job *job);
/* A MAX_DELIVERIES advisory (a natsMsgHandler; closure: the consumer). */
void jetstream_on_advisory(natsConnection *connection, natsSubscription *sub, natsMsg *msg, void *consumer);
void *jetstream_settle_main(void *self);
/* Naks a record at once (it was fetched but never submitted) and frees it. */
void jetstream_give_back(jetstream_plugin *self, natsMsg *record);
/* Counts one on metric (of self->metrics) when status is NATS_OK. */
void jetstream_count(jetstream_plugin *self, ph_metric *metric, natsStatus status);

#endif
