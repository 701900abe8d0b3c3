/*
 * settings.c: the nats plugin's settings, read once in create.
 *
 *   servers        comma-separated URLs (default nats://127.0.0.1:4222)
 *   credentials    a .creds file (user JWT and seed) for the servers that need one
 *   tls_ca         CA certificates (PEM) the server's certificate must chain to;
 *                  given, the connection is TLS (as with a tls:// URL)
 *   tls_cert       the client's certificate (PEM), for servers that verify
 *                  clients (mutual TLS); with tls_key
 *   tls_key        its private key (PEM)
 *   tls_hostname   the name the server's certificate must carry (default:
 *                  the URL's host)
 *   user           a user name; with password_file
 *   password_file  a file holding the password (never on the command line)
 *   nkey_seed_file a file holding a user NKey seed (SU..., its first line
 *                  that is not a ----- marker): the server knows the user
 *                  by its public key (U...), which the plugin derives from
 *                  the seed; libnats signs the server's challenge with it
 * One of user, credentials and nkey_seed_file says who the plugin is.
 * A file of secrets (credentials, tls_key, password_file, nkey_seed_file)
 * that its group or others may read or write is refused, as the host
 * refuses such plugin files.
 *   stream         the stream's name (required)
 *   subjects       the stream's subjects, comma-separated (required with
 *                  create; otherwise the stream must hold each)
 *   filter         the consumer's filter subject (default: the whole stream);
 *                  with partitions it must have {partition}, which becomes 0 ... N-1
 *   durable        the durable consumer's name (default pushhost); with
 *                  partitions the consumers are NAME-0 ... NAME-(N-1)
 *   batch          records per fetch, 1 to 1024 (default 16)
 *   ack_wait       seconds the server waits for an Ack before it delivers
 *                  the record again (default: the consumer's; 30 when creating)
 *   max_deliver    deliveries before a record goes to the dead-letter subject
 *                  (default: the consumer's; 5 when creating; -1 no limit)
 *   back_off       seconds before a retried record comes back, by delivery,
 *                  comma-separated; the last one repeats (default 1,5,30)
 *   dead_letter    where rejected and exhausted records go (a subject a
 *                  stream holds; default: none, they are logged and dropped)
 *   create         true: create the stream (work-queue retention), the
 *                  consumers, and a stream NAME_DEAD for dead_letter when missing
 *   partitions     N (1 to 64): per-key order, one consumer per partition
 *                  with MaxAckPending 1 (default 0: one consumer, no order)
 *   replicas       copies the server cluster keeps of each stream the plugin
 *                  creates, 1 to 5 (default 1); when set, a stream that
 *                  exists must have as many
 *   max_ack_pending  records the consumer hands out before it waits for
 *                  Acks, 1 to 100,000 (default: the consumer's; the
 *                  server's 1,000 when creating); not with partitions
 */
#include "jetstream.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void jetstream_settings_free(jetstream_settings *s) {
    transport_free_list(s->servers);
    transport_free_list(s->subjects);
    free(s->credentials);
    free(s->tls_ca);
    free(s->tls_cert);
    free(s->tls_key);
    free(s->tls_hostname);
    free(s->user);
    free(s->nkey_seed_file);
    if (s->password) {
        explicit_bzero(s->password, strlen(s->password));
        free(s->password);
    }
    free(s->stream);
    free(s->filter);
    free(s->durable);
    free(s->back_off_ms);
    free(s->dead_letter);
    memset(s, 0, sizeof *s);
}

/* A copy of a setting, or of fallback when it is unset or empty; *failed on no memory. */
static char *text(const ph_host *host, const ph_config *config, const char *key, const char *fallback, bool *failed) {
    const char *value = host->config_get(config, key);
    if (!value || !*value) value = fallback;
    if (!value) return NULL;
    char *copy = strdup(value);
    if (!copy) *failed = true;
    return copy;
}

/* A name JetStream takes for a stream or consumer: no blanks, dots, *, > or slashes. */
static bool is_name(const char *s) {
    if (!*s || strlen(s) > 200) return false;
    for (; *s; s++)
        if (*s <= ' ' || strchr(".*>/\\", *s)) return false;
    return true;
}

