#ifndef PUSHHOST_SANDBOX_H
#define PUSHHOST_SANDBOX_H


#include <stddef.h>
#include <stdint.h>

/* The C library's functions this header calls, under names of its own (the
 * symbols are the C library's): a module header that included <unistd.h>
 * and its kin would own their declarations, and Swift files that do not
 * import this module would lose them (`_SC_PAGESIZE`, `sysconf`). */
extern long ph_syscall(long number, ...) __asm__("syscall");
extern int ph_prctl(int option, ...) __asm__("prctl");
extern void *ph_dlopen(const char *file, int mode) __asm__("dlopen");
extern void *ph_dlsym(void *handle, const char *name) __asm__("dlsym");
extern char *ph_dlerror(void) __asm__("dlerror");
extern int ph_snprintf(char *out, size_t size, const char *format, ...) __asm__("snprintf");
extern char *ph_strerror(int number) __asm__("strerror");

/* The constants it needs, as Linux and glibc number them on every architecture. */
#define PH_NR_LANDLOCK_CREATE_RULESET 444
#define PH_NR_LANDLOCK_ADD_RULE 445
#define PH_NR_LANDLOCK_RESTRICT_SELF 446
#define PH_PR_SET_NO_NEW_PRIVS 38
#define PH_RTLD_NOW 2
#define PH_RTLD_LOCAL 0
#define PH_EPERM 1
#define PH_ENOSYS 38
#define PH_AF_INET 2
#define PH_AF_INET6 10
#define PH_SOCK_RAW 3
#define PH_PR_CAPBSET_DROP 24
#define PH_PR_SET_SECUREBITS 28
#define PH_PR_CAP_AMBIENT 47
#define PH_PR_CAP_AMBIENT_CLEAR_ALL 4
/* capget and capset, which have no number common to every architecture. */
#if defined(__x86_64__)
#define PH_NR_CAPGET 125
#define PH_NR_CAPSET 126
#elif defined(__aarch64__)
#define PH_NR_CAPGET 90
#define PH_NR_CAPSET 91
#else
#error "capget and capset: add this architecture's numbers"
#endif
/* _LINUX_CAPABILITY_VERSION_3: two 32-bit words a set. */
#define PH_CAPABILITY_VERSION_3 0x20080522
/* SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP and SECBIT_NO_CAP_AMBIENT_RAISE,
 * each locked, and SECBIT_KEEP_CAPS locked off: root gains nothing back. */
#define PH_SECUREBITS_LOCKED_DOWN 0xef

/* The walls a worker puts up around its plugin: the system calls Swift
 * cannot make itself (variadic, or without a libc wrapper). Each returns 0
 * or a file descriptor, or -1 with errno set. */

/* Landlock's rights on files (ABI 1 to 3) and TCP ports (ABI 4), and the
 * scopes of ABI 6, as the kernel numbers them (older headers lack some). */
#define PH_LL_FS_EXECUTE (1ULL << 0)
#define PH_LL_FS_WRITE_FILE (1ULL << 1)
#define PH_LL_FS_READ_FILE (1ULL << 2)
#define PH_LL_FS_READ_DIR (1ULL << 3)
#define PH_LL_FS_REMOVE_DIR (1ULL << 4)
#define PH_LL_FS_REMOVE_FILE (1ULL << 5)
#define PH_LL_FS_MAKE_CHAR (1ULL << 6)
#define PH_LL_FS_MAKE_DIR (1ULL << 7)
#define PH_LL_FS_MAKE_REG (1ULL << 8)
#define PH_LL_FS_MAKE_SOCK (1ULL << 9)
#define PH_LL_FS_MAKE_FIFO (1ULL << 10)
#define PH_LL_FS_MAKE_BLOCK (1ULL << 11)
#define PH_LL_FS_MAKE_SYM (1ULL << 12)
#define PH_LL_FS_REFER (1ULL << 13)
#define PH_LL_FS_TRUNCATE (1ULL << 14)
#define PH_LL_FS_IOCTL_DEV (1ULL << 15)
#define PH_LL_NET_BIND_TCP (1ULL << 0)
#define PH_LL_NET_CONNECT_TCP (1ULL << 1)
#define PH_LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define PH_LL_SCOPE_SIGNAL (1ULL << 1)

/* What the seccomp filter lets through beside the default. */
struct ph_seccomp_grants {
    int exec;     /* fork, vfork, clone without CLONE_THREAD, execve */
    int inet;     /* AF_INET and AF_INET6 sockets */
};
/* Every other family, AF_UNIX included (a bus comes connected from the host), is refused whatever is granted. */

