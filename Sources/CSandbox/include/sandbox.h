#ifndef PUSHHOST_SANDBOX_H
#define PUSHHOST_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

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

/* The Landlock ABI the kernel offers (1 and up), or -1. */
int ph_landlock_abi(void);
/* A ruleset that handles these rights and scopes: its descriptor. */
int ph_landlock_ruleset(uint64_t fs, uint64_t net, uint64_t scoped);
/* Grants `access` beneath the open file or folder `fd`. */
int ph_landlock_allow_path(int ruleset, int fd, uint64_t access);
/* Grants `access` on TCP port `port`. */
int ph_landlock_allow_port(int ruleset, uint64_t port, uint64_t access);
/* Puts the ruleset on this process (no new privileges must be set first). */
int ph_landlock_restrict(int ruleset);

/* PR_SET_NO_NEW_PRIVS: nothing this process executes gains privileges. */
int ph_no_new_privs(void);

/* What the seccomp filter lets through beside the default. */
struct ph_seccomp_grants {
    int exec;     /* fork, vfork, clone without CLONE_THREAD, execve */
    int inet;     /* AF_INET and AF_INET6 sockets */
    int unix_sockets; /* new AF_UNIX sockets (a bus), socketpair */
};

/* Loads the filter through libseccomp (opened at run time, so that the host
 * builds without its headers). Refused calls fail with EPERM. On failure
 * `error` says why. */
int ph_seccomp_load(const struct ph_seccomp_grants *grants, char *error, size_t size);

#endif