/* A subject: dot-separated tokens, none empty, no blanks; * a whole token,
 * > only the whole last one. */
static bool is_subject(const char *s) {
    size_t length = strlen(s);
    if (length == 0 || s[0] == '.' || s[length - 1] == '.' || strstr(s, "..")) return false;
    for (const char *c = s; *c; c++) {
        if (*c <= ' ') return false;
        bool alone = (c == s || c[-1] == '.') && (c[1] == '.' || !c[1]);
        if (*c == '*' && !alone) return false;
        if (*c == '>' && !(alone && !c[1])) return false;
    }
    return true;
}

/* Whether the file of secrets `path` (setting `key`) is a regular file that
 * only its owner may read and write; logs why not. */
static bool is_private(const ph_host *host, const char *key, const char *path) {
    struct stat info;
    if (lstat(path, &info) != 0) {
        transport_log(host, PH_LOG_ERROR, "setting %s: %s: %s", key, path, strerror(errno));
        return false;
    }
    if (!S_ISREG(info.st_mode)) {
        transport_log(host, PH_LOG_ERROR, "setting %s: %s is not a regular file (a symbolic link is not followed)", key, path);
        return false;
    }
    if (info.st_mode & 077) {
        transport_log(host, PH_LOG_ERROR,
                      "setting %s: %s holds secrets and its group or others may use it (mode %03o); chmod 600 it",
                      key, path, (unsigned)(info.st_mode & 0777));
        return false;
    }
    return true;
}

/* The password in `path`: its first line, 1 to 1024 bytes; NULL (logged) when not. */
static char *read_password(const ph_host *host, const char *path) {
    if (!is_private(host, "password_file", path)) return NULL;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        transport_log(host, PH_LOG_ERROR, "setting password_file: %s: %s", path, strerror(errno));
        return NULL;
    }
    char buffer[1026];
    ssize_t length = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (length < 0) length = 0;
    buffer[length] = 0;
    size_t line = strcspn(buffer, "\r\n");
    char *password = line > 0 && line <= 1024 ? strndup(buffer, line) : NULL;
    explicit_bzero(buffer, sizeof buffer);
    if (!password)
        transport_log(host, PH_LOG_ERROR, "setting password_file: %s does not hold a password of 1 to 1024 bytes on its first line", path);
    return password;
}

/* The seed in `text`: its first line that is neither blank nor a ----- marker
 * (of a decorated file), blanks around it cut, ended in place; NULL when none. */
static char *seed_line(char *text) {
    for (char *line = text; *line;) {
        line += strspn(line, " \t\r\n");
        size_t length = strcspn(line, "\r\n");
        if (length > 0 && strncmp(line, "-----", 5) != 0) {
            while (length > 0 && (line[length - 1] == ' ' || line[length - 1] == '\t')) length--;
            line[length] = 0;
            return line;
        }
        line += length;
    }
    return NULL;
}

/* The public key of the user NKey seed in s->nkey_seed_file, into
 * s->nkey_public; 0, or -1 (logged). The seed read is wiped. */
static int read_nkey_seed(const ph_host *host, jetstream_settings *s) {
    const char *path = s->nkey_seed_file;
    if (!is_private(host, "nkey_seed_file", path)) return -1;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        transport_log(host, PH_LOG_ERROR, "setting nkey_seed_file: %s: %s", path, strerror(errno));
        return -1;
    }
    char buffer[4096];
    ssize_t length = read(fd, buffer, sizeof buffer - 1);
    close(fd);
    if (length < 0) length = 0;
    buffer[length] = 0;
    const char *seed = seed_line(buffer);
    const char *reason = seed ? jetstream_nkey_user_public(seed, s->nkey_public) : "it is empty";
    explicit_bzero(buffer, sizeof buffer);
    if (reason) transport_log(host, PH_LOG_ERROR, "setting nkey_seed_file: %s does not hold a user NKey seed: %s", path, reason);
    return reason ? -1 : 0;
}

/* Whether at most one of user, credentials and nkey_seed_file is set; logs two that are. */
static bool one_identity(const ph_host *host, const jetstream_settings *s) {
    const char *names[] = {"user", "credentials", "nkey_seed_file"};
    const bool set[] = {s->user != NULL, s->credentials != NULL, s->nkey_seed_file != NULL};
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (set[a] && set[b]) {
                transport_log(host, PH_LOG_ERROR, "settings %s and %s: one way to say who the plugin is, not both",
                              names[a], names[b]);
                return false;
            }
    return true;
}

