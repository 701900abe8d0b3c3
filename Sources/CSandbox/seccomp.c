/* A worker's seccomp filter: an allow-list of the calls C and Swift
 * plugins make, by name, with the calls that lead out of the walls refused
 * with EPERM and any other (a call this list does not know, one a newer
 * kernel adds) failing with ENOSYS, as a call the kernel lacks does, so
 * that a C library falls back (clone3 to clone, say). Built with
 * libseccomp, opened at run time so that the host builds without its
 * headers; its ABI is declared here as its seccomp.h declares it. */
#define _GNU_SOURCE
#include "sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

typedef void *scmp_filter_ctx;
struct scmp_arg_cmp {
    unsigned int arg;
    int op;
    uint64_t datum_a;
    uint64_t datum_b;
};
#define SCMP_ACT_ALLOW 0x7fff0000U
#define SCMP_ACT_ERRNO(x) (0x00050000U | ((x) & 0x0000ffffU))
#define SCMP_CMP_EQ 4
#define SCMP_CMP_GT 6
#define SCMP_CMP_MASKED_EQ 7

struct seccomp_library {
    scmp_filter_ctx (*init)(uint32_t);
    void (*release)(scmp_filter_ctx);
    int (*rule_add_array)(scmp_filter_ctx, uint32_t, int, unsigned int, const struct scmp_arg_cmp *);
    int (*load)(scmp_filter_ctx);
    int (*resolve)(const char *);
    char *(*name)(uint32_t, int);
    int (*attr_set)(scmp_filter_ctx, int, uint32_t);
};
/* SCMP_FLTATR_CTL_OPTIMIZE, and its binary tree: each call walks log2 of the rules, not all of them. */
#define SCMP_FLTATR_CTL_OPTIMIZE 8
#define SCMP_OPTIMIZE_BINARY_TREE 2

static int open_library(struct seccomp_library *lib, char *error, size_t size) {
    void *handle = dlopen("libseccomp.so.2", RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(error, size, "libseccomp.so.2 cannot be opened (%s)", dlerror());
        return -1;
    }
    lib->init = (scmp_filter_ctx (*)(uint32_t))dlsym(handle, "seccomp_init");
    lib->release = (void (*)(scmp_filter_ctx))dlsym(handle, "seccomp_release");
    lib->rule_add_array = (int (*)(scmp_filter_ctx, uint32_t, int, unsigned int, const struct scmp_arg_cmp *))dlsym(handle, "seccomp_rule_add_array");
    lib->load = (int (*)(scmp_filter_ctx))dlsym(handle, "seccomp_load");
    lib->resolve = (int (*)(const char *))dlsym(handle, "seccomp_syscall_resolve_name");
    lib->name = (char *(*)(uint32_t, int))dlsym(handle, "seccomp_syscall_resolve_num_arch");
    lib->attr_set = (int (*)(scmp_filter_ctx, int, uint32_t))dlsym(handle, "seccomp_attr_set");
    if (!lib->init || !lib->release || !lib->rule_add_array || !lib->load || !lib->resolve) {
        snprintf(error, size, "libseccomp.so.2 lacks a function it should have");
        return -1;
    }
    return 0;
}

