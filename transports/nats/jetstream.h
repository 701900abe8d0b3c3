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
 * While an instance holds a record (from the fetch until it is settled:
 * waiting for room in a full host, or in the host), the server hears so
 * (InProgress) every third of ack_wait, so neither a full host nor a slow
 * handler gets a record delivered again; a dead instance stops saying so,
 * and its records are.
 *
 * A fetch asks for no more records than the host can start (consume.c),
 * never more than batch: once the host answered full, as many as it
 * finished since, and one more for each fetch it took whole.
 *
 * A record whose instance died on its last delivery (max_deliver) has no
 * done, and the server delivers it no more: the server's MAX_DELIVERIES
 * advisory names it, a stream STREAM_DURABLE_ADVISORIES keeps the
 * advisories whoever listens, and one instance (a durable consumer shared
 * by all) copies the record to the dead-letter subject, then acks the
 * advisory (sweep.c says why not from the server's state of the records).
 * An advisory is believed only when what the server says of its record
 * agrees (advisory.c): any client allowed to publish on the advisory
 * subject could write one.
 *
 *   plugin.c      the descriptor, create/destroy, the source role
 *   settings.c    the settings
 *   nkey.c        an NKey seed's public key (libcrypto's Ed25519)
 *   connection.c  the connection: servers, credentials, reconnecting, its log lines
 *   setup.c       the stream and consumers: checked, or created when told to
 *   consume.c     [one thread per consumer] fetch, submit
 *   settle.c      [one thread] Ack, Nak, Term, InProgress once the server answers; the dead-letter subject
 *   sweep.c       [one thread] the MAX_DELIVERIES advisories: records stranded on their last delivery
 *   advisory.c    whether an advisory is believed: read strictly, checked against the server's word
 *   ../common     settings, formats, log lines (a problem once while it lasts), the clock, metrics
 *
 * Its own metrics (ph.metrics/1, registered in create; none when the host
 * lacks it), served as nats_NAME: the counters fetched_total (records
 * fetched), redelivered_total (of those, the ones delivered before),
 * acked_total, naked_total, terminated_total (each a call the client
 * library took), dead_lettered_total (copies stored on the dead-letter
 * subject), lapsed_total (records not settled because the server did not
 * answer within their ack_wait), and the gauge connected (1 while
 * connected to a server).
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
    char *nkey_seed_file;  /* a file holding a user NKey seed, or NULL; libnats reads it at each connect */
    char nkey_public[57];  /* its public key (U..., JETSTREAM_NKEY_PUBLIC_SIZE), derived from the seed */
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
    int replicas;          /* the streams' replicas: checked when set, 1 when creating; 0 unset */
    int64_t max_ack_pending; /* the consumer's MaxAckPending: checked when set; 0 unset (the server's) */
} jetstream_settings;

struct jetstream_plugin;

/* One durable consumer and the thread that pulls from it. */
typedef struct jetstream_consumer {
    struct jetstream_plugin *plugin;
    char *name;
    char *filter;                 /* or NULL */
    natsSubscription *pull;       /* bound to the durable consumer, once set up */
    int64_t max_ack_pending;      /* the consumer's MaxAckPending, once set up (0 or less: no limit) */
    pthread_t thread;
    bool thread_running;
} jetstream_consumer;

/* A record this instance fetched: held (InProgress) until done, then work for the settling thread. */
typedef struct jetstream_job {
    struct jetstream_job *next;
    struct jetstream_job *held_prev, *held_next; /* held, not yet done: the list InProgress goes to */
    natsMsg *record;     /* the delivered record */
    bool in_host;        /* handed to the host (counted in in_host) */
    uint64_t sequence;   /* its stream sequence, and its deliveries so far, as the server's reply subject */
    uint64_t deliveries; /*   gave them (0 when it could not be read) */
    int64_t stored_ms;   /* when the stream stored it (Unix milliseconds; 0 unknown): its arrival */
    ph_result result;
    char *report;        /* the report line (copied), or NULL */
    jetstream_consumer *consumer;
    uint64_t owned_until_ms; /* CLOCK_MONOTONIC: after it, the server may have delivered the record to
                                another instance (ack_wait since the fetch or the last InProgress it
                                answered for); UINT64_MAX while ack_wait is unknown */
    uint64_t round;          /* the InProgress round that last named it */
} jetstream_job;

/* The plugin's own metrics: each NULL when the host has no ph.metrics/1
 * (or refused it), and then never counted. Set in create, then only read. */