/* The settings of TLS and of who the plugin is: tls_*, user, password_file,
 * credentials, nkey_seed_file. */
static int read_identity(const ph_host *host, const ph_config *config, jetstream_settings *s, bool *failed) {
    s->credentials = text(host, config, "credentials", NULL, failed);
    s->tls_ca = text(host, config, "tls_ca", NULL, failed);
    s->tls_cert = text(host, config, "tls_cert", NULL, failed);
    s->tls_key = text(host, config, "tls_key", NULL, failed);
    s->tls_hostname = text(host, config, "tls_hostname", NULL, failed);
    s->user = text(host, config, "user", NULL, failed);
    s->nkey_seed_file = text(host, config, "nkey_seed_file", NULL, failed);
    char *password_file = text(host, config, "password_file", NULL, failed);
    if (*failed) {
        free(password_file);
        return -1;
    }
    int result = 0;
    if (!s->tls_cert != !s->tls_key) {
        host->log(host, PH_LOG_ERROR, "settings tls_cert and tls_key: one without the other (mutual TLS takes both)");
        result = -1;
    } else if (!s->user != !password_file) {
        host->log(host, PH_LOG_ERROR, "settings user and password_file: one without the other");
        result = -1;
    } else if (!one_identity(host, s)) {
        result = -1;
    } else if ((s->credentials && !is_private(host, "credentials", s->credentials)) ||
               (s->tls_key && !is_private(host, "tls_key", s->tls_key))) {
        result = -1;
    } else if (password_file && !(s->password = read_password(host, password_file))) {
        result = -1;
    } else if (s->nkey_seed_file && read_nkey_seed(host, s) < 0) {
        result = -1;
    }
    free(password_file);
    return result;
}

static int read_back_off(const ph_host *host, const char *value, jetstream_settings *s) {
    char **items = transport_split_list(value);
    if (!items) return -1;
    int count = transport_list_count(items);
    s->back_off_ms = calloc((size_t)(count ? count : 1), sizeof *s->back_off_ms);
    int failed = s->back_off_ms ? 0 : -1;
    for (int i = 0; i < count && !failed; i++) {
        char *end;
        double seconds = strtod(items[i], &end);
        if (*end || isnan(seconds) || seconds < 0 || seconds > 86400) {
            transport_log(host, PH_LOG_ERROR, "setting back_off: \"%s\" is not a number of seconds from 0 to 86400",
                          items[i]);
            failed = -1;
        }
        s->back_off_ms[i] = llround(seconds * 1000);
    }
    s->back_off_count = count;
    transport_free_list(items);
    return failed;
}

/* The settings that name things: servers, stream, subjects, filter, durable. */
static int read_names(const ph_host *host, const ph_config *config, jetstream_settings *s, bool *failed) {
    const char *servers = host->config_get(config, "servers");
    s->servers = transport_split_list(servers && *servers ? servers : "nats://127.0.0.1:4222");
    const char *subjects = host->config_get(config, "subjects");
    s->subjects = transport_split_list(subjects ? subjects : "");
    s->stream = text(host, config, "stream", NULL, failed);
    s->filter = text(host, config, "filter", NULL, failed);
    s->durable = text(host, config, "durable", "pushhost", failed);
    s->dead_letter = text(host, config, "dead_letter", NULL, failed);
    if (!s->servers || !s->subjects || *failed) return -1;
    if (!s->servers[0]) {
        host->log(host, PH_LOG_ERROR, "setting servers: no URL in it");
        return -1;
    }
    if (!s->stream) {
        host->log(host, PH_LOG_ERROR, "the stream setting is required: the name of the JetStream stream to read");
        return -1;
    }
    if (!is_name(s->stream) || !is_name(s->durable)) {
        transport_log(host, PH_LOG_ERROR, "setting %s: \"%s\" is not a stream or consumer name (no blanks, '.', '*', '>' or '/')",
                      is_name(s->stream) ? "durable" : "stream", is_name(s->stream) ? s->durable : s->stream);
        return -1;
    }
    for (char **subject = s->subjects; *subject; subject++)
        if (!is_subject(*subject)) {
            transport_log(host, PH_LOG_ERROR, "setting subjects: \"%s\" is not a NATS subject", *subject);
            return -1;
        }
    if (s->filter && !is_subject(s->filter)) {
        transport_log(host, PH_LOG_ERROR, "setting filter: \"%s\" is not a NATS subject", s->filter);
        return -1;
    }
    if (s->dead_letter && !is_subject(s->dead_letter)) {
        transport_log(host, PH_LOG_ERROR, "setting dead_letter: \"%s\" is not a NATS subject", s->dead_letter);
        return -1;
    }
    if (s->dead_letter && (strchr(s->dead_letter, '*') || strchr(s->dead_letter, '>'))) {
        transport_log(host, PH_LOG_ERROR, "setting dead_letter: \"%s\" has a wildcard; records are published to it",
                      s->dead_letter);
        return -1;
    }
    return 0;
}

