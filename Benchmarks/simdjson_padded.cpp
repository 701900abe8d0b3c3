// simdjson_padded.cpp: the throughput benchmark's limit. It reads what
// simdjson_fields.cpp reads of each message (data.rx_gcm_key_target,
// data.title, data.body, priority) with simdjson's DOM parser, without
// copying its input: standard input is read in large blocks into one
// buffer that keeps SIMDJSON_PADDING spare bytes past its end, lines are
// found with memchr, and each line is parsed where it lies, without the
// copy into a padded buffer that parse(pointer, length) makes otherwise
// (the bytes after a line are the next lines, or the spare bytes). A line
// cut by the end of a block moves to the front, once. At the end it writes
// "messages N bytes B" to the file its first argument names. With a second
// argument, --shapes, it reads the input of other shapes (Benchmarks/generate
// --shapes) as pushhost normalizes it: an FCM HTTP v1 message's fields are
// under "message", an APNs payload's data are the keys beside "aps", and
// the priority is the stated one ("high", or else normal), else high when
// there is a notification (an alert, for APNs), else normal.
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

// The four fields of a message of any shape --shapes names, their lengths added.
static size_t shaped(simdjson::dom::element message) {
    simdjson::dom::element inner;
    if (message["message"].get(inner) == simdjson::SUCCESS) message = inner;
    bool apns = message["aps"].error() == simdjson::SUCCESS;
    simdjson::dom::element data = message;
    if (!apns && message["data"].get(data) != simdjson::SUCCESS) return 0;
    size_t total = length(data["rx_gcm_key_target"]) + length(data["title"]) + length(data["body"]);
    std::string_view stated;
    bool high = !apns && message["priority"].get(stated) == simdjson::SUCCESS
        ? stated == "high"
        : (apns ? message["aps"]["alert"] : message["notification"]).error() == simdjson::SUCCESS;
    return total + (high ? 4 : 6);
}

int main(int argc, char **argv) {
    const bool shapes = argc > 2 && strcmp(argv[2], "--shapes") == 0;
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
                if (shapes) {
                    bytes += shaped(message);
                    start = newline + 1;
                    continue;
                }
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
