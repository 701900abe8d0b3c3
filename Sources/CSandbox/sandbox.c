/* Most of the walls are inline, in include/sandbox.h; here, how a walled
 * worker is started and how its first process stands in for it. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

const char *ph_spawn_step_name(int step) {
    switch (step) {
    case PH_SPAWN_CLONE: return "clone";
    case PH_SPAWN_SETGROUPS: return "setgroups";
    case PH_SPAWN_UID_MAP: return "uid_map";
    case PH_SPAWN_GID_MAP: return "gid_map";
    case PH_SPAWN_PRIVATE_MOUNTS: return "private mounts";
    case PH_SPAWN_PROC: return "mount /proc";
    case PH_SPAWN_DESCRIPTORS: return "descriptors";
    case PH_SPAWN_EXEC: return "exec";
    default: return "start";
    }
}

struct child_args {
    const struct ph_spawn *spawn;
    const sigset_t *mask;
    /* Set by the child when a step failed (the memory is shared until it execs). */
    volatile int step;
    volatile int error;
};

/* Writes `text` into the file at `path`; 0 or -1. */
static int write_file(const char *path, const char *text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    size_t length = strlen(text);
    ssize_t written = write(fd, text, length);
    int saved = errno;
    close(fd);
    errno = saved;
    return written == (ssize_t)length ? 0 : -1;
}

/* "ID ID 1": `id` mapped to itself, one of it. */
static void identity_map(char *out, unsigned id) {
    char digits[16];
    int count = 0;
    do {
        digits[count++] = (char)('0' + id % 10);
        id /= 10;
    } while (id);
    char *p = out;
    for (int copy = 0; copy < 2; copy++) {
        for (int i = count - 1; i >= 0; i--) *p++ = digits[i];
        *p++ = ' ';
    }
    *p++ = '1';
    *p = 0;
}

static int fail(struct child_args *args, int step) {
    args->error = errno;
    args->step = step;
    _exit(127);
}

/* The child, on the parent's memory until it execs: system calls only. */
static int child(void *opaque) {
    struct child_args *args = opaque;
    const struct ph_spawn *spawn = args->spawn;
    /* The parent's handlers are the parent's: default dispositions before the signals are let in. */
    for (int sig = 1; sig < NSIG; sig++) {
        struct sigaction action;
        if (sigaction(sig, NULL, &action) != 0 || action.sa_handler == SIG_IGN || action.sa_handler == SIG_DFL) continue;
        memset(&action, 0, sizeof action);
        action.sa_handler = SIG_DFL;
        sigaction(sig, &action, NULL);
    }
    if (spawn->walled) {
        char map[40];
        if (write_file("/proc/self/setgroups", "deny") < 0) fail(args, PH_SPAWN_SETGROUPS);
        identity_map(map, spawn->uid);
        if (write_file("/proc/self/uid_map", map) < 0) fail(args, PH_SPAWN_UID_MAP);
        identity_map(map, spawn->gid);
        if (write_file("/proc/self/gid_map", map) < 0) fail(args, PH_SPAWN_GID_MAP);
        if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) fail(args, PH_SPAWN_PRIVATE_MOUNTS);
        /* Only the process folders of this namespace: its own processes and threads, nothing of the system. */
        if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=invisible,subset=pid") < 0) fail(args, PH_SPAWN_PROC);
        /* This process stands in for the worker (ph_become_init): it dies with the host. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0) fail(args, PH_SPAWN_PROC);
    }
    /* A probe: whether the namespaces can be made here, and no more. */
    if (!spawn->path) _exit(0);
    if (spawn->stdin_null) {
        int null = open("/dev/null", O_RDONLY);
        if (null < 0 || (null != 0 && (dup2(null, 0) < 0 || close(null) < 0))) fail(args, PH_SPAWN_DESCRIPTORS);
    }
    for (int i = 0; i < spawn->count; i++) {
        int from = spawn->from[i], to = spawn->to[i];
        int rc = from == to ? fcntl(to, F_SETFD, 0) : dup2(from, to);
        if (rc < 0) fail(args, PH_SPAWN_DESCRIPTORS);
    }
    sigprocmask(SIG_SETMASK, args->mask, NULL);
    execve(spawn->path, spawn->argv, spawn->envp);
    return fail(args, PH_SPAWN_EXEC);
}