typedef struct jetstream_metrics {
    const ph_metrics *table;
    ph_metric *fetched, *redelivered, *acked, *naked, *terminated, *dead_lettered, *lapsed;
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
    jetstream_job *held;       /* records fetched and not yet done (waiting for room, or in the host), newest first */
    int in_host;               /* how many of them the host has */
    int host_limit;            /* how many records the host may hold: in_host when it last answered
                                  full, one more for each fetch it took whole since; from 1 (INT_MAX
                                  for a host that never answers full) */
    uint64_t round;            /* InProgress rounds said so far [the settling thread] */
    bool settling;             /* the settling thread runs */
    bool ending;               /* destroy asks it to finish the jobs and end */
    pthread_t settler;

    /* sweep.c: the MAX_DELIVERIES advisories */
    char *advisory_stream;            /* STREAM_DURABLE_ADVISORIES, once set up */
    natsSubscription *advisories;     /* bound to its durable consumer DURABLE, once set up */
    char *sweep_said;                 /* the last sweeping problem logged [the sweeper] */
    pthread_t sweeper;
    bool sweeping;                    /* the sweeper thread runs */
} jetstream_plugin;

/* settings.c: reads them all; 0, or -1 (logged). jetstream_settings_free frees them. */
int jetstream_settings_read(const ph_host *host, const ph_config *config, jetstream_settings *out);
/* The replicas of a stream the plugin creates. */
static inline int64_t jetstream_replicas(const jetstream_settings *s) { return s->replicas ? s->replicas : 1; }
void jetstream_settings_free(jetstream_settings *s);

/* nkey.c: the public key (U..., and a NUL) of the user NKey seed `seed`
 * (SU...) into public_key; NULL, or why `seed` is not a user seed. */
#define JETSTREAM_NKEY_PUBLIC_SIZE 57
const char *jetstream_nkey_user_public(const char *seed, char public_key[JETSTREAM_NKEY_PUBLIC_SIZE]);

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

/* settle.c: a fetched record is held (InProgress goes to it) from the fetch
 * until its done (ctx: its jetstream_job), or until it is given back.
 * fetched_ms: when the fetch that brought it was asked for. */
void jetstream_hold(jetstream_plugin *self, jetstream_job *job, uint64_t fetched_ms);
/* The host is given the held record (counted in in_host until it is released). */
void jetstream_hand_over(jetstream_plugin *self, jetstream_job *job);
void jetstream_release(jetstream_plugin *self, jetstream_job *job);
/* Whether this instance holds the record at sequence of consumer c, and
 * the server may not have delivered it elsewhere yet (within its
 * ack_wait); then *deliveries is its delivery count as the server gave it. */
bool jetstream_holds(jetstream_plugin *self, const jetstream_consumer *c, uint64_t sequence, uint64_t *deliveries);
void jetstream_record_done(void *job, ph_result result, const char *report_line);
/* Queues a job for the settling thread. */
void jetstream_settle_later(jetstream_plugin *self, jetstream_job *job);
void *jetstream_settle_main(void *self);
/* The record at sequence, which the server stopped delivering after
 * `deliveries` with no done (MAX_DELIVERIES): copied from the stream to the
 * dead-letter subject (or logged and dropped without one), and removed from
 * a work queue. 0 when settled, or gone already; -1 when the server did not
 * answer or the copy failed (logged): try again later. [any thread] */
int jetstream_settle_exhausted(jetstream_plugin *self, uint64_t sequence, uint64_t deliveries);
/* Naks a record at once (it was fetched but never submitted) and frees it. */
void jetstream_give_back(jetstream_plugin *self, natsMsg *record);
/* Counts one on metric (of self->metrics) when status is NATS_OK. */
void jetstream_count(jetstream_plugin *self, ph_metric *metric, natsStatus status);

/* advisory.c: whether the MAX_DELIVERIES advisory `message`, which came on
 * consumer c's advisory subject, is believed: 1, with the record's sequence
 * and deliveries; 0, not believed (logged: the record is left alone, the
 * advisory dropped); -1 when the server did not answer (try again later). */
int jetstream_advisory_believed(jetstream_plugin *self, const jetstream_consumer *c, natsMsg *message,
                                uint64_t *sequence, uint64_t *deliveries);

/* sweep.c: the stream of the MAX_DELIVERIES advisories and its consumer,
 * checked (created with create=true), and a pull subscription bound to it;
 * NULL, or the problem (free it). Called by setup after the consumers. */
char *jetstream_sweep_setup(jetstream_plugin *self);
/* Drops the pull subscription (a setup that failed); jetstream_sweep_free all of it (destroy). */
void jetstream_sweep_release(jetstream_plugin *self);
void jetstream_sweep_free(jetstream_plugin *self);
/* The sweeper thread: from setup until stop, each advisory's record
 * dead-lettered (jetstream_settle_exhausted), then the advisory acked. */
void *jetstream_sweep_main(void *self);

#endif
