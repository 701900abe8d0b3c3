/*
 * keys.c: what the connector keeps across restarts, in `keys` in its state
 * folder (mode 0600): the connection token it registers with, and the P-256
 * key pair and auth secret senders encrypt to. Four lines:
 *
 *   token 2d1c8a52-...
 *   private <base64url, 32 bytes>
 *   public <base64url, 65 bytes>
 *   auth <base64url, 16 bytes>
 *
 * Made on the first start; a file that is there but broken is refused with
 * the reason (new keys would silently change what every sender must use).
 */
#include "unifiedpush.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A UUIDv4, as the specification suggests for tokens. */
static int make_token(char out[UP_TOKEN_MAX + 1]) {
    uint8_t b[16];
    if (RAND_bytes(b, sizeof b) != 1) return -1;
    b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
    snprintf(out, UP_TOKEN_MAX + 1, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
             b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return 0;
}

/* Writes the file whole: into PATH.tmp (0600), synced, then renamed. */
static int save(unifiedpush *self) {
    char *private_key = webpush_base64url(self->keys.private_key, sizeof self->keys.private_key);
    char *public_key = webpush_base64url(self->keys.public_key, sizeof self->keys.public_key);
    char *auth = webpush_base64url(self->keys.auth, sizeof self->keys.auth);
    char *text = private_key && public_key && auth
        ? transport_format("token %s\nprivate %s\npublic %s\nauth %s\n", self->token, private_key, public_key, auth)
        : NULL;
    char *temporary = transport_format("%s.tmp", self->keys_path);
    int fd = text && temporary ? open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600) : -1;
    size_t length = text ? strlen(text) : 0;
    int failed = fd < 0 || write(fd, text, length) != (ssize_t)length || fsync(fd) != 0;
    if (fd >= 0) failed |= close(fd) != 0;
    if (!failed) failed = rename(temporary, self->keys_path) != 0;
    if (failed) {
        transport_log(self->host, PH_LOG_ERROR, "cannot write the key file %s: %s", self->keys_path,
               text && temporary ? strerror(errno) : "out of memory");
        if (temporary) unlink(temporary);
    }
    if (text) memset(text, 0, length);
    free(text);
    free(temporary);
    free(auth);
    free(public_key);
    if (private_key) memset(private_key, 0, strlen(private_key));
    free(private_key);
    return failed ? -1 : 0;
}

/* Decodes the base64url value of the line "NAME VALUE" into out; its
 * length in bytes, or -1 when there is no such line or it is not base64url. */
static long field(const char *text, const char *name, uint8_t *out, size_t cap) {
    char *key = transport_format("\n%s ", name), *lines = transport_format("\n%s", text);
    const char *at = key && lines ? strstr(lines, key) : NULL;
    long n = -1;
    if (at) {
        at += strlen(key);
        char *value = strndup(at, strcspn(at, "\n"));
        if (value) n = webpush_unbase64(value, out, cap);
        free(value);
    }
    free(lines);
    free(key);
    return n;
}

static int parse(unifiedpush *self, const char *text, const char **why) {
    /* The token: printable, no spaces, at most UP_TOKEN_MAX bytes. */
    const char *at = strncmp(text, "token ", 6) == 0 ? text + 6 : NULL;
    size_t len = at ? strcspn(at, "\n") : 0;
    if (!at || len == 0 || len > UP_TOKEN_MAX) {
        *why = "its first line is not \"token TOKEN\"";
        return -1;
    }
    memcpy(self->token, at, len);
    self->token[len] = '\0';
    if (field(text, "private", self->keys.private_key, sizeof self->keys.private_key) != WEBPUSH_PRIVATE_BYTES ||
        field(text, "public", self->keys.public_key, sizeof self->keys.public_key) != WEBPUSH_PUBLIC_BYTES ||
        field(text, "auth", self->keys.auth, sizeof self->keys.auth) != WEBPUSH_AUTH_BYTES) {
        *why = "it lacks a private (32 bytes), public (65 bytes) or auth (16 bytes) line in base64url";
        return -1;
    }
    if (!webpush_keys_match(&self->keys)) {
        *why = "its public key is not the private key's";
        return -1;
    }
    return 0;
}

int up_keys_load(unifiedpush *self) {
    int fd = open(self->keys_path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0 && errno == ENOENT) {
        if (make_token(self->token) != 0 || webpush_generate(&self->keys) != 0) {
            transport_log(self->host, PH_LOG_ERROR, "cannot make keys: the random source failed");
            return -1;
        }
        if (save(self) != 0) return -1;
        transport_log(self->host, PH_LOG_INFO, "made new keys in %s", self->keys_path);
        return 0;
    }
    char text[1024];
    ssize_t n = fd >= 0 ? read(fd, text, sizeof text - 1) : -1;
    int error = errno;
    if (fd >= 0) close(fd);
    const char *why = NULL;
    if (n < 0) why = strerror(error);
    else {
        text[n] = '\0';
        parse(self, text, &why);
    }
    memset(text, 0, sizeof text);
    if (why) {
        transport_log(self->host, PH_LOG_ERROR, "key file %s: %s (remove it to make new keys; senders then need the new ones)",
               self->keys_path, why);
        return -1;
    }
    return 0;
}