int ph_spawn_start(const struct ph_spawn *spawn, int *step, int *error) {
    const size_t stack_size = 1 << 16;
    char *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (stack == MAP_FAILED) {
        *step = PH_SPAWN_CLONE;
        *error = errno;
        return -1;
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    struct child_args args = {spawn, &old, 0, 0};
    int flags = CLONE_VM | CLONE_VFORK | SIGCHLD | (spawn->walled ? CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS : 0);
    pid_t pid = clone(child, stack + stack_size, flags, &args);
    int clone_error = errno;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    munmap(stack, stack_size);
    if (pid < 0) {
        *step = PH_SPAWN_CLONE;
        *error = clone_error;
        return -1;
    }
    if (args.step) {
        /* It failed before it could exec, and is gone or going. */
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {}
        *step = args.step;
        *error = args.error;
        return -1;
    }
    return pid;
}

int ph_become_init(int status_fd) {
    pid_t worker = fork();
    if (worker != 0) {
        if (worker < 0) return -1;
        /* The first process of the namespace: no descriptor but the one it reports on, no
         * readable memory (/proc/1 is not the worker's to open), and it reaps every
         * process of the namespace until the worker ends. */
        prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
        for (int fd = 0; fd < status_fd; fd++) close(fd);
        syscall(SYS_close_range, (unsigned)status_fd + 1, ~0U, 0);
        int status = 0;
        pid_t ended;
        do {
            ended = waitpid(-1, &status, 0);
        } while (ended != worker && (ended > 0 || errno == EINTR));
        if (ended == worker) {
            ssize_t written = write(status_fd, &status, sizeof status);
            (void)written;
        }
        _exit(0);
    }
    return 0;
}

int ph_send_descriptor(int socket, int32_t value, int fd) {
    struct iovec part = {&value, sizeof value};
    union {
        struct cmsghdr header;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1};
    if (fd >= 0) {
        message.msg_control = control.bytes;
        message.msg_controllen = sizeof control.bytes;
        struct cmsghdr *header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(header), &fd, sizeof fd);
    }
    ssize_t sent;
    do {
        sent = sendmsg(socket, &message, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent == (ssize_t)sizeof value ? 0 : -1;
}

int ph_receive_descriptor(int socket, int32_t *value) {
    struct iovec part = {value, sizeof *value};
    union {
        struct cmsghdr header;
        char bytes[CMSG_SPACE(sizeof(int))];
    } control;
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1, .msg_control = control.bytes, .msg_controllen = sizeof control.bytes};
    ssize_t received;
    do {
        received = recvmsg(socket, &message, MSG_CMSG_CLOEXEC);
    } while (received < 0 && errno == EINTR);
    if (received != (ssize_t)sizeof *value) {
        if (received >= 0) errno = EPROTO;
        return -2;
    }
    int fd = -1;
    for (struct cmsghdr *header = CMSG_FIRSTHDR(&message); header; header = CMSG_NXTHDR(&message, header)) {
        if (header->cmsg_level == SOL_SOCKET && header->cmsg_type == SCM_RIGHTS && header->cmsg_len == CMSG_LEN(sizeof(int))) {
            memcpy(&fd, CMSG_DATA(header), sizeof fd);
        }
    }
    return fd;
}

/* pidfd_open: 434 on every architecture (the numbers from 424 on are shared).
 * Its descriptors are close-on-exec from the start. */
int ph_pidfd_open(int pid) {
    return (int)ph_syscall(434, (long)pid, 0L);
}
