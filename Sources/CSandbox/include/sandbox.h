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

/* The constants it needs, as Linux and glibc number them on every architecture. */
#define PH_NR_LANDLOCK_CREATE_RULESET 444
#define PH_NR_LANDLOCK_ADD_RULE 445
#define PH_NR_LANDLOCK_RESTRICT_SELF 446
#define PH_PR_SET_NO_NEW_PRIVS 38
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

/* Each function returns 0 or a file descriptor, or -1 with errno set.
 * The Landlock and capability calls are inline, as Swift calls them.
 *
 * ph_landlock_abi: the Landlock ABI the kernel offers (1 and up), or -1.
 * ph_landlock_ruleset: a ruleset that handles these rights and scopes.
 * ph_landlock_allow_path: grants `access` beneath the open file or folder `fd`.
 * ph_landlock_allow_port: grants `access` on TCP port `port`.
 * ph_landlock_restrict: puts the ruleset on this process (after ph_no_new_privs).
 * ph_no_new_privs: PR_SET_NO_NEW_PRIVS, nothing this process runs gains privileges.
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

/* The seccomp filter (seccomp.c), built with libseccomp opened at run
 * time, so that the host builds without its headers. */
struct ph_seccomp_grants {
    int exec; /* fork, vfork, clone without CLONE_THREAD, execve */
    int inet; /* AF_INET and AF_INET6 stream and datagram sockets */
};

/* Whether libseccomp can be opened here (what `pushhost plugins` says). */
int ph_seccomp_available(void);

/* Loads the filter: an allow-list (what C and Swift plugins call, by name;
 * any other call fails with ENOSYS, the answer for a call the kernel does
 * not have, so that a C library falls back), and the calls that lead out of
 * the walls refused with EPERM. 0, or -1 with `error` saying why. */
int ph_seccomp_load(const struct ph_seccomp_grants *grants, char *error, size_t size);

/* Of the calls of this architecture libseccomp knows, how many the filter
 * allows, refuses with EPERM, allows or refuses by grant and argument
 * (socket, clone, fork, vfork, execve, execveat), and leaves to its default
 * (ENOSYS): the figures docs/running.md gives. */
struct ph_seccomp_counts {
    int allowed, refused, granted, other;
};
struct ph_seccomp_counts ph_seccomp_count(void);

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

/* A descriptor (close-on-exec) that polls readable once the child `pid`
 * ended, or -1 where the kernel has no pidfd_open (before Linux 5.3). */
int ph_pidfd_open(int pid);

#endif
