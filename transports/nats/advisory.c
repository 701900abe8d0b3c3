/*
 * advisory.c: whether a MAX_DELIVERIES advisory is believed, before sweep.c
 * dead-letters the record it names.
 *
 * The advisory subject is a subject like any other: a client that may
 * publish on $JS.EVENT.ADVISORY.> can write an advisory naming any record,
 * and the stream of the advisories keeps it as it keeps the server's own.
 * The operator denies that to every client (docs/nats.md). Here each
 * advisory is also checked against what the server itself says of the
 * record, and one that disagrees is not believed: the record is left alone
 * (no copy, not removed, delivered as any other), the advisory is dropped,
 * and a warning names the record's sequence and why.
 *
 * What is checked, in order:
 *
 *  - The advisory itself: one JSON object of type max_deliver, naming this
 *    stream and the consumer whose subject it came on, with stream_seq and
 *    deliveries whole numbers from 1. Nothing else of it is read, and none
 *    of its bytes reach a log line unescaped.
 *  - This instance's own records (settle.c): one it holds within its
 *    ack_wait is not stranded. The server delivered it here, with its
 *    delivery count in the delivery's reply subject, and answered after an
 *    InProgress for it within ack_wait: it has not given up on it.
 *  - The consumer's info (one request to the server): a consumer without a
 *    limit (max_deliver -1) gives up on no record; a record past the last
 *    one it delivered was never delivered. Above the consumer's ack floor,
 *    a stranded record is one it counts in num_redelivered (the records
 *    delivered again, or due to be, and not acked: nats-server 2.9.10 keeps
 *    a stranded record there after its advisory, also once the floor passed
 *    it); when it counts none, no record has run out of deliveries. At or
 *    below the floor that count is not used: a record there is acked or
 *    stranded, and a server that restores the consumer's state may drop the
 *    count of a stranded one there, which it will not advise of again.
 *
 * What the server does not say (2.9 tells counts and floors of a consumer,
 * nothing of one record): whether a record another client holds was
 * delivered fewer than max_deliver times. So an advisory naming a record
 * that another instance holds is believed while some other record of the
 * consumer was delivered again, and with limits retention so is one naming
 * a record acked already (sweep.c says why). Only the permissions keep
 * those out.
 *
 * After a server restart the consumer may count a stranded record as
 * pending again (measured: its num_redelivered 0 with max_deliver 1): an
 * advisory sent before is then not believed, and the server sends another
 * when it next tries to deliver the record, which is.
 */
#include "jetstream.h"

#include "../common/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char advisory_type[] = "io.nats.jetstream.advisory.v1.max_deliver";

/* A string value as it stands between its quotes (escapes not undone). */
typedef struct span {
    const char *at;
    size_t length;
} span;

/* The fields of an advisory this plugin reads. */
typedef struct advisory {
    span type, stream, consumer;
    uint64_t sequence, deliveries;
} advisory;

/* A JSON text being read: at, up to end. */
typedef struct reader {
    const char *at, *end;
} reader;

static void skip_space(reader *r) {
    while (r->at < r->end && (*r->at == ' ' || *r->at == '\t' || *r->at == '\n' || *r->at == '\r')) r->at++;
}

static bool take(reader *r, char c) {
    skip_space(r);
    if (r->at >= r->end || *r->at != c) return false;
    r->at++;
    return true;
}

/* A string (at its opening quote): its span. No control character; an
 * escape is stepped over, not undone. */
static bool read_string(reader *r, span *out) {
    if (!take(r, '"')) return false;
    out->at = r->at;
    for (; r->at < r->end && *r->at != '"'; r->at++) {
        if ((unsigned char)*r->at < 0x20) return false;
        if (*r->at == '\\' && ++r->at == r->end) return false;
    }
    if (r->at >= r->end) return false;
    out->length = (size_t)(r->at++ - out->at);
    return true;
}