/* Each function returns 0 or a file descriptor, or -1 with errno set
 * (ph_seccomp_load: -1 with `error` saying why). All of it is inline, as
 * Swift calls it (sandbox.c only includes this header).
 *
 * ph_landlock_abi: the Landlock ABI the kernel offers (1 and up), or -1.
 * ph_landlock_ruleset: a ruleset that handles these rights and scopes.
 * ph_landlock_allow_path: grants `access` beneath the open file or folder `fd`.
 * ph_landlock_allow_port: grants `access` on TCP port `port`.
 * ph_landlock_restrict: puts the ruleset on this process (after ph_no_new_privs).
 * ph_no_new_privs: PR_SET_NO_NEW_PRIVS, nothing this process runs gains privileges.
 * ph_seccomp_available: whether libseccomp opens here (1 or 0).
 * ph_seccomp_load: the filter, through libseccomp opened at run time (so
 *   that the host builds without its headers); refused calls fail with EPERM.
 */


struct ph_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

struct ph_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

struct ph_net_port {
    uint64_t allowed_access;
    uint64_t port;
};

static inline int ph_landlock_abi(void) {
    return (int)ph_syscall(PH_NR_LANDLOCK_CREATE_RULESET, (void *)0, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */);
}

static inline int ph_landlock_ruleset(uint64_t fs, uint64_t net, uint64_t scoped) {
    struct ph_ruleset_attr attr = {fs, net, scoped};
    /* An older ABI knows a shorter structure. */
    size_t size = scoped ? sizeof attr : net ? offsetof(struct ph_ruleset_attr, scoped) : sizeof(uint64_t);
    return (int)ph_syscall(PH_NR_LANDLOCK_CREATE_RULESET, &attr, size, 0);
}

static inline int ph_landlock_allow_path(int ruleset, int fd, uint64_t access) {
    struct ph_path_beneath rule = {access, fd};
    return (int)ph_syscall(PH_NR_LANDLOCK_ADD_RULE, ruleset, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &rule, 0);
}

static inline int ph_landlock_allow_port(int ruleset, uint64_t port, uint64_t access) {
    struct ph_net_port rule = {access, port};
    return (int)ph_syscall(PH_NR_LANDLOCK_ADD_RULE, ruleset, 2 /* LANDLOCK_RULE_NET_PORT */, &rule, 0);
}

static inline int ph_landlock_restrict(int ruleset) {
    return (int)ph_syscall(PH_NR_LANDLOCK_RESTRICT_SELF, ruleset, 0);
}

