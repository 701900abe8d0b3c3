/* A background plugin that tries, in `create`, what its setting `try`
 * names, and prints on standard error `intruder: TRY: ok` or
 * `intruder: TRY: <the error>`:
 *   read:PATH      open PATH for reading
 *   write:PATH     create PATH (or open it) for writing
 *   connect:PORT   a TCP connection to 127.0.0.1:PORT
 *   bind:PORT      bind 127.0.0.1:PORT
 *   exec           fork, and run /bin/sh -c 'exit 7' in the child
 *   ptrace:PID     attach to PID
 *   signal:PID     send PID signal 0
 *   state          write a file into its state folder (ph.state/1)
 *   alloc:MIB      allocate MIB mebibytes and touch them
 *   spin:SECONDS   keep the CPU busy that long
 * With `spin` set to SECONDS, each on_background keeps the CPU busy that long.
 * and, with INTRUDER_MARK=PATH in its environment, its constructor tries
 * to create PATH.
 */
#define _GNU_SOURCE
#include <pushhost.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "noop.h"

#include <time.h>

static double spin_seconds;

/* Keeps the CPU busy for `seconds` of its own time. */
static void spin(double seconds) {
    struct timespec start, now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
    do {
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    } while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
}

static void on_background(void *self, const ph_message *m) {
    (void)self;
    (void)m;
    if (spin_seconds > 0) spin(spin_seconds);
}

static int tcp(const char *port, int connecting) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int rc = connecting ? connect(fd, (struct sockaddr *)&address, sizeof address) : bind(fd, (struct sockaddr *)&address, sizeof address);
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

static int run_shell(void) {
    pid_t child = fork();
    if (child < 0) return -1;
    if (child == 0) {
        execl("/bin/sh", "sh", "-c", "exit 7", (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (waitpid(child, &status, 0) < 0) return -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 7) {
        errno = EPERM;
        return -1;
    }
    return 0;
}

static int attempt(const ph_host *h, const char *what) {
    const char *argument = strchr(what, ':');
    argument = argument ? argument + 1 : "";
    int fd = -1;
    if (strncmp(what, "read:", 5) == 0) {
        fd = open(argument, O_RDONLY | O_CLOEXEC);
    } else if (strncmp(what, "write:", 6) == 0) {
        fd = open(argument, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    } else if (strncmp(what, "connect:", 8) == 0) {
        return tcp(argument, 1);
    } else if (strncmp(what, "bind:", 5) == 0) {
        return tcp(argument, 0);
    } else if (strcmp(what, "exec") == 0) {
        return run_shell();
    } else if (strncmp(what, "ptrace:", 7) == 0) {
        return (int)ptrace(PTRACE_ATTACH, (pid_t)atoi(argument), NULL, NULL);
    } else if (strncmp(what, "signal:", 7) == 0) {
        return kill((pid_t)atoi(argument), 0);
    } else if (strncmp(what, "spin:", 5) == 0) {
        spin(atof(argument));
        return 0;
    } else if (strncmp(what, "alloc:", 6) == 0) {
        size_t size = (size_t)atol(argument) << 20;
        char *block = malloc(size);
        if (!block) return -1;
        memset(block, 1, size);
        free(block);
        return 0;
    } else if (strcmp(what, "state") == 0) {
        const ph_state *state = h->get_extension(h, PH_EXT_STATE);
        const char *folder = state ? state->directory(h) : NULL;
        if (!folder) {
            errno = ENOENT;
            return -1;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/kept", folder);
        fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    } else {
        errno = EINVAL;
        return -1;
    }
    if (fd >= 0) close(fd);
    return fd < 0 ? -1 : 0;
}

/* Its library's constructor, which runs in the host's scan of it: with
 * INTRUDER_MARK set, it tries to create that file. */
__attribute__((constructor)) static void on_load(void) {
    const char *mark = getenv("INTRUDER_MARK");
    if (!mark) return;
    int fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    fprintf(stderr, "intruder: constructor: %s\n", fd >= 0 ? "ok" : strerror(errno));
    if (fd >= 0) close(fd);
}

static void *create(const ph_host *h, const ph_config *c) {
    const char *what = h->config_get(c, "try");
    if (!what) what = "";
    const char *seconds = h->config_get(c, "spin");
    if (seconds) spin_seconds = atof(seconds);
    int rc = attempt(h, what);
    fprintf(stderr, "intruder: %s: %s\n", what, rc == 0 ? "ok" : strerror(errno));
    return (void *)h;
}

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "intruder",
    .version = "1.0.0",
    .create = create,
    .on_background = on_background,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
