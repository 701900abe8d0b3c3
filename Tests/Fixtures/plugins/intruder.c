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
 *   uring-udp:PORT a UDP socket made through io_uring (no `socket` call),
 *                  then a datagram "uring" sent from it to 127.0.0.1:PORT
 *   uring-unix:PATH a Unix stream socket made through io_uring, connected to PATH
 *   unix:PATH      a Unix stream socket connected to PATH
 *   netlink        an AF_NETLINK (routing) socket
 *   vsock          an AF_VSOCK socket
 *   caps           print the capability lines of /proc/self/status
 *                  (`intruder: caps: CapEff=... CapPrm=... CapBnd=... CapAmb=...`)
 *   mknod          make a block device node (8:0, a disk) in its state folder
 *   bus:NAME       connect to the bus NAME (session, system) through ph.bus/1,
 *                  and write "create" and a newline on it
 *   forge:TEXT     write TEXT and a newline to standard output, and to standard
 *                  error as many times as its setting `flood` says (once by default)
 * With `spin` set to SECONDS, each on_background keeps the CPU busy that long;
 * with `bus_each` set to a bus, each connects to it anew (ph.bus/1) and
 * writes the message's id and a newline on it.
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
#include <linux/io_uring.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "noop.h"

#include <time.h>

static double spin_seconds;
static char bus_each[16];
static long flood_lines = 1;

/* Keeps the CPU busy for `seconds` of its own time. */
static void spin(double seconds) {
    struct timespec start, now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
    do {
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    } while ((double)(now.tv_sec - start.tv_sec) + (double)(now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
}

/* Connects to `bus` through ph.bus/1 and writes `text` on it; 0 or -1. */
static int bus_write(const ph_host *h, const char *bus, const char *text) {
    const ph_bus *table = h->get_extension(h, PH_EXT_BUS);
    if (!table) {
        errno = ENOSYS;
        return -1;
    }
    int fd = table->connect(h, bus);
    if (fd < 0) return -1;
    ssize_t written = write(fd, text, strlen(text));
    int saved = errno;
    close(fd);
    errno = saved;
    return written == (ssize_t)strlen(text) ? 0 : -1;
}

static void on_background(void *self, const ph_message *m) {
    const ph_host *h = self;
    if (spin_seconds > 0) spin(spin_seconds);
    if (*bus_each) {
        char line[256];
        snprintf(line, sizeof line, "%s\n", h->message_id(m));
        if (bus_write(h, bus_each, line) < 0) fprintf(stderr, "intruder: bus_each: %s\n", strerror(errno));
    }
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

/* A socket made by the kernel's io_uring (IORING_OP_SOCKET), which no
 * seccomp rule on `socket` sees; -1 with errno set. */
static int uring_socket(int domain, int type) {
    struct io_uring_params params;
    memset(&params, 0, sizeof params);
    int ring = (int)syscall(__NR_io_uring_setup, 2, &params);
    if (ring < 0) return -1;
    size_t sq_size = params.sq_off.array + params.sq_entries * sizeof(unsigned);
    size_t cq_size = params.cq_off.cqes + params.cq_entries * sizeof(struct io_uring_cqe);
    char *sq = mmap(NULL, sq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQ_RING);
    char *cq = mmap(NULL, cq_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_CQ_RING);
    struct io_uring_sqe *sqes = mmap(NULL, params.sq_entries * sizeof *sqes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, ring, IORING_OFF_SQES);
    if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) return -1;
    memset(&sqes[0], 0, sizeof sqes[0]);
    sqes[0].opcode = IORING_OP_SOCKET;
    sqes[0].fd = domain;
    sqes[0].off = (unsigned long long)type;
    unsigned *tail = (unsigned *)(sq + params.sq_off.tail), *mask = (unsigned *)(sq + params.sq_off.ring_mask);
    unsigned *array = (unsigned *)(sq + params.sq_off.array);
    array[*tail & *mask] = 0;
    __atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
    if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) < 0) return -1;
    unsigned head = __atomic_load_n((unsigned *)(cq + params.cq_off.head), __ATOMIC_ACQUIRE);
    struct io_uring_cqe *cqes = (struct io_uring_cqe *)(cq + params.cq_off.cqes);
    int result = cqes[head & *(unsigned *)(cq + params.cq_off.ring_mask)].res;
    close(ring);
    if (result < 0) {
        errno = -result;
        return -1;
    }
    return result;
}