int jetstream_settings_read(const ph_host *host, const ph_config *config, jetstream_settings *out) {
    jetstream_settings s = {0};
    bool failed = false;
    double batch, ack_wait, max_deliver, partitions, replicas, max_ack_pending;
    const char *back_off = host->config_get(config, "back_off");
    const bool ack_wait_set = host->config_get(config, "ack_wait") && *host->config_get(config, "ack_wait");
    const bool max_deliver_set = host->config_get(config, "max_deliver") && *host->config_get(config, "max_deliver");
    if (read_names(host, config, &s, &failed) < 0 || read_identity(host, config, &s, &failed) < 0 ||
        transport_read_number(host, config, "batch", 16, 1, 1024, "records", &batch) < 0 ||
        transport_read_number(host, config, "ack_wait", 30, 0.1, 86400, "seconds", &ack_wait) < 0 ||
        transport_read_number(host, config, "max_deliver", 5, -1, 1000000, "deliveries", &max_deliver) < 0 ||
        transport_read_number(host, config, "partitions", 0, 0, 64, "partitions", &partitions) < 0 ||
        transport_read_number(host, config, "replicas", 0, 1, 5, "replicas", &replicas) < 0 ||
        transport_read_number(host, config, "max_ack_pending", 0, 1, 100000, "records", &max_ack_pending) < 0 ||
        transport_read_flag(host, config, "create", false, &s.create) < 0 ||
        read_back_off(host, back_off && *back_off ? back_off : "1,5,30", &s) < 0)
        goto refused;
    if (max_deliver == 0 || max_deliver != floor(max_deliver) || partitions != floor(partitions) || batch != floor(batch) ||
        replicas != floor(replicas) || max_ack_pending != floor(max_ack_pending)) {
        host->log(host, PH_LOG_ERROR,
                  "settings batch, max_deliver, partitions, replicas and max_ack_pending are whole numbers, and max_deliver is not 0");
        goto refused;
    }
    if (partitions > 0 && max_ack_pending > 0) {
        host->log(host, PH_LOG_ERROR, "settings partitions and max_ack_pending: a partition's consumer hands out one record at a time");
        goto refused;
    }
    s.replicas = (int)replicas;
    s.max_ack_pending = (int64_t)max_ack_pending;
    s.batch = (int)batch;
    s.partitions = (int)partitions;
    s.ack_wait_ms = ack_wait_set || s.create ? llround(ack_wait * 1000) : 0;
    s.max_deliver = max_deliver_set || s.create ? (int64_t)max_deliver : 0;
    if (s.create && !s.subjects[0]) {
        host->log(host, PH_LOG_ERROR, "setting subjects: create=true needs the subjects the stream holds");
        goto refused;
    }
    if ((s.partitions > 0) != (s.filter && strstr(s.filter, "{partition}"))) {
        host->log(host, PH_LOG_ERROR, s.partitions > 0
                                          ? "setting filter: partitions needs a filter with {partition}, such as pushes.{partition}.*"
                                          : "setting filter: {partition} is for partitions, which is not set");
        goto refused;
    }
    *out = s;
    return 0;
refused:
    if (failed) host->log(host, PH_LOG_ERROR, "out of memory");
    jetstream_settings_free(&s);
    return -1;
}
