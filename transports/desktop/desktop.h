/*
 * desktop.h: the parts of the desktop plugin, shared by its files.
 *
 * The plugin shows each background message as a desktop notification
 * through the freedesktop Notifications interface on the session bus, and
 * hands the host an action event when a person taps the notification or one
 * of its buttons. Its files follow a message's way:
 *
 *   plugin.c    the descriptor, the settings, create/destroy, the source role
 *   request.c   [dispatch thread] a message -> a request (copied fields)
 *   handoff.c   a request from the dispatch thread to the bus thread, and its answer back
 *   bus.c       [bus thread] the session bus: connects, posts, follows the server
 *   taps.c      [bus thread] the server's signals -> action events for the host
 *   posted.c    [bus thread] the notifications posted, by id, kept across restarts
 *   image.c     [bus thread] an image or icon -> a local file the server reads
 *   fetch.c     [bus thread] an http(s) image, downloaded from a public address only
 *   text.c      strings: markup escaping (../common: settings, formats, log lines, JSON quoting, the clock, metrics)
 *
 * One thread of the plugin's own (the bus thread) owns the bus connection:
 * the notification server answers and signals on that one connection (GNOME
 * Shell sends ActionInvoked only to the connection that posted), and sd-bus
 * objects belong to one thread at a time. on_background waits for the bus
 * thread's answer to its message, so the host learns whether it was shown.
 *
 * Its own metrics (ph.metrics/1, registered in create; none when the host
 * lacks it), served as desktop_NAME: the counters posted_total (Notify
 * calls the server took), replaced_total (of those, the ones that replaced
 * an earlier notification of the same collapse_key), failed_total
 * (messages not shown, failed in their report line), actions_total (taps,
 * buttons and replies the server sent for this run's notifications), and
 * the gauge server_available (1 while a notification server owns its name
 * and answers).
 */
#ifndef DESKTOP_H
#define DESKTOP_H

#include "../common/clock.h"
#include "../common/metrics.h"
#include "../common/settings.h"
#include "../common/text.h"

#include <pushhost.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The freedesktop notification server's name, object and interface. */
#define DESKTOP_SERVER "org.freedesktop.Notifications"
#define DESKTOP_SERVER_PATH "/org/freedesktop/Notifications"
#define DESKTOP_SERVER_INTERFACE "org.freedesktop.Notifications"

/* At most this many buttons (message actions) per notification. */
#define DESKTOP_MAX_ACTIONS 8

/* One action of a message: its id (the key the server sends back) and the
 * button's label. input: a reply action, which takes text. */
typedef struct desktop_action {
    char *id;
    char *title;
    bool input;
} desktop_action;

/* What the bus thread needs to post one message: copies of its fields
 * (the message's strings are borrowed only by on_background), and the bus
 * thread's answer. */
typedef struct desktop_request {
    char *message_id;
    char *title;        /* the summary; never NULL */
    char *body;         /* may be NULL */
    char *icon;         /* notification.icon: a path, a file:// or http(s) URL, an icon name; may be NULL */
    char *image;        /* notification.image, the same kinds; may be NULL */
    char *category;     /* notification.category; may be NULL */
    char *collapse_key; /* replaces the notification posted with the same key; may be NULL */
    uint8_t urgency;    /* 0 low, 1 normal, 2 critical */
    size_t action_count;
    desktop_action actions[DESKTOP_MAX_ACTIONS];
    bool answered;      /* [handoff lock] the bus thread is done with it */
    bool shown;         /* [handoff lock] the server showed it */
    char *failure;      /* [handoff lock] why it was not shown; may be NULL (out of memory) */
} desktop_request;

/* The settings, read once by create(). */
typedef struct desktop_settings {
    char *app_name;        /* app_name of every notification */
    char *icon;            /* app_icon when the message has none; may be NULL */
    char *desktop_entry;   /* the desktop-entry hint (the app's .desktop file, without .desktop); may be NULL */
    int32_t expire_ms;     /* expire_timeout: -1 the server's default, 0 never */
    char **targets;        /* NULL-ended list of the targets shown, or NULL for all */
    bool actions;          /* taps come back as action events (the source role) */
    char **image_dirs;     /* NULL-ended list of the folders local images are shown from (real paths), or NULL */
    bool fetch_images;     /* remote (http, https) images and icons are downloaded */
    bool fetch_private;    /* downloads may come from loopback, link-local and private addresses */
    size_t image_max_bytes;
    long image_timeout_ms;
} desktop_settings;

/* The one request on its way to the bus thread, and its answer. */
typedef struct desktop_handoff {
    pthread_mutex_t lock;
    pthread_cond_t answered;   /* signalled when the bus thread answered a request */
    desktop_request *request;  /* [lock] handed over, not yet taken by the bus thread */
    bool quit;                 /* [lock] destroy() asks the bus thread to finish */
    int wake;                  /* eventfd: a request came, or quit */
} desktop_handoff;

/* An action event on its way to the host, which may have no room for it yet
 * (submit_record answered 1). */
typedef struct desktop_tap {
    struct desktop_tap *next;
    char *json;
    char *message_id;
    char *action;
    uint32_t notification;
} desktop_tap;

/* One notification this run posted, as the bus thread remembers it. */
typedef struct desktop_posted {
    uint32_t id;              /* the server's; 0 for a free slot */
    uint64_t age;             /* when it was posted (a counter); the oldest slot is reused */
    char *message_id;
    char *collapse_key;       /* may be NULL */
    char *reply_action;       /* the id of the message's reply action, when the server takes text; may be NULL */
} desktop_posted;

#define DESKTOP_POSTED_CAP 256