/* Connects `fd` to the named Unix socket at `path`. */
static int connect_unix(int fd, const char *path) {
    struct sockaddr_un address = {.sun_family = AF_UNIX};
    snprintf(address.sun_path, sizeof address.sun_path, "%s", path);
    return connect(fd, (struct sockaddr *)&address, sizeof address);
}

/* Closes `fd` keeping errno, and gives `rc`. */
static int closing(int fd, int rc) {
    int saved = errno;
    if (fd >= 0) close(fd);
    errno = saved;
    return rc;
}

/* Prints the capability sets of this process, as /proc/self/status says them. */
static int print_caps(void) {
    FILE *status = fopen("/proc/self/status", "r");
    if (!status) return -1;
    char line[256], out[512] = "";
    while (fgets(line, sizeof line, status)) {
        if (strncmp(line, "Cap", 3) != 0 || strncmp(line, "CapInh", 6) == 0) continue;
        char *colon = strchr(line, ':');
        if (!colon) continue;
        *colon = 0;
        char *value = colon + 1;
        while (*value == '\t' || *value == ' ') value++;
        value[strcspn(value, "\n")] = 0;
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s=%s", *out ? " " : "", line, value);
    }
    fclose(status);
    fprintf(stderr, "intruder: caps: %s\n", out);
    return 0;
}

/* The path of `name` in its state folder (ph.state/1), into `path`; 0, or -1 (ENOENT) without a folder. */
static int in_state_folder(const ph_host *h, const char *name, char *path, size_t size) {
    const ph_state *state = h->get_extension(h, PH_EXT_STATE);
    const char *folder = state ? state->directory(h) : NULL;
    if (!folder) {
        errno = ENOENT;
        return -1;
    }
    snprintf(path, size, "%s/%s", folder, name);
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
    } else if (strncmp(what, "uring-udp:", 10) == 0) {
        fd = uring_socket(AF_INET, SOCK_DGRAM);
        if (fd < 0) return -1;
        struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argument))};
        address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        return closing(fd, sendto(fd, "uring", 5, 0, (struct sockaddr *)&address, sizeof address) == 5 ? 0 : -1);
    } else if (strncmp(what, "uring-unix:", 11) == 0) {
        fd = uring_socket(AF_UNIX, SOCK_STREAM);
        if (fd < 0) return -1;
        return closing(fd, connect_unix(fd, argument));
    } else if (strncmp(what, "unix:", 5) == 0) {
        fd = socket(AF_UNIX, SOCK_STREAM, 0);
        if (fd < 0) return -1;
        return closing(fd, connect_unix(fd, argument));
    } else if (strncmp(what, "bus:", 4) == 0) {
        return bus_write(h, argument, "create\n");
    } else if (strcmp(what, "netlink") == 0) {
        fd = socket(AF_NETLINK, SOCK_RAW, 0 /* NETLINK_ROUTE */);
    } else if (strcmp(what, "vsock") == 0) {
        fd = socket(40 /* AF_VSOCK */, SOCK_STREAM, 0);
    } else if (strcmp(what, "caps") == 0) {
        return print_caps();
    } else if (strncmp(what, "forge:", 6) == 0) {
        printf("%s\n", argument);
        fflush(stdout);
        for (long i = 0; i < flood_lines; i++) fprintf(stderr, "%s\n", argument);
        return 0;
    } else if (strcmp(what, "mknod") == 0) {
        char path[4096];
        if (in_state_folder(h, "disk", path, sizeof path) < 0) return -1;
        unlink(path);
        return mknod(path, S_IFBLK | 0600, makedev(8, 0));
    } else if (strcmp(what, "state") == 0) {
        char path[4096];
        if (in_state_folder(h, "kept", path, sizeof path) < 0) return -1;
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
    const char *each = h->config_get(c, "bus_each");
    if (each) snprintf(bus_each, sizeof bus_each, "%s", each);
    const char *flood = h->config_get(c, "flood");
    if (flood) flood_lines = atol(flood);
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