/* A whole number from 1 (digits only, no sign, fraction or exponent). */
static bool read_count(reader *r, uint64_t *out) {
    skip_space(r);
    uint64_t value = 0;
    const char *start = r->at;
    for (; r->at < r->end && *r->at >= '0' && *r->at <= '9'; r->at++) {
        const uint64_t digit = (uint64_t)(*r->at - '0');
        if (value > (UINT64_MAX - digit) / 10) return false;
        value = value * 10 + digit;
    }
    if (r->at == start || *start == '0') return false;
    if (r->at < r->end && (*r->at == '.' || *r->at == 'e' || *r->at == 'E')) return false;
    *out = value;
    return true;
}

/* Any other value: the bytes up to the next comma or closing brace at this
 * depth, strings in them stepped over as strings. Loose: the shape of the
 * object around it is what matters. */
static bool skip_value(reader *r) {
    skip_space(r);
    const char *start = r->at;
    int depth = 0;
    while (r->at < r->end) {
        const char c = *r->at;
        if (c == '"') {
            span ignored;
            if (!read_string(r, &ignored)) return false;
            continue;
        }
        if ((c == ',' || c == '}' || c == ']') && depth == 0) break;
        if (c == '{' || c == '[') depth++;
        else if (c == '}' || c == ']') depth--;
        r->at++;
    }
    return r->at < r->end && r->at > start;
}

static bool named(span key, const char *name) {
    return key.length == strlen(name) && memcmp(key.at, name, key.length) == 0;
}

/* The bits of read_member's fields, once each has been read. */
static const unsigned every_field = 0x1f;

/* One member of the object: one of the advisory's fields, read once, or
 * any other member, skipped. */
static bool read_member(reader *r, advisory *a, unsigned *seen) {
    span key;
    if (!read_string(r, &key) || !take(r, ':')) return false;
    const struct {
        const char *name;
        span *text;
        uint64_t *count;
    } fields[] = {
        {"type", &a->type, NULL},          {"stream", &a->stream, NULL},        {"consumer", &a->consumer, NULL},
        {"stream_seq", NULL, &a->sequence}, {"deliveries", NULL, &a->deliveries},
    };
    for (unsigned i = 0; i < sizeof fields / sizeof *fields; i++) {
        if (!named(key, fields[i].name)) continue;
        if (*seen & (1u << i)) return false; /* twice: which one would the server have meant? */
        *seen |= 1u << i;
        return fields[i].text ? read_string(r, fields[i].text) : read_count(r, fields[i].count);
    }
    return skip_value(r);
}

/* The advisory's fields from its JSON text; false unless it is one object
 * holding each of them once, well formed. */
static bool read_advisory(const char *json, size_t length, advisory *a) {
    reader r = {json, json + length};
    unsigned seen = 0;
    if (!take(&r, '{')) return false;
    if (!take(&r, '}')) {
        do {
            if (!read_member(&r, a, &seen)) return false;
        } while (take(&r, ','));
        if (!take(&r, '}')) return false;
    }
    skip_space(&r);
    return r.at == r.end && seen == every_field;
}

/* Why advisory a is not one of consumer c's, or NULL. */
static const char *misnamed(jetstream_plugin *self, const jetstream_consumer *c, const advisory *a) {
    if (!named(a->type, advisory_type)) return "its type is not max_deliver";
    if (!named(a->stream, self->settings.stream)) return "it names another stream";
    if (!named(a->consumer, c->name)) return "it names another consumer than its subject";
    return NULL;
}

/* Logs that the advisory of consumer c for the record at sequence is not believed, and why. */
static void doubt(jetstream_plugin *self, const jetstream_consumer *c, uint64_t sequence, const char *why) {
    transport_log(self->host, PH_LOG_WARNING,
                  "a MAX_DELIVERIES advisory for %s sequence %llu (consumer %s) is not believed, and the record is left "
                  "alone: %s",
                  self->settings.stream, (unsigned long long)sequence, c->name, why);
}

