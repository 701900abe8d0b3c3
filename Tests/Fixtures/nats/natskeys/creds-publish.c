/*
 * creds-publish.c: the credential tests' publisher, for a server in
 * operator mode, where the tests' jetstream tool (../jetstream.c, a user
 * with a password) cannot connect: it connects as the user of a .creds file.
 *
 *   creds-publish URL CREDS SUBJECT   each line of stdin, published to
 *                                     SUBJECT and stored (the stream's Ack
 *                                     awaited)
 *
 * A connect refused as "Authorization Violation" is tried twice more:
 * libnats before 3.8.0 sends no signature of the server's nonce when its
 * first byte is 0 (nats-io/nats.c#705), one connect in 256.
 *
 * Exit 0, or 1 with the reason on stderr.
 */
#define _GNU_SOURCE
#include <nats/nats.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what, natsStatus status) {
    const char *last = nats_GetLastError(NULL);
    fprintf(stderr, "creds-publish: %s: %s\n", what, last && *last ? last : natsStatus_GetText(status));
    return 1;
}

/* Publishes each line of stdin to subject; 0, or 1 (said). */
static int publish_lines(jsCtx *js, const char *subject) {
    char *line = NULL;
    size_t size = 0;
    ssize_t length;
    int result = 0;
    while (!result && (length = getline(&line, &size, stdin)) > 0) {
        if (line[length - 1] == '\n') line[--length] = 0;
        if (length == 0) continue;
        jsErrCode code = 0;
        natsStatus status = js_Publish(NULL, js, subject, line, (int)length, NULL, &code);
        if (status != NATS_OK) result = fail("not stored", status);
    }
    free(line);
    return result;
}

/* Connects; a refusal is tried twice more, each time with a new nonce. */
static natsStatus connect_user(natsOptions *options, natsConnection **connection) {
    natsStatus status = NATS_CONNECTION_AUTH_FAILED;
    for (int attempt = 0; attempt < 3 && status == NATS_CONNECTION_AUTH_FAILED; attempt++)
        status = natsConnection_Connect(connection, options);
    return status;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: creds-publish URL CREDS SUBJECT\n");
        return 1;
    }
    natsOptions *options = NULL;
    natsConnection *connection = NULL;
    jsCtx *js = NULL;
    natsStatus status = natsOptions_Create(&options);
    if (status == NATS_OK) status = natsOptions_SetURL(options, argv[1]);
    if (status == NATS_OK) status = natsOptions_SetUserCredentialsFromFiles(options, argv[2], NULL);
    if (status == NATS_OK) status = connect_user(options, &connection);
    if (status == NATS_OK) status = natsConnection_JetStream(&js, connection, NULL);
    int result = status == NATS_OK ? publish_lines(js, argv[3]) : fail("cannot connect", status);
    jsCtx_Destroy(js);
    natsConnection_Destroy(connection);
    natsOptions_Destroy(options);
    nats_Close();
    return result;
}
