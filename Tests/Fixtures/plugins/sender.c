/* The `sender` plugin: a background plugin that sends each message's id
 * (`X-DISPATCH=ID`) as a datagram to the socket at its `socket` setting (none
 * when it is not set), then sleeps `data.hang_ms` milliseconds when the
 * message says so. Its `create` sends `X-ENV=` and the values of
 * NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID it sees (`unset` when not
 * set), and its `destroy` sends `X-DESTROY`.
 */
#define _GNU_SOURCE
#include <pushhost.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

typedef struct sender {
    const ph_host *host;
    int fd;
    struct sockaddr_un address;
} sender;

static void say(sender *self, const char *text) {
    if (self->fd < 0) return;
    sendto(self->fd, text, strlen(text), MSG_NOSIGNAL, (struct sockaddr *)&self->address, sizeof self->address);
}

static const char *or_unset(const char *text) { return text ? text : "unset"; }

static void *create(const ph_host *host, const ph_config *config) {
    sender *self = calloc(1, sizeof *self);
    if (!self) return NULL;
    self->host = host;
    self->fd = -1;
    const char *path = host->config_get(config, "socket");
    if (path && strlen(path) < sizeof self->address.sun_path) {
        self->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        self->address.sun_family = AF_UNIX;
        strcpy(self->address.sun_path, path);
    }
    char text[512];
    snprintf(text, sizeof text, "X-ENV=%s %s %s", or_unset(getenv("NOTIFY_SOCKET")), or_unset(getenv("WATCHDOG_USEC")),
             or_unset(getenv("WATCHDOG_PID")));
    say(self, text);
    return self;
}

static void destroy(void *p) {
    sender *self = p;
    say(self, "X-DESTROY");
    if (self->fd >= 0) close(self->fd);
    free(self);
}

static void on_background(void *p, const ph_message *m) {
    sender *self = p;
    char text[512];
    snprintf(text, sizeof text, "X-DISPATCH=%s", self->host->message_id(m));
    say(self, text);
    const char *hang = self->host->message_get(m, "data.hang_ms");
    if (!hang) return;
    long ms = strtol(hang, NULL, 10);
    struct timespec wait = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&wait, &wait) != 0) {}
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER, .name = "sender", .version = "1",
    .create = create, .destroy = destroy, .on_background = on_background,
};
PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