static inline int ph_no_new_privs(void) {
    return ph_prctl(PH_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

struct ph_cap_header {
    uint32_t version;
    int pid;
};
struct ph_cap_data {
    uint32_t effective, permitted, inheritable;
};

/* Drops every capability: the ambient set, the bounding set (with
 * CAP_SETPCAP, which a process without capabilities cannot and need not
 * drop), the secure bits locked so that root gains none back, then the
 * effective, permitted and inheritable sets. 0 when no capability is left
 * in any set, else -1. */
static inline int ph_drop_capabilities(void) {
    ph_prctl(PH_PR_CAP_AMBIENT, PH_PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    struct ph_cap_header header = {PH_CAPABILITY_VERSION_3, 0};
    struct ph_cap_data data[2] = {{0, 0, 0}, {0, 0, 0}};
    if (ph_syscall(PH_NR_CAPGET, &header, data) == 0 && (data[0].effective & (1u << 8 /* CAP_SETPCAP */))) {
        for (int cap = 0; cap < 64; cap++) ph_prctl(PH_PR_CAPBSET_DROP, cap, 0, 0, 0);
        if (ph_prctl(PH_PR_SET_SECUREBITS, PH_SECUREBITS_LOCKED_DOWN, 0, 0, 0) != 0) return -1;
    }
    struct ph_cap_data none[2] = {{0, 0, 0}, {0, 0, 0}};
    if (ph_syscall(PH_NR_CAPSET, &header, none) != 0) return -1;
    if (ph_syscall(PH_NR_CAPGET, &header, data) != 0) return -1;
    return (data[0].effective | data[0].permitted | data[0].inheritable | data[1].effective | data[1].permitted | data[1].inheritable) ? -1 : 0;
}

/* libseccomp's ABI, as its seccomp.h declares it. */
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
/* <sched.h> names it only under _GNU_SOURCE, which a module header must not define. */
#define PH_CLONE_THREAD 0x00010000

struct seccomp_library {
    scmp_filter_ctx (*init)(uint32_t);
    void (*release)(scmp_filter_ctx);
    int (*rule_add_array)(scmp_filter_ctx, uint32_t, int, unsigned int, const struct scmp_arg_cmp *);
    int (*load)(scmp_filter_ctx);
    int (*resolve)(const char *);
};

static inline int ph_seccomp_open(struct seccomp_library *lib, char *error, size_t size) {
    void *handle = ph_dlopen("libseccomp.so.2", PH_RTLD_NOW | PH_RTLD_LOCAL);
    if (!handle) {
        ph_snprintf(error, size, "libseccomp.so.2 cannot be opened (%s)", ph_dlerror());
        return -1;
    }
    lib->init = (scmp_filter_ctx (*)(uint32_t))ph_dlsym(handle, "seccomp_init");
    lib->release = (void (*)(scmp_filter_ctx))ph_dlsym(handle, "seccomp_release");
    lib->rule_add_array = (int (*)(scmp_filter_ctx, uint32_t, int, unsigned int, const struct scmp_arg_cmp *))ph_dlsym(handle, "seccomp_rule_add_array");
    lib->load = (int (*)(scmp_filter_ctx))ph_dlsym(handle, "seccomp_load");
    lib->resolve = (int (*)(const char *))ph_dlsym(handle, "seccomp_syscall_resolve_name");
    if (!lib->init || !lib->release || !lib->rule_add_array || !lib->load || !lib->resolve) {
        ph_snprintf(error, size, "libseccomp.so.2 lacks a function it should have");
        return -1;
    }
    return 0;
}

/* Refuses `name` with EPERM when the arguments match `cmp` (all of them). */
static inline int ph_seccomp_refuse(struct seccomp_library *lib, scmp_filter_ctx ctx, const char *name, unsigned count, const struct scmp_arg_cmp *cmp,
                  char *error, size_t size) {
    int number = lib->resolve(name);
    if (number < 0) return 0; /* not a call on this architecture */
    int rc = lib->rule_add_array(ctx, SCMP_ACT_ERRNO(PH_EPERM), number, count, cmp);
    if (rc < 0) {
        ph_snprintf(error, size, "libseccomp refused the rule for %s (%s)", name, ph_strerror(-rc));
        return -1;
    }
    return 0;
}

/* Calls no plugin needs, and the ways out of the walls. */
static const char *const ph_seccomp_refused[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "mount", "umount2", "pivot_root", "chroot",
    "fsopen", "fsmount", "fsconfig", "fspick", "move_mount", "open_tree", "mount_setattr", "kexec_load",
    "kexec_file_load", "init_module", "finit_module", "delete_module", "bpf", "perf_event_open", "keyctl",
    "add_key", "request_key", "unshare", "setns", "personality", "swapon", "swapoff", "reboot", "acct",
    "quotactl", "syslog", "userfaultfd", "open_by_handle_at", "name_to_handle_at", "iopl", "ioperm",
    "lookup_dcookie", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
    "setdomainname", "vhangup",
    /* A ring's operations are out of a filter's reach: through it, a socket of any family, without `socket`. */
    "io_uring_setup", "io_uring_enter", "io_uring_register",
};

/* Whether libseccomp can be opened here (what `pushhost plugins` says). */
static inline int ph_seccomp_available(void) {
    struct seccomp_library lib;
    char error[256];
    return ph_seccomp_open(&lib, error, sizeof error) == 0;
}

static inline int ph_seccomp_load(const struct ph_seccomp_grants *grants, char *error, size_t size) {
    struct seccomp_library lib;
    if (ph_seccomp_open(&lib, error, size) < 0) return -1;
    scmp_filter_ctx ctx = lib.init(SCMP_ACT_ALLOW);
    if (!ctx) {
        ph_snprintf(error, size, "seccomp_init failed");
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof ph_seccomp_refused / sizeof *ph_seccomp_refused; i++) rc = ph_seccomp_refuse(&lib, ctx, ph_seccomp_refused[i], 0, (void *)0, error, size);
    /* Sockets by an allow-list of families: AF_INET (2) and AF_INET6 (10) when granted, nothing else. The rules compare all 64 bits of the argument, so a family with high bits set
     * is above 10, and refused. */
    for (size_t call = 0; rc == 0 && call < 2; call++) {
        const char *name = call == 0 ? "socket" : "socketpair";
        struct scmp_arg_cmp above[] = {{0, SCMP_CMP_GT, PH_AF_INET6, 0}};
        rc = ph_seccomp_refuse(&lib, ctx, name, 1, above, error, size);
        for (uint64_t family = 0; rc == 0 && family < PH_AF_INET6; family++) {
            if (family == PH_AF_INET && grants->inet) continue;
            struct scmp_arg_cmp one[] = {{0, SCMP_CMP_EQ, family, 0}};
            rc = ph_seccomp_refuse(&lib, ctx, name, 1, one, error, size);
        }
        if (rc == 0 && !grants->inet) {
            struct scmp_arg_cmp inet6[] = {{0, SCMP_CMP_EQ, PH_AF_INET6, 0}};
            rc = ph_seccomp_refuse(&lib, ctx, name, 1, inet6, error, size);
        }
    }
    /* Raw IP sockets, whatever else is granted. */
    struct scmp_arg_cmp raw4[] = {{0, SCMP_CMP_EQ, PH_AF_INET, 0}, {1, SCMP_CMP_MASKED_EQ, 0xf, PH_SOCK_RAW}};
    struct scmp_arg_cmp raw6[] = {{0, SCMP_CMP_EQ, PH_AF_INET6, 0}, {1, SCMP_CMP_MASKED_EQ, 0xf, PH_SOCK_RAW}};
    if (rc == 0) rc = ph_seccomp_refuse(&lib, ctx, "socket", 2, raw4, error, size);
    if (rc == 0) rc = ph_seccomp_refuse(&lib, ctx, "socket", 2, raw6, error, size);
    if (rc == 0 && !grants->exec) {
        /* A new thread is a clone with CLONE_THREAD; clone3's flags are out of a filter's reach, so it is
         * refused with ENOSYS, and the C library falls back to clone. */
        struct scmp_arg_cmp process[] = {{0, SCMP_CMP_MASKED_EQ, PH_CLONE_THREAD, 0}};
        const char *const spawning[] = {"fork", "vfork", "execve", "execveat"};
        for (size_t i = 0; rc == 0 && i < sizeof spawning / sizeof *spawning; i++) rc = ph_seccomp_refuse(&lib, ctx, spawning[i], 0, (void *)0, error, size);
        if (rc == 0) rc = ph_seccomp_refuse(&lib, ctx, "clone", 1, process, error, size);
        int clone3 = lib.resolve("clone3");
        if (rc == 0 && clone3 >= 0 && lib.rule_add_array(ctx, SCMP_ACT_ERRNO(PH_ENOSYS), clone3, 0, (void *)0) < 0) {
            ph_snprintf(error, size, "libseccomp refused the rule for clone3");
            rc = -1;
        }
    }
    if (rc == 0 && (rc = lib.load(ctx)) < 0) ph_snprintf(error, size, "seccomp_load failed (%s)", ph_strerror(-rc));
    lib.release(ctx);
    return rc < 0 ? -1 : 0;
}

/* How a worker is started (sandbox.c): with `walled`, in new user, PID
 * and mount namespaces (its ids mapped to the host's own, a /proc of its
 * own that holds only its processes), so that the first process there is
 * its init (ph_become_init) and the worker the second. */
struct ph_spawn {
    /* NULL: a probe, which ends once its namespaces are made. */
    const char *path;
    char *const *argv;
    char *const *envp;
    /* Descriptors put in place in order: from[i] becomes to[i] (the same number: kept open). */
    const int *from;
    const int *to;
    int count;
    /* Standard input /dev/null. */
    int stdin_null;
    int walled;
    /* The host's effective user and group ids. */
    unsigned uid, gid;
};

/* The steps of a start, as ph_spawn_start names the one that failed. */
enum {
    PH_SPAWN_CLONE = 1,
    PH_SPAWN_SETGROUPS,
    PH_SPAWN_UID_MAP,
    PH_SPAWN_GID_MAP,
    PH_SPAWN_PRIVATE_MOUNTS,
    PH_SPAWN_PROC,
    PH_SPAWN_DESCRIPTORS,
    PH_SPAWN_EXEC,
};

/* Starts it; its pid, or -1 with the step that failed and its errno. */
int ph_spawn_start(const struct ph_spawn *spawn, int *step, int *error);
const char *ph_spawn_step_name(int step);

/* [the first process of a walled worker's namespace] Forks: returns 0 in
 * the child, which goes on as the worker; the parent closes every
 * descriptor but `status_fd`, reaps, writes the worker's wait status (an
 * int) to `status_fd` when it ends, and exits. -1 when it cannot fork. */
int ph_become_init(int status_fd);

/* A bus connection handed from the host to a worker (sandbox.c): one
 * int32 `value` (0, or an errno) and, with it, the descriptor `fd`
 * (SCM_RIGHTS; none when fd is -1). Send: 0 or -1. Receive: the descriptor
 * (close-on-exec), -1 when none came, -2 when nothing whole did. */
int ph_send_descriptor(int socket, int32_t value, int fd);
int ph_receive_descriptor(int socket, int32_t *value);

#endif