typedef struct desktop_posted_table {
    desktop_posted slots[DESKTOP_POSTED_CAP];
    uint64_t clock;
    char *server;  /* the unique bus name of the server the ids are from, or NULL before the first */
    char *file;    /* where the table is kept across restarts (the plugin's state folder), or NULL */
    bool dirty;    /* changed since it was last written */
} desktop_posted_table;

/* What the bus thread knows of the connection and the server. */
typedef enum desktop_problem {
    DESKTOP_OK = 0,
    DESKTOP_NO_BUS,    /* no session bus to connect to */
    DESKTOP_NO_SERVER, /* a bus, but nobody owns org.freedesktop.Notifications */
    DESKTOP_FAILING    /* the server answers Notify with errors or not at all */
} desktop_problem;

typedef struct desktop desktop;

/* The plugin's own metrics: each NULL when the host has no ph.metrics/1
 * (or refused it), and then never counted. Set in create, then only read. */
typedef struct desktop_metrics {
    const ph_metrics *table;
    ph_metric *posted, *replaced, *failed, *actions;
    ph_metric *server_available; /* a gauge */
} desktop_metrics;

/* One instance of the plugin. */
struct desktop {
    const ph_host *host;      /* valid until destroy() returns */
    const ph_intake *intake;  /* the host's; NULL when actions are off */
    desktop_settings settings;
    desktop_metrics metrics;
    desktop_handoff handoff;
    pthread_t thread;
    bool thread_running;
    _Atomic bool submitting;  /* between the source's start and stop */

    /* [bus thread] from here on */
    struct sd_bus *bus;       /* NULL while there is no connection */
    bool caps_known;
    bool markup;              /* the server takes body markup: & < > are escaped */
    bool inline_reply;        /* the server takes typed replies (KDE's inline-reply) */
    struct sd_bus_slot *signals[3]; /* the server's signals listened to, while there is a server */
    char *server;             /* the unique bus name of the server listened to, or NULL */
    desktop_tap *taps, *last_tap; /* waiting for room in the host, in order */
    size_t tap_count;
    desktop_problem problem;  /* logged once when it begins, and once when it ends */
    uint64_t quiet_until_ms;  /* after a call that timed out: no call before this (CLOCK_MONOTONIC) */
    unsigned long unshown;    /* messages not shown while the problem lasts */
    desktop_posted_table posted;
    uint64_t saved_ms;        /* when posted was last written down (CLOCK_MONOTONIC), or 0 */
    char *image_dir;          /* where fetched images go (made on first use; a real path), or NULL */
    unsigned long fetched;    /* images fetched so far, to name their files */
};

/* request.c: *out for m; 0, 1 when m has nothing to show (*out NULL), or
 * -1 when out of memory (logged). */
int desktop_request_make(const desktop *self, const ph_message *m, desktop_request **out);
void desktop_request_free(desktop_request *r);

/* handoff.c */
int desktop_handoff_init(desktop_handoff *h);
void desktop_handoff_destroy(desktop_handoff *h);
/* [dispatch thread] Hands r to the bus thread and waits for its answer
 * (r->shown, r->failure); r stays the caller's. */
void desktop_handoff_post(desktop_handoff *h, desktop_request *r);
void desktop_handoff_quit(desktop_handoff *h);
/* [bus thread] The request handed over, or NULL; *quit says whether
 * destroy() asked the thread to finish. */
desktop_request *desktop_handoff_take(desktop_handoff *h, bool *quit);
/* [bus thread] Answers r: shown, or not with failure (taken; may be NULL). */
void desktop_handoff_answer(desktop_handoff *h, desktop_request *r, bool shown, char *failure);

/* bus.c */
void *desktop_bus_main(void *self);

/* taps.c */
/* Listens to the signals of server (a unique bus name) only, in place of
 * the one before; NULL: to none. 0, or a negative errno. */
int desktop_taps_listen(desktop *self, const char *server);
/* Hands the host the taps that wait for room; whether some still wait. */
bool desktop_taps_submit(desktop *self);
/* Drops the taps that still wait (the host stopped), saying so. */
void desktop_taps_drop(desktop *self);

/* posted.c */
desktop_posted *desktop_posted_find(desktop_posted_table *t, uint32_t id);
desktop_posted *desktop_posted_by_key(desktop_posted_table *t, const char *collapse_key);
/* Records (or updates) notification id for request r; -1 when out of memory. */
int desktop_posted_note(desktop_posted_table *t, uint32_t id, const desktop_request *r, const char *reply_action);
void desktop_posted_forget(desktop_posted *p);
void desktop_posted_clear(desktop_posted_table *t);
/* The server answering now is owner (a unique bus name): on the first call
 * the table of an earlier run is read back when it is from that same server;
 * when the server changed, the ids are forgotten. */
void desktop_posted_adopt(desktop *self, const char *owner);
/* Writes the table to its file when it changed (atomically; logged on failure). */
void desktop_posted_save(desktop *self);
void desktop_posted_free(desktop_posted_table *t);

/* image.c: a local path the server can read for an image or icon value,
 * newly allocated (free it), or NULL (logged) when there is none to give. */
char *desktop_image_path(desktop *self, const char *value, const char *what, const char *message_id);

/* fetch.c: downloads url into a new file of the download folder (made on
 * first use); its path (free it), or NULL (logged with the reason). */
char *desktop_fetch(desktop *self, const char *url, const char *what, const char *message_id);
/* Removes the downloads kept and their folder. */
void desktop_fetch_cleanup(desktop *self);

/* text.c (and ../common/text.h for formats and log lines, ../common/json.h for JSON quoting) */
char *desktop_markup_escape(const char *s);

#endif
