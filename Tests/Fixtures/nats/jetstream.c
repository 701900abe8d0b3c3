/*
 * jetstream.c: the test's and the benchmark's side of a JetStream stream,
 * with the NATS C client (libnats).
 *
 *   jetstream publish URL SUBJECT [PAUSE_US]
 *                                   each line of stdin, published and stored
 *                                   (SUBJECT "-": each line is "SUBJECT JSON");
 *                                   "@NOW@" in a line becomes the time in ns
 *                                   (CLOCK_REALTIME) just before it is sent;
 *                                   PAUSE_US: a pause after each
 *   jetstream pub URL SUBJECT      each line of stdin published with core NATS,
 *                                   as any client may, waiting for no stream;
 *                                   exit 1 with the server's reason when it
 *                                   refused one (a permissions violation)
 *   jetstream consume URL STREAM CONSUMER N BATCH
 *                                   pulls N records, BATCH at a time, and acks
 *                                   each: what a client does without pushhost;
 *                                   for a record whose id was stamped
 *                                   ("ID-NS"), prints the ns since the stamp
 *   jetstream dump URL STREAM       each stored message as one JSON line:
 *                                   {"sequence","subject","headers":{},"data"}
 *   jetstream delete URL STREAM CONSUMER
 *                                   deletes the consumer, as an operator might
 *   jetstream info URL STREAM CONSUMER
 *                                   {"messages","pending","ack_pending","redelivered","delivered"}:
 *                                   delivered counts every delivery, redeliveries too
 *   jetstream stream URL STREAM SUBJECT workqueue|limits
 *                                   creates the stream (file storage) with that
 *                                   retention, as an operator might
 *   jetstream fetch URL STREAM CONSUMER BATCH WAIT_MS
 *                                   one pull of at most BATCH records, waiting
 *                                   at most WAIT_MS, settling none (as a client
 *                                   that dies would); each fetched record as
 *                                   {"sequence","deliveries","data"}
 *   jetstream floor URL STREAM CONSUMER
 *                                   the consumer's delivered and ack floor
 *                                   sequences, as {"delivered","ack_floor"}
 *                                   (stream sequences) and "ack_pending"
 *
 * With JETSTREAM_TLS_CA (a CA file) it connects over TLS, with
 * JETSTREAM_TLS_CERT and JETSTREAM_TLS_KEY as a client certificate, and
 * with JETSTREAM_USER and JETSTREAM_PASSWORD as that user.
 *
 * Exit 0, or 1 with the reason on stderr.
 */
#define _GNU_SOURCE
#define _DEFAULT_SOURCE
#include <nats/nats.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what, natsStatus status) {
    const char *last = nats_GetLastError(NULL);
    fprintf(stderr, "jetstream: %s: %s\n", what, last && *last ? last : natsStatus_GetText(status));
    return 1;
}