/* What plugins call, by what for. A name this architecture lacks is passed over. */
static const char *const allowed[] = {
    /* reading and writing what is open */
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2", "lseek", "close",
    "close_range", "dup", "dup2", "dup3", "fcntl", "ioctl", "flock", "fsync", "fdatasync", "sync_file_range", "sendfile",
    "copy_file_range", "splice", "tee", "vmsplice", "pipe", "pipe2", "fadvise64", "readahead",
    /* files and folders (Landlock says which) */
    "open", "openat", "openat2", "creat", "stat", "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs", "access",
    "faccessat", "faccessat2", "readlink", "readlinkat", "getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir", "mkdirat",
    "rmdir", "rename", "renameat", "renameat2", "link", "linkat", "unlink", "unlinkat", "symlink", "symlinkat", "chmod", "fchmod",
    "fchmodat", "chown", "fchown", "lchown", "fchownat", "truncate", "ftruncate", "fallocate", "utime", "utimes", "utimensat",
    "futimesat", "umask", "mknod", "mknodat", "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr", "flistxattr",
    "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr", "inotify_init", "inotify_init1",
    "inotify_add_watch", "inotify_rm_watch", "memfd_create",
    /* memory */
    "brk", "mmap", "munmap", "mremap", "mprotect", "msync", "mincore", "madvise", "mlock", "mlock2", "munlock", "mlockall",
    "munlockall", "membarrier", "pkey_mprotect", "pkey_alloc", "pkey_free", "get_mempolicy",
    /* this process and its threads */
    "exit", "exit_group", "wait4", "waitid", "getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid", "getresuid",
    "getresgid", "getgroups", "getpgid", "getpgrp", "getsid", "setsid", "setpgid", "set_tid_address", "set_robust_list",
    "get_robust_list", "rseq", "arch_prctl", "prctl", "futex", "futex_waitv", "sched_yield", "sched_getaffinity",
    "sched_setaffinity", "sched_getparam", "sched_setparam", "sched_getscheduler", "sched_setscheduler",
    "sched_get_priority_max", "sched_get_priority_min", "sched_rr_get_interval", "sched_getattr", "sched_setattr",
    "getpriority", "setpriority", "getrlimit", "setrlimit", "prlimit64", "getrusage", "times", "sysinfo", "uname", "getcpu",
    "capget", "restart_syscall", "getrandom", "seccomp", "landlock_create_ruleset", "landlock_add_rule",
    "landlock_restrict_self",
    /* signals (Landlock scopes them to the worker's own processes) */
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait", "rt_sigqueueinfo",
    "rt_tgsigqueueinfo", "rt_sigsuspend", "sigaltstack", "kill", "tkill", "tgkill", "pause", "alarm", "getitimer", "setitimer",
    "pidfd_open", "pidfd_send_signal",
    /* time */
    "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time", "timer_create", "timer_settime",
    "timer_gettime", "timer_getoverrun", "timer_delete", "timerfd_create", "timerfd_settime", "timerfd_gettime",
    /* waiting for events */
    "poll", "ppoll", "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait", "epoll_pwait",
    "epoll_pwait2", "eventfd", "eventfd2", "signalfd", "signalfd4", "io_setup", "io_destroy", "io_submit", "io_cancel",
    "io_getevents", "io_pgetevents",
    /* sockets it has (a new one: by the rules below) */
    "connect", "accept", "accept4", "bind", "listen", "shutdown", "getsockname", "getpeername", "setsockopt", "getsockopt",
    "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg",
};

/* The ways out of the walls, refused with EPERM, whatever is granted. */
static const char *const refused[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "process_madvise", "pidfd_getfd", "kcmp", "mount", "umount2",
    "pivot_root", "chroot", "fsopen", "fsmount", "fsconfig", "fspick", "move_mount", "open_tree", "mount_setattr",
    "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "bpf", "perf_event_open", "keyctl",
    "add_key", "request_key", "unshare", "setns", "personality", "swapon", "swapoff", "reboot", "acct", "quotactl",
    "quotactl_fd", "syslog", "userfaultfd", "open_by_handle_at", "name_to_handle_at", "iopl", "ioperm", "lookup_dcookie",
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname", "setdomainname", "vhangup", "capset",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "socketpair", "fanotify_init", "memfd_secret", "migrate_pages",
    "move_pages", "mbind", "set_mempolicy",
};

/* Without the exec grant. */
static const char *const spawning[] = {"fork", "vfork", "execve", "execveat"};

static int add(struct seccomp_library *lib, scmp_filter_ctx ctx, uint32_t action, const char *name, unsigned count,
               const struct scmp_arg_cmp *cmp, char *error, size_t size) {
    int number = lib->resolve(name);
    if (number < 0) return 0; /* not a call on this architecture */
    int rc = lib->rule_add_array(ctx, action, number, count, cmp);
    if (rc < 0) {
        snprintf(error, size, "libseccomp refused the rule for %s (%s)", name, strerror(-rc));
        return -1;
    }
    return 0;
}

#define COUNT(list) (sizeof list / sizeof *list)

int ph_seccomp_available(void) {
    struct seccomp_library lib;
    char error[256];
    return open_library(&lib, error, sizeof error) == 0;
}