/* Logs an advisory that cannot be read: its first bytes, escaped. */
static void unreadable(jetstream_plugin *self, const jetstream_consumer *c, const char *json, size_t length) {
    char *cut = strndup(json, length > 200 ? 200 : length);
    char *quoted = cut ? json_quote(cut) : NULL;
    transport_log(self->host, PH_LOG_WARNING,
                  "a MAX_DELIVERIES advisory (consumer %s) is not believed: it is not one JSON object holding type, "
                  "stream, consumer, stream_seq and deliveries once each: %s%s",
                  c->name, quoted ? quoted : "(out of memory)", length > 200 ? "..." : "");
    free(quoted);
    free(cut);
}

/* Whether this instance holds the record within its ack_wait; then why
 * the advisory is not believed, in why. */
static bool held_here(jetstream_plugin *self, const jetstream_consumer *c, uint64_t sequence, char *why, size_t size) {
    uint64_t deliveries = 0;
    if (!jetstream_holds(self, c, sequence, &deliveries)) return false;
    snprintf(why, size, "this instance holds it within its ack_wait, delivered %llu time%s of max_deliver %lld",
             (unsigned long long)deliveries, deliveries == 1 ? "" : "s", (long long)self->settings.max_deliver);
    return true;
}

/* What consumer c's info says of the record: why the advisory is not
 * believed in why (left empty when nothing disagrees); -1 when the server
 * did not answer (logged), else 0. */
static int consumer_says(jetstream_plugin *self, const jetstream_consumer *c, uint64_t sequence, char *why, size_t size) {
    jsConsumerInfo *info = NULL;
    jsErrCode code = 0;
    natsStatus status = js_GetConsumerInfo(&info, self->js, self->settings.stream, c->name, NULL, &code);
    if (status != NATS_OK) {
        transport_log(self->host, PH_LOG_WARNING,
                      "cannot read the consumer %s to check a MAX_DELIVERIES advisory for %s sequence %llu: %s "
                      "(JetStream error %d): trying again after ack_wait",
                      c->name, self->settings.stream, (unsigned long long)sequence, jetstream_error_text(status), (int)code);
        return -1;
    }
    if (info->Config->MaxDeliver <= 0)
        snprintf(why, size, "the consumer delivers each record without a limit (max_deliver %lld)",
                 (long long)info->Config->MaxDeliver);
    else if (sequence > info->Delivered.Stream)
        snprintf(why, size, "the consumer has delivered the records up to sequence %llu only",
                 (unsigned long long)info->Delivered.Stream);
    else if (sequence > info->AckFloor.Stream && info->NumRedelivered == 0)
        snprintf(why, size, "the consumer counts no record delivered again (num_redelivered 0), so none has run out of "
                            "deliveries");
    jsConsumerInfo_Destroy(info);
    return 0;
}

int jetstream_advisory_believed(jetstream_plugin *self, const jetstream_consumer *c, natsMsg *message,
                                uint64_t *sequence, uint64_t *deliveries) {
    const char *json = natsMsg_GetData(message) ? natsMsg_GetData(message) : "";
    const size_t length = (size_t)natsMsg_GetDataLength(message);
    advisory a = {0};
    if (!read_advisory(json, length, &a)) {
        unreadable(self, c, json, length);
        return 0;
    }
    char why[256] = "";
    const char *misnaming = misnamed(self, c, &a);
    if (misnaming) snprintf(why, sizeof why, "%s", misnaming);
    else if (!held_here(self, c, a.sequence, why, sizeof why) && consumer_says(self, c, a.sequence, why, sizeof why) < 0)
        return -1;
    if (*why) {
        doubt(self, c, a.sequence, why);
        return 0;
    }
    *sequence = a.sequence;
    *deliveries = a.deliveries;
    return 1;
}
