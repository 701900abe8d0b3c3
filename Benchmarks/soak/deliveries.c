/* The soak's plugin: a data handler that reads the fields real handlers read
 * and answers PH_PENDING for every tenth message (completing it from a thread
 * a moment later), and a background handler that appends each delivered
 * message id to the file at the `out` setting with one write(2), which a
 * SIGKILL cannot tear. */
#define _DEFAULT_SOURCE
#include <pushhost.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const ph_host *host;
    int out;
    unsigned long seen;
} soak;

typedef struct {
    soak *self;
    const ph_message *m;
} answer;

static void *create(const ph_host *host, const ph_config *config) {
    const char *path = host->config_get(config, "out");
    if (!path) return NULL;
    soak *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->host = host;
    self->out = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
    if (self->out < 0) { free(self); return NULL; }
    return self;
}

static void destroy(void *p) {
    soak *self = p;
    close(self->out);
    free(self);
}

static void *answer_later(void *p) {
    answer *a = p;
    struct timespec wait = {0, 2000000};
    nanosleep(&wait, NULL);
    a->self->host->complete(a->self->host, a->m, PH_CONTINUE);
    free(a);
    return NULL;
}

static ph_verdict on_data(void *p, const ph_message *m) {
    soak *self = p;
    const char *target = self->host->message_target(m);
    const char *title = self->host->message_get(m, "data.title");
    const char *body = self->host->message_get(m, "data.body");
    const char *priority = self->host->message_get(m, "priority");
    if (!title || !body || !priority) return PH_FAILED;
    (void)target;
    if (++self->seen % 10 != 0) return PH_CONTINUE;
    answer *a = malloc(sizeof *a);
    if (!a) return PH_FAILED;
    a->self = self;
    a->m = m;
    pthread_t thread;
    if (pthread_create(&thread, NULL, answer_later, a) != 0) { free(a); return PH_FAILED; }
    pthread_detach(thread);
    return PH_PENDING;
}

static void on_background(void *p, const ph_message *m) {
    soak *self = p;
    const char *id = self->host->message_id(m);
    size_t length = strlen(id);
    char line[512];
    if (length > sizeof line - 1) length = sizeof line - 1;
    memcpy(line, id, length);
    line[length] = '\n';
    (void)!write(self->out, line, length + 1);
}

static const ph_plugin plugin = {
    .struct_size = sizeof(ph_plugin),
    .abi_major = PH_ABI_MAJOR,
    .abi_minor = PH_ABI_MINOR,
    .name = "deliveries",
    .version = "1.0",
    .create = create,
    .destroy = destroy,
    .on_data = on_data,
    .on_background = on_background,
};

__attribute__((visibility("default"))) const ph_plugin *ph_plugin_entry(void) { return &plugin; }
