// simdjson_padded.cpp: the throughput benchmark's limit. It reads what
// simdjson_fields.cpp reads of each message (data.rx_gcm_key_target,
// data.title, data.body, priority) with simdjson's DOM parser, without
// copying its input: standard input is read in large blocks into one
// buffer that keeps SIMDJSON_PADDING spare bytes past its end, lines are
// found with memchr, and each line is parsed where it lies, without the
// copy into a padded buffer that parse(pointer, length) makes otherwise
// (the bytes after a line are the next lines, or the spare bytes). A line
// cut by the end of a block moves to the front, once. At the end it writes
// "messages N bytes B" to the file its one argument names.
//
// Build: c++ -std=c++17 -O3 simdjson_padded.cpp -lsimdjson (Debian: libsimdjson-dev)
#include <simdjson.h>

#include <cstdio>
#include <cstring>
#include <string_view>
#include <unistd.h>
#include <vector>

static size_t length(simdjson::simdjson_result<simdjson::dom::element> value) {
    std::string_view text;
    return value.get(text) == simdjson::SUCCESS ? text.size() : 0;
}

int main(int argc, char **argv) {
    simdjson::dom::parser parser;
    unsigned long long messages = 0, bytes = 0;
    const size_t block = 1 << 20;
    std::vector<char> buffer(2 * block + simdjson::SIMDJSON_PADDING);
    size_t held = 0;
    for (;;) {
        if (buffer.size() - simdjson::SIMDJSON_PADDING - held < block) {
            // A line longer than a block: room for it.
            buffer.resize(held + block + simdjson::SIMDJSON_PADDING);
        }
        ssize_t count = read(0, buffer.data() + held, block);
        if (count <= 0) break;
        held += size_t(count);
        const char *start = buffer.data(), *end = buffer.data() + held;
        const char *newline;
        while ((newline = static_cast<const char *>(memchr(start, '\n', size_t(end - start))))) {
            simdjson::dom::element message;
            if (parser.parse(start, size_t(newline - start), false).get(message) == simdjson::SUCCESS) {
                messages++;
                auto data = message["data"];
                bytes += length(data["rx_gcm_key_target"]) + length(data["title"]) + length(data["body"]) +
                         length(message["priority"]);
            }
            start = newline + 1;
        }
        held = size_t(end - start);
        memmove(buffer.data(), start, held);
    }
    FILE *out = argc > 1 ? fopen(argv[1], "w") : nullptr;
    if (!out) return 1;
    fprintf(out, "messages %llu bytes %llu\n", messages, bytes);
    fclose(out);
    return 0;
}
