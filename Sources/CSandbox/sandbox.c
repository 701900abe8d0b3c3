#define _GNU_SOURCE
#include "sandbox.h"

#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

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

int ph_landlock_abi(void) {
    return (int)syscall(__NR_landlock_create_ruleset, NULL, 0, 1 /* LANDLOCK_CREATE_RULESET_VERSION */);
}

int ph_landlock_ruleset(uint64_t fs, uint64_t net, uint64_t scoped) {
    struct ph_ruleset_attr attr = {fs, net, scoped};
    /* An older ABI knows a shorter structure. */
    size_t size = scoped ? sizeof attr : net ? offsetof(struct ph_ruleset_attr, scoped) : sizeof(uint64_t);
    return (int)syscall(__NR_landlock_create_ruleset, &attr, size, 0);
}

int ph_landlock_allow_path(int ruleset, int fd, uint64_t access) {
    struct ph_path_beneath rule = {access, fd};
    return (int)syscall(__NR_landlock_add_rule, ruleset, 1 /* LANDLOCK_RULE_PATH_BENEATH */, &rule, 0);
}

int ph_landlock_allow_port(int ruleset, uint64_t port, uint64_t access) {
    struct ph_net_port rule = {access, port};
    return (int)syscall(__NR_landlock_add_rule, ruleset, 2 /* LANDLOCK_RULE_NET_PORT */, &rule, 0);
}

int ph_landlock_restrict(int ruleset) {
    return (int)syscall(__NR_landlock_restrict_self, ruleset, 0);
}

int ph_no_new_privs(void) {
    return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
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
#define SCMP_CMP_MASKED_EQ 7

struct seccomp_library {
    scmp_filter_ctx (*init)(uint32_t);
    void (*release)(scmp_filter_ctx);
    int (*rule_add_array)(scmp_filter_ctx, uint32_t, int, unsigned int, const struct scmp_arg_cmp *);
    int (*load)(scmp_filter_ctx);
    int (*resolve)(const char *);
};

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
    if (!lib->init || !lib->release || !lib->rule_add_array || !lib->load || !lib->resolve) {
        snprintf(error, size, "libseccomp.so.2 lacks a function it should have");
        return -1;
    }
    return 0;
}

/* Refuses `name` with EPERM when the arguments match `cmp` (all of them). */
static int refuse(struct seccomp_library *lib, scmp_filter_ctx ctx, const char *name, unsigned count, const struct scmp_arg_cmp *cmp,
                  char *error, size_t size) {
    int number = lib->resolve(name);
    if (number < 0) return 0; /* not a call on this architecture */
    int rc = lib->rule_add_array(ctx, SCMP_ACT_ERRNO(EPERM), number, count, cmp);
    if (rc < 0) {
        snprintf(error, size, "libseccomp refused the rule for %s (%s)", name, strerror(-rc));
        return -1;
    }
    return 0;
}

/* Calls no plugin needs, and the ways out of the walls. */
static const char *const refused[] = {
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "mount", "umount2", "pivot_root", "chroot",
    "fsopen", "fsmount", "fsconfig", "fspick", "move_mount", "open_tree", "mount_setattr", "kexec_load",
    "kexec_file_load", "init_module", "finit_module", "delete_module", "bpf", "perf_event_open", "keyctl",
    "add_key", "request_key", "unshare", "setns", "personality", "swapon", "swapoff", "reboot", "acct",
    "quotactl", "syslog", "userfaultfd", "open_by_handle_at", "name_to_handle_at", "iopl", "ioperm",
    "lookup_dcookie", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "sethostname",
    "setdomainname", "vhangup",
};

int ph_seccomp_load(const struct ph_seccomp_grants *grants, char *error, size_t size) {
    struct seccomp_library lib;
    if (open_library(&lib, error, size) < 0) return -1;
    scmp_filter_ctx ctx = lib.init(SCMP_ACT_ALLOW);
    if (!ctx) {
        snprintf(error, size, "seccomp_init failed");
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < sizeof refused / sizeof *refused; i++) rc = refuse(&lib, ctx, refused[i], 0, NULL, error, size);
    /* Raw and packet sockets, whatever else is granted. */
    struct scmp_arg_cmp packet[] = {{0, SCMP_CMP_EQ, AF_PACKET, 0}};
    struct scmp_arg_cmp raw4[] = {{0, SCMP_CMP_EQ, AF_INET, 0}, {1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW}};
    struct scmp_arg_cmp raw6[] = {{0, SCMP_CMP_EQ, AF_INET6, 0}, {1, SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW}};
    if (rc == 0) rc = refuse(&lib, ctx, "socket", 1, packet, error, size);
    if (rc == 0) rc = refuse(&lib, ctx, "socket", 2, raw4, error, size);
    if (rc == 0) rc = refuse(&lib, ctx, "socket", 2, raw6, error, size);
    if (rc == 0 && !grants->inet) {
        struct scmp_arg_cmp inet4[] = {{0, SCMP_CMP_EQ, AF_INET, 0}};
        struct scmp_arg_cmp inet6[] = {{0, SCMP_CMP_EQ, AF_INET6, 0}};
        rc = refuse(&lib, ctx, "socket", 1, inet4, error, size);
        if (rc == 0) rc = refuse(&lib, ctx, "socket", 1, inet6, error, size);
    }
    if (rc == 0 && !grants->unix_sockets) {
        struct scmp_arg_cmp local[] = {{0, SCMP_CMP_EQ, AF_UNIX, 0}};
        rc = refuse(&lib, ctx, "socket", 1, local, error, size);
        if (rc == 0) rc = refuse(&lib, ctx, "socketpair", 1, local, error, size);
    }
    if (rc == 0 && !grants->exec) {
        /* A new thread is a clone with CLONE_THREAD; clone3's flags are out of a filter's reach, so it is
         * refused with ENOSYS, and the C library falls back to clone. */
        struct scmp_arg_cmp process[] = {{0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0}};
        const char *const spawning[] = {"fork", "vfork", "execve", "execveat"};
        for (size_t i = 0; rc == 0 && i < sizeof spawning / sizeof *spawning; i++) rc = refuse(&lib, ctx, spawning[i], 0, NULL, error, size);
        if (rc == 0) rc = refuse(&lib, ctx, "clone", 1, process, error, size);
        int clone3 = lib.resolve("clone3");
        if (rc == 0 && clone3 >= 0 && lib.rule_add_array(ctx, SCMP_ACT_ERRNO(ENOSYS), clone3, 0, NULL) < 0) {
            snprintf(error, size, "libseccomp refused the rule for clone3");
            rc = -1;
        }
    }
    if (rc == 0 && (rc = lib.load(ctx)) < 0) snprintf(error, size, "seccomp_load failed (%s)", strerror(-rc));
    lib.release(ctx);
    return rc < 0 ? -1 : 0;
}
