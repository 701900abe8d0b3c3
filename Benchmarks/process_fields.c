/* The C side of Benchmarks/throughput's process rows: a program that speaks
 * the process plugins' protocol (docs/process-plugins.md) as a small C
 * program would, with no JSON library: for each data call it reads the
 * call's id, then walks the message's strings once, from quote to quote,
 * and adds up the lengths of the first values of target, title, body and
 * priority (as written: the benchmark's values hold no escapes), and
 * answers {"id":N,"verdict":"continue"}. It reads its calls in chunks and
 * writes the answers of a chunk at once. At the end of its input it writes
 * "messages N bytes B" to the file its first argument names. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static unsigned long long messages, bytes;

/* The key of the string between `start` and `end`: a bit for each of the
 * four read, 0 for any other. */
static unsigned field_bit(const char *start, size_t length) {
    switch (length) {
    case 4: return memcmp(start, "body", 4) == 0 ? 4 : 0;
    case 5: return memcmp(start, "title", 5) == 0 ? 2 : 0;
    case 6: return memcmp(start, "target", 6) == 0 ? 1 : 0;
    case 8: return memcmp(start, "priority", 8) == 0 ? 8 : 0;
    default: return 0;
    }
}

/* The lengths of the four fields' string values in [at, end), added up:
 * each key's first value counts. */
static size_t field_lengths(const char *at, const char *end) {
    size_t sum = 0;
    unsigned seen = 0;
    const char *quote;
    while (seen != 15 && (quote = memchr(at, '"', (size_t)(end - at)))) {
        const char *start = quote + 1;
        const char *close = memchr(start, '"', (size_t)(end - start));
        if (!close || end - close < 3) break;
        at = close + 1;
        if (close[1] != ':' || close[2] != '"') continue; /* a string value, or a key of another kind of value */
        const char *value = close + 3;
        const char *value_end = memchr(value, '"', (size_t)(end - value));
        if (!value_end) break;
        at = value_end + 1;
        unsigned bit = field_bit(start, (size_t)(close - start));
        if (bit & ~seen) {
            seen |= bit;
            sum += (size_t)(value_end - value);
        }
    }
    return sum;
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
            /* {"id":N,... : the answer repeats N's digits. */
            const char *digits = line + 6;
            char *after;
            strtoull(digits, &after, 10);
            size_t length = (size_t)(after - digits);
            messages++;
            bytes += field_lengths(after, newline);
            memcpy(out + answered, "{\"id\":", 6);
            memcpy(out + answered + 6, digits, length);
            memcpy(out + answered + 6 + length, ",\"verdict\":\"continue\"}\n", 23);
            answered += 6 + length + 23;
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
