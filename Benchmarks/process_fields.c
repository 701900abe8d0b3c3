/* The C side of Benchmarks/throughput's process rows: a program that speaks
 * the process plugins' protocol (docs/process-plugins.md) as a small C
 * program would, with no JSON library: for each data call it finds the
 * call's id and the message's target, data.title, data.body and priority
 * by their keys, adds up their lengths (as written: the benchmark's values
 * hold no escapes), and answers {"id":N,"verdict":"continue"}. It reads its
 * calls in chunks and writes the answers of a chunk at once. At the end of
 * its input it writes "messages N bytes B" to the file its first argument
 * names. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long long messages, bytes;

/* The length of the string value of "key": within [line, end), 0 when absent. */
static size_t value_length(const char *line, const char *end, const char *key) {
    size_t key_length = strlen(key);
    const char *at = memmem(line, (size_t)(end - line), key, key_length);
    if (!at) return 0;
    const char *start = at + key_length;
    const char *close = memchr(start, '"', (size_t)(end - start));
    return close ? (size_t)(close - start) : 0;
}

static int write_all(const char *bytes, size_t count) {
    while (count > 0) {
        ssize_t written = write(1, bytes, count);
        if (written <= 0) return -1;
        bytes += written;
        count -= (size_t)written;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    static char in[1 << 20], out[1 << 20];
    size_t held = 0;
    if (write_all("{\"pushhost\":1}\n", 15) != 0) return 1;
    for (;;) {
        ssize_t count = read(0, in + held, sizeof in - held);
        if (count <= 0) break;
        held += (size_t)count;
        size_t used = 0, answered = 0;
        char *line = in;
        char *newline;
        while ((newline = memchr(line, '\n', (size_t)(in + held - line)))) {
            unsigned long long id = strtoull(line + 6, NULL, 10); /* {"id":N,... */
            const char *message = memmem(line, (size_t)(newline - line), "\"message\":", 10);
            const char *start = message ? message : line;
            messages++;
            bytes += value_length(start, newline, "\"target\":\"") + value_length(start, newline, "\"title\":\"") +
                     value_length(start, newline, "\"body\":\"") + value_length(start, newline, "\"priority\":\"");
            answered += (size_t)snprintf(out + answered, sizeof out - answered, "{\"id\":%llu,\"verdict\":\"continue\"}\n", id);
            line = newline + 1;
            if (sizeof out - answered < 64) {
                if (write_all(out, answered) != 0) return 1;
                answered = 0;
            }
        }
        used = (size_t)(line - in);
        if (answered && write_all(out, answered) != 0) return 1;
        memmove(in, line, held - used);
        held -= used;
    }
    FILE *file = fopen(argv[1], "w");
    if (!file) return 1;
    fprintf(file, "messages %llu bytes %llu\n", messages, bytes);
    return fclose(file) == 0 ? 0 : 1;
}
