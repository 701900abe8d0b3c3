/*
 * fifo_source.c: a source plugin (ph.source/1), the smallest transport: it
 * reads lines from a named pipe (a FIFO) and hands each one to the host
 * through ph.intake/1, as if it were a line of standard input. Anyone can
 * feed it with `echo '{"data":{}}' > PATH`.
 *
 * Shows: offering an extension (get_extension), asking the host for one
 * (ph.intake/1), a thread of the plugin's own that submits records, and
 * learning each record's outcome in done(), which is where a real transport
 * would acknowledge it (delivery is at least once end to end).
 *
 * Threads: create, start, stop, destroy and done run on the host's dispatch
 * thread; the reader thread, started by start and joined by stop, does the
 * reading and calls submit (which may block while the host is full).
 *
 * Setting:  path  the FIFO to read (required; created with mode 0600 when
 *                 missing; an existing FIFO is used as it is)
 * Output:   info record <N>: done | retry | rejected, once per record, N
 *           counting the records submitted, from 1
 */
#define _POSIX_C_SOURCE 200809L /* mkfifo, poll, pthreads, O_CLOEXEC */

#include "../common/sample.h" /* sample_text, sample_log */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define LINE_CAP (1024 * 1024) /* a longer line is skipped, with a warning */

/* The state of one instance. Fields marked [reader] are touched only by the
 * reader thread while it runs. */
typedef struct fifo_source {
    const ph_host *host;     /* valid until destroy() returns */
    const ph_intake *intake; /* the host's; same lifetime */
    char *path;              /* ours: a copy of the setting */
    int fd;                  /* the FIFO while started, else -1 */
    int wake[2];             /* self-pipe: stop() writes wake[1]; -1 when closed */
    pthread_t reader;
    int running;             /* the reader thread exists and is not joined yet */
    char *line;              /* [reader] the line read so far (malloc'd, grows to LINE_CAP) */
    size_t len, cap;         /* [reader] its length and allocated size */
    int skipping;            /* [reader] inside a line longer than LINE_CAP */
    unsigned long submitted; /* [reader] records accepted so far */
} fifo_source;

/* One submitted record, until its done(): allocated by the reader thread,
 * freed by done() on the dispatch thread (or by the reader when submit
 * refuses it, since done is then never called). */
typedef struct record {
    fifo_source *self;
    unsigned long number; /* 1-based, in submit order */
} record;

static void fifo_done(void *ctx, ph_result result, const char *report_line);

/* Makes the FIFO, or accepts the one that is there; anything else at path
 * is an error, logged. 0 or -1. */
static int make_fifo(const ph_host *host, const char *path) {
    if (mkfifo(path, 0600) == 0) return 0;
    if (errno != EEXIST) {
        sample_log(host, PH_LOG_ERROR, "cannot make the FIFO %s: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISFIFO(st.st_mode)) {
        sample_log(host, PH_LOG_ERROR, "%s exists and is not a FIFO", path);
        return -1;
    }
    return 0;
}

static void *fifo_create(const ph_host *host, const ph_config *config) {
    const char *path = sample_text(host->config_get(config, "path"));
    if (!path) {
        host->log(host, PH_LOG_ERROR, "the path setting is required (a FIFO to read records from)");
        return NULL;
    }
    const ph_intake *intake = host->get_extension(host, PH_EXT_INTAKE);
    if (!intake || !PH_HAS_FIELD(ph_intake, intake, submit)) {
        host->log(host, PH_LOG_ERROR, "the host lacks " PH_EXT_INTAKE ", which a source needs");
        return NULL;
    }
    if (make_fifo(host, path) != 0) return NULL;
    fifo_source *self = calloc(1, sizeof *self);
    if (!self || !(self->path = strdup(path))) {
        free(self);
        host->log(host, PH_LOG_ERROR, "out of memory");
        return NULL;
    }
    self->host = host;
    self->intake = intake;
    self->fd = self->wake[0] = self->wake[1] = -1;
    return self;
}

/* [reader] Hands the host one finished line, unless it is blank. 0, or -1
 * when the host is stopping. */
static int submit_line(fifo_source *self, const char *text, size_t len) {
    if (len > 0 && text[len - 1] == '\r') len--; /* a CRLF line, as on standard input */
    size_t i = 0;
    while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r')) i++;
    if (i == len) return 0; /* blank */

    record *r = malloc(sizeof *r);
    if (!r) {
        sample_log(self->host, PH_LOG_ERROR, "out of memory: a line was dropped");
        return 0;
    }
    r->self = self;
    r->number = self->submitted + 1;
    if (self->intake->submit(self->host, text, len, fifo_done, r) != 0) {
        free(r); /* refused: done will never be called for it */
        return -1;
    }
    self->submitted++;
    return 0;
}

/* [reader] Splits bytes into lines; keeps a partial line for the next read. */
static int take(fifo_source *self, const char *bytes, size_t n) {
    while (n > 0) {
        const char *end = memchr(bytes, '\n', n);
        size_t part = end ? (size_t)(end - bytes) : n;
        if (!self->skipping && self->len + part > LINE_CAP) {
            sample_log(self->host, PH_LOG_WARNING, "a line longer than %d bytes was skipped", LINE_CAP);
            self->skipping = 1;
            self->len = 0;
        }
        if (!self->skipping) {
            if (self->len + part > self->cap) {
                size_t cap = self->cap ? self->cap : 4096;
                while (cap < self->len + part) cap *= 2;
                char *grown = realloc(self->line, cap);
                if (!grown) {
                    sample_log(self->host, PH_LOG_ERROR, "out of memory: a line was dropped");
                    self->skipping = 1;
                    self->len = 0;
                } else {
                    self->line = grown;
                    self->cap = cap;
                }
            }
            if (!self->skipping && part > 0) {
                memcpy(self->line + self->len, bytes, part);
                self->len += part;
            }
        }
        if (!end) return 0; /* the line goes on in the next read */
        if (!self->skipping && submit_line(self, self->line, self->len) != 0) return -1;
        self->skipping = 0;
        self->len = 0;
        bytes = end + 1;
        n -= part + 1;
    }
    return 0;
}

/* The reader thread: waits on the FIFO and the self-pipe, until stop() or
 * the host refuses a record. */
static void *fifo_read(void *p) {
    fifo_source *self = p;
    char chunk[16384];
    for (;;) {
        struct pollfd fds[2] = {{.fd = self->fd, .events = POLLIN}, {.fd = self->wake[0], .events = POLLIN}};
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            sample_log(self->host, PH_LOG_ERROR, "poll failed: %s; reading stops", strerror(errno));
            return NULL;
        }
        if (fds[1].revents) return NULL; /* stop() */
        ssize_t n = read(self->fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR) continue;
            sample_log(self->host, PH_LOG_ERROR, "cannot read %s: %s; reading stops", self->path, strerror(errno));
            return NULL;
        }
        /* n == 0 cannot happen: we hold the FIFO open for writing too. */
        if (take(self, chunk, (size_t)n) != 0) return NULL; /* the host is stopping */
    }
}

