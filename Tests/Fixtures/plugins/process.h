/* Which process a test plugin runs in, as the tests compare it with the
 * host's pid: process_id() and parent_id().
 *
 * A walled worker runs in a PID namespace of its own, where it is always
 * process 2 and its parent process 1 (the process that stands in for it).
 * There, the process is named by a random number drawn once (above any
 * pid: bit 30 set), and its parent by the host that started it (the
 * `--host PID` of its command line). Elsewhere, both are the pids. */
#ifndef PROCESS_H
#define PROCESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Whether this is a worker in namespaces of its own. */
static int in_own_namespace(void) { return getpid() == 2 && getppid() == 1; }

static long process_id(void) {
    if (!in_own_namespace()) return (long)getpid();
    static long drawn;
    if (!drawn) {
        unsigned long bits = 0;
        FILE *random = fopen("/dev/urandom", "r");
        if (!random || fread(&bits, sizeof bits, 1, random) != 1) bits = (unsigned long)time(NULL);
        if (random) fclose(random);
        drawn = (long)((bits & 0x3fffffffUL) | 0x40000000UL);
    }
    return drawn;
}

static long parent_id(void) {
    if (!in_own_namespace()) return (long)getppid();
    FILE *cmdline = fopen("/proc/self/cmdline", "r");
    if (!cmdline) return -1;
    char word[256];
    long host = -1;
    int next = 0, length = 0, c;
    while ((c = fgetc(cmdline)) != EOF) {
        if (c != 0) {
            if (length < (int)sizeof word - 1) word[length++] = (char)c;
            continue;
        }
        word[length] = 0;
        if (next) host = atol(word);
        next = strcmp(word, "--host") == 0;
        length = 0;
    }
    fclose(cmdline);
    return host;
}

#endif
