/*
 * desktop.h: the parts of the desktop plugin, shared by its files.
 *
 * The plugin shows each background message as a desktop notification
 * through the freedesktop Notifications interface on the session bus, and
 * hands the host an action event when a person taps the notification or one
 * of its buttons. Its files follow a message's way:
 *
 *   desktop.c   the descriptor, the settings, create/destroy, the source role
 *   request.c   [dispatch thread] a message -> a request (copied fields)
 *   queue.c     the requests between the dispatch thread and the bus thread
 *   bus.c       [bus thread] the session bus: connects, posts, listens
 *   posted.c    [bus thread] the notifications posted, by id, kept across restarts
 *   image.c     [bus thread] an image or icon -> a local file the server reads
 *   text.c      strings: markup escaping, lists (../common/text.c: the rest)
 *
 * One thread of the plugin's own (the bus thread) owns the bus connection:
 * the notification server answers and signals on that one connection (GNOME
 * Shell sends ActionInvoked only to the connection that posted), and sd-bus
 * objects belong to one thread at a time.
 */
#ifndef DESKTOP_H
#define DESKTOP_H

#include "../common/settings.h"
#include "../common/text.h"

#include <pushhost.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many buttons (message actions) per notification. */
#define DESKTOP_MAX_ACTIONS 8

/* One action of a message: its id (the key the server sends back) and the
 * button's label. input: a reply action, which takes text. */
typedef struct desktop_action {
    char *id;
    char *title;
    bool input;
} desktop_action;

/* What the bus thread needs to post one message: copies of its fields, so
 * that the message may go away once on_background returns. */
typedef struct desktop_request {
    struct desktop_request *next; /* in the queue */
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
} desktop_request;

/* The settings, read once by create(). */
typedef struct desktop_settings {
    char *app_name;        /* app_name of every notification */
    char *icon;            /* app_icon when the message has none; may be NULL */
    char *desktop_entry;   /* the desktop-entry hint (the app's .desktop file, without .desktop); may be NULL */
    int32_t expire_ms;     /* expire_timeout: -1 the server's default, 0 never */
    char **targets;        /* NULL-ended list of the targets shown, or NULL for all */
    bool actions;          /* taps come back as action events (the source role) */
    bool fetch_images;     /* remote (http, https) images and icons are downloaded */
    size_t image_max_bytes;
    long image_timeout_ms;
} desktop_settings;

/* Requests waiting for the bus thread. */
typedef struct desktop_queue {
    pthread_mutex_t lock;
    pthread_cond_t room;          /* signalled when the bus thread takes the requests */
    desktop_request *head, *tail; /* [lock] */
    size_t count;                 /* [lock] */
    size_t dropped;               /* [lock] requests dropped because the queue was full, not yet reported */
    bool quit;                    /* [lock] destroy() asks the bus thread to finish */
    int wake;                     /* eventfd: a request came, or quit */
} desktop_queue;

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

/* One instance of the plugin. */
struct desktop {
    const ph_host *host;      /* valid until destroy() returns */
    const ph_intake *intake;  /* the host's; NULL when actions are off */
    desktop_settings settings;
    desktop_queue queue;
    pthread_t thread;
    bool thread_running;
    _Atomic bool submitting;  /* between the source's start and stop */

    /* [bus thread] from here on */
    struct sd_bus *bus;       /* NULL while there is no connection */
    bool caps_known;
    bool markup;              /* the server takes body markup: & < > are escaped */
    bool inline_reply;        /* the server takes typed replies (KDE's inline-reply) */
    desktop_problem problem;  /* logged once when it begins, and once when it ends */
    uint64_t quiet_until_ms;  /* after a call that timed out: no call before this (CLOCK_MONOTONIC) */
    unsigned long unshown;    /* messages not shown while the problem lasts */
    desktop_posted_table posted;
    char *image_dir;          /* where fetched images go (made on first use), or NULL */
    unsigned long fetched;    /* images fetched so far, to name their files */
};

/* request.c */
desktop_request *desktop_request_make(const desktop *self, const ph_message *m);
void desktop_request_free(desktop_request *r);

/* queue.c */
int desktop_queue_init(desktop_queue *q);
void desktop_queue_destroy(desktop_queue *q);
void desktop_queue_push(desktop *self, desktop_request *r);
void desktop_queue_quit(desktop_queue *q);
/* [bus thread] Takes every waiting request, in order (a list through next);
 * *quit says whether destroy() asked the thread to finish, *dropped how many
 * requests the full queue dropped since the last call. */
desktop_request *desktop_queue_take(desktop_queue *q, bool *quit, size_t *dropped);

/* bus.c */
void *desktop_bus_main(void *self);

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
void desktop_image_cleanup(desktop *self);

/* text.c (and ../common/text.h for formats, log lines and JSON quoting) */
char *desktop_markup_escape(const char *s);

#endif