static void close_all(fifo_source *self) {
    int *fds[] = {&self->fd, &self->wake[0], &self->wake[1]};
    for (size_t i = 0; i < sizeof fds / sizeof fds[0]; i++)
        if (*fds[i] >= 0) {
            close(*fds[i]);
            *fds[i] = -1;
        }
}

static int fifo_start(void *p) {
    fifo_source *self = p;
    /* O_RDWR: we are a writer too, so the last writer closing its end never
     * gives us end-of-file, and open does not wait for a writer. */
    self->fd = open(self->path, O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (self->fd < 0) {
        sample_log(self->host, PH_LOG_ERROR, "cannot open %s: %s", self->path, strerror(errno));
        return -1;
    }
    if (pipe(self->wake) != 0) {
        sample_log(self->host, PH_LOG_ERROR, "cannot make a pipe: %s", strerror(errno));
        self->wake[0] = self->wake[1] = -1;
        close_all(self);
        return -1;
    }
    fcntl(self->wake[0], F_SETFD, FD_CLOEXEC);
    fcntl(self->wake[1], F_SETFD, FD_CLOEXEC);
    int failed = pthread_create(&self->reader, NULL, fifo_read, self);
    if (failed) {
        sample_log(self->host, PH_LOG_ERROR, "cannot start the reader thread: %s", strerror(failed));
        close_all(self);
        return -1;
    }
    self->running = 1;
    return 0;
}

/* Wakes the reader and waits for it. A reader blocked in submit returns
 * too: the host refuses records once it is stopping. */
static void fifo_stop(void *p) {
    fifo_source *self = p;
    if (self->running) {
        ssize_t written = write(self->wake[1], "x", 1);
        (void)written; /* the pipe is empty, so the byte fits */
        pthread_join(self->reader, NULL);
        self->running = 0;
    }
    close_all(self);
}

/* [dispatch thread] The record's report line is written: a real transport
 * would acknowledge (done), put back (retry) or drop (rejected) it here. */
static void fifo_done(void *ctx, ph_result result, const char *report_line) {
    record *r = ctx;
    (void)report_line;
    const char *word = result == PH_DONE ? "done" : result == PH_RETRY ? "retry" : "rejected";
    sample_log(r->self->host, PH_LOG_INFO, "record %lu: %s", r->number, word);
    free(r);
}

/* Safe whether or not start() or stop() ran. */
static void fifo_destroy(void *p) {
    fifo_source *self = p;
    if (!self) return;
    fifo_stop(self);
    free(self->line);
    free(self->path);
    free(self);
}

static const ph_source source = {
    .struct_size = sizeof(ph_source),
    .start = fifo_start,
    .stop = fifo_stop,
};

static const void *fifo_get_extension(void *self, const char *id) {
    (void)self;
    return strcmp(id, PH_EXT_SOURCE) == 0 ? &source : NULL;
}

/* What it offers and uses of the extensions, declared (ABI 1.2). */
static const char *const extensions[] = {PH_EXT_SOURCE, PH_EXT_INTAKE, NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "fifo-source",
    .version = "1.0.0",
    .description = "Submits each line read from a FIFO (setting path) as a record.",
    .create = fifo_create,
    .destroy = fifo_destroy,
    .get_extension = fifo_get_extension,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