int ph_seccomp_load(const struct ph_seccomp_grants *grants, char *error, size_t size) {
    struct seccomp_library lib;
    if (open_library(&lib, error, size) < 0) return -1;
    scmp_filter_ctx ctx = lib.init(SCMP_ACT_ERRNO(ENOSYS));
    if (!ctx) {
        snprintf(error, size, "seccomp_init failed");
        return -1;
    }
    /* A libseccomp before 2.5 builds its list; the filter is the same, only slower to walk. */
    if (lib.attr_set) lib.attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, SCMP_OPTIMIZE_BINARY_TREE);
    const uint32_t allow = SCMP_ACT_ALLOW, refuse = SCMP_ACT_ERRNO(EPERM);
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < COUNT(allowed); i++) rc = add(&lib, ctx, allow, allowed[i], 0, NULL, error, size);
    for (size_t i = 0; rc == 0 && i < COUNT(refused); i++) rc = add(&lib, ctx, refuse, refused[i], 0, NULL, error, size);
    for (size_t i = 0; rc == 0 && i < COUNT(spawning); i++) rc = add(&lib, ctx, grants->exec ? allow : refuse, spawning[i], 0, NULL, error, size);
    /* A thread is a clone with CLONE_THREAD; a process, one without (the exec grant). clone3's flags are out of a
     * filter's reach: it is left to the default, ENOSYS, and the C library falls back to clone. */
    struct scmp_arg_cmp thread[] = {{0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD}};
    struct scmp_arg_cmp process[] = {{0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0}};
    if (rc == 0) rc = add(&lib, ctx, allow, "clone", 1, thread, error, size);
    if (rc == 0) rc = add(&lib, ctx, grants->exec ? allow : refuse, "clone", 1, process, error, size);
    /* New sockets by an allow-list: IP streams and datagrams with a network grant; every other family (Unix,
     * netlink, packet, vsock, ...) and raw IP refused whatever is granted. The rules compare all 64 bits of the
     * argument: a family with high bits set is above AF_INET6, and refused. */
    struct scmp_arg_cmp above[] = {{0, SCMP_CMP_GT, AF_INET6, 0}};
    if (rc == 0) rc = add(&lib, ctx, refuse, "socket", 1, above, error, size);
    for (uint64_t family = 0; rc == 0 && family < AF_INET6; family++) {
        if (family == AF_INET) continue;
        struct scmp_arg_cmp one[] = {{0, SCMP_CMP_EQ, family, 0}};
        rc = add(&lib, ctx, refuse, "socket", 1, one, error, size);
    }
    const uint64_t families[] = {AF_INET, AF_INET6}, kinds[] = {SOCK_STREAM, SOCK_DGRAM};
    for (size_t f = 0; rc == 0 && f < 2; f++) {
        for (size_t k = 0; rc == 0 && k < 2; k++) {
            struct scmp_arg_cmp kind[] = {{0, SCMP_CMP_EQ, families[f], 0}, {1, SCMP_CMP_MASKED_EQ, 0xf, kinds[k]}};
            rc = add(&lib, ctx, grants->inet ? allow : refuse, "socket", 2, kind, error, size);
        }
        struct scmp_arg_cmp raw[] = {{0, SCMP_CMP_EQ, families[f], 0}, {1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW}};
        if (rc == 0) rc = add(&lib, ctx, refuse, "socket", 2, raw, error, size);
    }
    if (rc == 0 && (rc = lib.load(ctx)) < 0) snprintf(error, size, "seccomp_load failed (%s)", strerror(-rc));
    lib.release(ctx);
    return rc < 0 ? -1 : 0;
}

/* Whether `name` is in `list` of `count`. */
static int listed(const char *name, const char *const *list, size_t count) {
    for (size_t i = 0; i < count; i++) {
        if (strcmp(name, list[i]) == 0) return 1;
    }
    return 0;
}

struct ph_seccomp_counts ph_seccomp_count(void) {
    struct ph_seccomp_counts counts = {0, 0, 0, 0};
    struct seccomp_library lib;
    char error[256];
    if (open_library(&lib, error, sizeof error) < 0 || !lib.name) return counts;
    /* Every number this architecture's table names (x86_64 and aarch64 number theirs below 1024). */
    for (int number = 0; number < 1024; number++) {
        char *name = lib.name(0 /* this architecture */, number);
        if (!name) continue;
        if (listed(name, allowed, COUNT(allowed))) counts.allowed++;
        else if (listed(name, refused, COUNT(refused))) counts.refused++;
        else if (listed(name, spawning, COUNT(spawning)) || strcmp(name, "socket") == 0 || strcmp(name, "clone") == 0) counts.granted++;
        else counts.other++;
        free(name);
    }
    return counts;
}