static void print_quoted(const char *s, int length) {
    putchar('"');
    for (int i = 0; i < length; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

/* Replaces the first @NOW@ of line with the time in ns; the new line, or line. */
static char *stamped(char *line) {
    char *mark = strstr(line, "@NOW@");
    if (!mark) return line;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    char *out = NULL;
    if (asprintf(&out, "%.*s%lld%s", (int)(mark - line), line, (long long)now.tv_sec * 1000000000LL + now.tv_nsec,
                 mark + 5) < 0)
        return line;
    return out;
}

/* Publishes the server did not store (no stream holds the subject, a timeout). */
static int not_stored;

static void on_publish_error(jsCtx *js, jsPubAckErr *error, void *closure) {
    (void)js;
    (void)closure;
    if (not_stored++ == 0) fprintf(stderr, "jetstream: not stored: %s\n", error->ErrText ? error->ErrText : "unknown error");
}

static int publish(jsCtx *js, const char *subject, long pause_us) {
    char *line = NULL;
    size_t size = 0;
    ssize_t length;
    while ((length = getline(&line, &size, stdin)) > 0) {
        if (line[length - 1] == '\n') line[--length] = '\0';
        if (length == 0) continue;
        const char *to = subject;
        char *body = line;
        if (strcmp(subject, "-") == 0) {
            char *space = strchr(line, ' ');
            if (!space) return fail("a line without SUBJECT", NATS_INVALID_ARG);
            *space = '\0';
            to = line;
            body = space + 1;
        }
        char *data = stamped(body);
        natsStatus status = js_PublishAsync(js, to, data, (int)strlen(data), NULL);
        if (data != body) free(data);
        if (status != NATS_OK) return fail("publish", status);
        if (pause_us > 0) usleep((useconds_t)pause_us);
    }
    free(line);
    jsPubOptions options;
    jsPubOptions_Init(&options);
    options.MaxWait = 30000;
    natsStatus status = js_PublishAsyncComplete(js, &options);
    if (status != NATS_OK) return fail("publish (waiting for the acks)", status);
    if (not_stored) fprintf(stderr, "jetstream: %d messages were not stored\n", not_stored);
    return not_stored ? 1 : 0;
}

static int core_publish(natsConnection *connection, const char *subject) {
    char *line = NULL;
    size_t size = 0;
    ssize_t length;
    natsStatus status = NATS_OK;
    while (status == NATS_OK && (length = getline(&line, &size, stdin)) > 0) {
        if (line[length - 1] == '\n') line[--length] = '\0';
        if (length) status = natsConnection_Publish(connection, subject, line, (int)length);
    }
    free(line);
    /* The server answers a PING after what came before: a refusal has come by then. */
    if (status == NATS_OK) status = natsConnection_Flush(connection);
    if (status != NATS_OK) return fail("pub", status);
    const char *reason = NULL;
    if (natsConnection_GetLastError(connection, &reason) == NATS_OK) return 0;
    fprintf(stderr, "jetstream: pub: %s\n", reason && *reason ? reason : "refused");
    return 1;
}

static void print_headers(natsMsg *msg) {
    const char **keys = NULL;
    int count = 0;
    printf("\"headers\":{");
    if (natsMsgHeader_Keys(msg, &keys, &count) == NATS_OK) {
        for (int i = 0; i < count; i++) {
            const char *value = "";
            natsMsgHeader_Get(msg, keys[i], &value);
            if (i) putchar(',');
            print_quoted(keys[i], (int)strlen(keys[i]));
            putchar(':');
            print_quoted(value, (int)strlen(value));
        }
        free((void *)keys);
    }
    putchar('}');
}

static int dump(jsCtx *js, const char *stream) {
    jsStreamInfo *info = NULL;
    natsStatus status = js_GetStreamInfo(&info, js, stream, NULL, NULL);
    if (status != NATS_OK) return fail("stream info", status);
    uint64_t first = info->State.FirstSeq, last = info->State.LastSeq;
    jsStreamInfo_Destroy(info);
    for (uint64_t sequence = first; sequence && sequence <= last; sequence++) {
        natsMsg *msg = NULL;
        if (js_GetMsg(&msg, js, stream, sequence, NULL, NULL) != NATS_OK) continue; /* deleted */
        printf("{\"sequence\":%llu,\"subject\":", (unsigned long long)sequence);
        print_quoted(natsMsg_GetSubject(msg), (int)strlen(natsMsg_GetSubject(msg)));
        putchar(',');
        print_headers(msg);
        printf(",\"data\":");
        print_quoted(natsMsg_GetData(msg) ? natsMsg_GetData(msg) : "", natsMsg_GetDataLength(msg));
        printf("}\n");
        natsMsg_Destroy(msg);
    }
    return 0;
}

/* For {"message_id":"NAME-N-STAMP",...}: now - STAMP in ns, on a line. */
static void print_latency(natsMsg *msg) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    const char *data = natsMsg_GetData(msg), *id = data ? strstr(data, "\"message_id\":\"") : NULL;
    const char *end = id ? strchr(id + 14, '"') : NULL;
    if (!end) return;
    const char *dash = end;
    while (dash > id && dash[-1] != '-') dash--;
    long long stamp = atoll(dash);
    if (dash > id + 14 && stamp > 0) printf("%lld\n", (long long)now.tv_sec * 1000000000LL + now.tv_nsec - stamp);
}

/* A pull subscription bound to the durable consumer of stream. */
static natsStatus bind_pull(natsSubscription **sub, jsCtx *js, const char *stream, const char *consumer) {
    jsSubOptions bind;
    jsSubOptions_Init(&bind);
    bind.Stream = stream;
    bind.Consumer = consumer;
    return js_PullSubscribe(sub, js, "", consumer, NULL, &bind, NULL);
}

static int consume(natsConnection *connection, jsCtx *js, const char *stream, const char *consumer, long count,
                   int batch) {
    natsSubscription *sub = NULL;
    natsStatus status = bind_pull(&sub, js, stream, consumer);
    if (status != NATS_OK) return fail("pull", status);
    for (long got = 0; got < count;) {
        natsMsgList list = {0};
        status = natsSubscription_Fetch(&list, sub, batch, 5000, NULL);
        if (status != NATS_OK) return fail("fetch", status);
        for (int i = 0; i < list.Count; i++, got++) {
            print_latency(list.Msgs[i]);
            natsMsg_Ack(list.Msgs[i], NULL);
        }
        natsMsgList_Destroy(&list);
    }
    natsConnection_Flush(connection);
    natsSubscription_Destroy(sub);
    return 0;
}

static int info(jsCtx *js, const char *stream, const char *consumer) {
    jsStreamInfo *si = NULL;
    natsStatus status = js_GetStreamInfo(&si, js, stream, NULL, NULL);
    if (status != NATS_OK) return fail("stream info", status);
    jsConsumerInfo *ci = NULL;
    status = js_GetConsumerInfo(&ci, js, stream, consumer, NULL, NULL);
    if (status != NATS_OK) return fail("consumer info", status);
    printf("{\"messages\":%llu,\"pending\":%llu,\"ack_pending\":%lld,\"redelivered\":%lld,\"delivered\":%llu}\n",
           (unsigned long long)si->State.Msgs, (unsigned long long)ci->NumPending, (long long)ci->NumAckPending,
           (long long)ci->NumRedelivered, (unsigned long long)ci->Delivered.Consumer);
    jsStreamInfo_Destroy(si);
    jsConsumerInfo_Destroy(ci);
    return 0;
}

static int make_stream(jsCtx *js, const char *stream, const char *subject, const char *retention) {
    jsStreamConfig config;
    jsStreamConfig_Init(&config);
    const char *subjects[] = {subject};
    config.Name = stream;
    config.Subjects = subjects;
    config.SubjectsLen = 1;
    config.Storage = js_FileStorage;
    if (strcmp(retention, "workqueue") == 0) config.Retention = js_WorkQueuePolicy;
    else if (strcmp(retention, "limits") == 0) config.Retention = js_LimitsPolicy;
    else return fail("retention is workqueue or limits", NATS_INVALID_ARG);
    jsStreamInfo *info = NULL;
    natsStatus status = js_AddStream(&info, js, &config, NULL, NULL);
    jsStreamInfo_Destroy(info);
    return status == NATS_OK ? 0 : fail("add stream", status);
}

static int fetch(jsCtx *js, const char *stream, const char *consumer, int batch, long wait_ms) {
    natsSubscription *sub = NULL;
    natsStatus status = bind_pull(&sub, js, stream, consumer);
    if (status != NATS_OK) return fail("pull", status);
    natsMsgList list = {0};
    status = natsSubscription_Fetch(&list, sub, batch, wait_ms, NULL);
    if (status != NATS_OK && status != NATS_TIMEOUT) return fail("fetch", status);
    for (int i = 0; i < list.Count; i++) {
        jsMsgMetaData *meta = NULL;
        natsMsg_GetMetaData(&meta, list.Msgs[i]);
        printf("{\"sequence\":%llu,\"deliveries\":%llu,\"data\":", meta ? (unsigned long long)meta->Sequence.Stream : 0ULL,
               meta ? (unsigned long long)meta->NumDelivered : 0ULL);
        print_quoted(natsMsg_GetData(list.Msgs[i]) ? natsMsg_GetData(list.Msgs[i]) : "", natsMsg_GetDataLength(list.Msgs[i]));
        printf("}\n");
        jsMsgMetaData_Destroy(meta);
    }
    natsMsgList_Destroy(&list);
    natsSubscription_Destroy(sub);
    return 0;
}

static int floor_of(jsCtx *js, const char *stream, const char *consumer) {
    jsConsumerInfo *ci = NULL;
    natsStatus status = js_GetConsumerInfo(&ci, js, stream, consumer, NULL, NULL);
    if (status != NATS_OK) return fail("consumer info", status);
    printf("{\"delivered\":%llu,\"ack_floor\":%llu,\"ack_pending\":%lld}\n", (unsigned long long)ci->Delivered.Stream,
           (unsigned long long)ci->AckFloor.Stream, (long long)ci->NumAckPending);
    jsConsumerInfo_Destroy(ci);
    return 0;
}

/* Connects to url, as the environment says (TLS, a user). */
static natsStatus connect_to(natsConnection **connection, const char *url) {
    natsOptions *o = NULL;
    natsStatus status = natsOptions_Create(&o);
    const char *ca = getenv("JETSTREAM_TLS_CA"), *cert = getenv("JETSTREAM_TLS_CERT"), *key = getenv("JETSTREAM_TLS_KEY");
    const char *user = getenv("JETSTREAM_USER"), *password = getenv("JETSTREAM_PASSWORD");
    if (status == NATS_OK) status = natsOptions_SetURL(o, url);
    if (status == NATS_OK && ca) status = natsOptions_SetSecure(o, true);
    if (status == NATS_OK && ca) status = natsOptions_LoadCATrustedCertificates(o, ca);
    if (status == NATS_OK && cert && key) status = natsOptions_LoadCertificatesChain(o, cert, key);
    if (status == NATS_OK && user) status = natsOptions_SetUserInfo(o, user, password);
    if (status == NATS_OK) status = natsConnection_Connect(connection, o);
    natsOptions_Destroy(o);
    return status;
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: jetstream publish|pub URL SUBJECT [PAUSE_US] | consume URL STREAM CONSUMER N BATCH | dump URL STREAM | "
                        "info|delete|floor URL STREAM CONSUMER | stream URL STREAM SUBJECT RETENTION | "
                        "fetch URL STREAM CONSUMER BATCH WAIT_MS\n");
        return 2;
    }
    natsConnection *connection = NULL;
    jsCtx *js = NULL;
    natsStatus status = connect_to(&connection, argv[2]);
    if (status != NATS_OK) return fail("connect", status);
    jsOptions options;
    jsOptions_Init(&options);
    options.PublishAsync.MaxPending = 4096;
    options.PublishAsync.ErrHandler = on_publish_error;
    status = natsConnection_JetStream(&js, connection, &options);
    if (status != NATS_OK) return fail("JetStream", status);
    int result = strcmp(argv[1], "publish") == 0 ? publish(js, argv[3], argc > 4 ? atol(argv[4]) : 0)
                 : strcmp(argv[1], "pub") == 0 ? core_publish(connection, argv[3])
                 : strcmp(argv[1], "consume") == 0 && argc > 6
                     ? consume(connection, js, argv[3], argv[4], atol(argv[5]), atoi(argv[6]))
                 : strcmp(argv[1], "dump") == 0  ? dump(js, argv[3])
                 : strcmp(argv[1], "info") == 0 && argc > 4 ? info(js, argv[3], argv[4])
                 : strcmp(argv[1], "floor") == 0 && argc > 4 ? floor_of(js, argv[3], argv[4])
                 : strcmp(argv[1], "stream") == 0 && argc > 5 ? make_stream(js, argv[3], argv[4], argv[5])
                 : strcmp(argv[1], "fetch") == 0 && argc > 6 ? fetch(js, argv[3], argv[4], atoi(argv[5]), atol(argv[6]))
                 : strcmp(argv[1], "delete") == 0 && argc > 4
                     ? (js_DeleteConsumer(js, argv[3], argv[4], NULL, NULL) == NATS_OK ? 0 : fail("delete", NATS_ERR))
                                                 : (fprintf(stderr, "jetstream: unknown command %s\n", argv[1]), 2);
    fflush(stdout);
    jsCtx_Destroy(js);
    natsConnection_Destroy(connection);
    return result;
}
