// simdjson_fields.cpp: the throughput benchmark's "simdjson copying" row (the
// limit is simdjson_padded.cpp). It reads NDJSON on
// standard input and, for each line, parses it with simdjson's DOM parser
// and reads what fields.c reads of each message (data.rx_gcm_key_target,
// data.title, data.body, priority), adding up their lengths so that no read
// can be left out. At the end it writes "messages N bytes B" to the file its
// one argument names, as the fields plugins do.
//
// Build: c++ -std=c++17 -O3 simdjson_fields.cpp -lsimdjson (Debian: libsimdjson-dev)
#include <simdjson.h>

#include <cstdio>
#include <string>
#include <string_view>

static size_t length(simdjson::simdjson_result<simdjson::dom::element> value) {
    std::string_view text;
    return value.get(text) == simdjson::SUCCESS ? text.size() : 0;
}

int main(int argc, char **argv) {
    simdjson::dom::parser parser;
    unsigned long long messages = 0, bytes = 0;
    char buffer[1 << 16];
    std::string pending;
    size_t count;
    // Lines split by hand from large reads, as pushhost's own reader does.
    while ((count = fread(buffer, 1, sizeof buffer, stdin)) > 0) {
        pending.append(buffer, count);
        size_t start = 0, end;
        while ((end = pending.find('\n', start)) != std::string::npos) {
            simdjson::dom::element message;
            if (parser.parse(pending.data() + start, end - start).get(message) == simdjson::SUCCESS) {
                messages++;
                auto data = message["data"];
                bytes += length(data["rx_gcm_key_target"]) + length(data["title"]) + length(data["body"]) +
                         length(message["priority"]);
            }
            start = end + 1;
        }
        pending.erase(0, start);
    }
    FILE *out = argc > 1 ? fopen(argv[1], "w") : nullptr;
    if (!out) return 1;
    fprintf(out, "messages %llu bytes %llu\n", messages, bytes);
    fclose(out);
    return 0;
}
