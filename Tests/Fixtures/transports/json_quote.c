/*
 * json_quote.c: runs transports/common/json.h's json_quote (which the
 * transports and the sample plugins write JSON strings with) on the
 * standard input: each NUL-terminated string in it, quoted, on a line of
 * its own.
 */
#include "../../../transports/common/json.h"

int main(void) {
    size_t length = 0, capacity = 1024;
    char *input = malloc(capacity);
    for (int c; input && (c = getchar()) != EOF; input[length++] = (char)c) {
        if (length + 1 < capacity) continue;
        char *larger = realloc(input, capacity *= 2);
        if (!larger) return 1;
        input = larger;
    }
    if (!input) return 1;
    input[length] = '\0';
    for (char *at = input; at < input + length; at += strlen(at) + 1) {
        char *quoted = json_quote(at);
        if (!quoted) return 1;
        puts(quoted);
        free(quoted);
    }
    free(input);
    return 0;
}
