/*
 * image.c: [bus thread] an image or icon value of a message, made into what
 * the notification server reads: a local file path (or a theme icon name).
 *
 *   /path/to/file.png         given as it is, when it is a readable file
 *   file:///path/to%20it.png  its path, percent-decoded
 *   http://, https://         downloaded, only when fetch_images is on: at
 *                             most image_max_bytes, within image_timeout, and
 *                             only when the bytes are an image (PNG, JPEG,
 *                             GIF, WebP, BMP, SVG); into a private folder
 *                             (0700) removed by destroy
 *   dialog-warning            an icon name, given as it is
 *
 * Anything else, or a download that fails, is logged with the message's id
 * and the reason, and the notification goes out without it.
 */
#include "desktop.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A download in progress: the file it writes and how much it wrote. */
typedef struct download {
    FILE *out;
    size_t written, limit;
    bool too_big;
    unsigned char head[16]; /* the first bytes, to tell an image */
    size_t head_len;
} download;

static size_t take_bytes(char *bytes, size_t size, size_t count, void *p) {
    download *d = p;
    size_t n = size * count;
    if (d->written + n > d->limit) {
        d->too_big = true;
        return 0; /* stops the transfer */
    }
    while (d->head_len < sizeof d->head && d->head_len < d->written + n) {
        d->head[d->head_len] = (unsigned char)bytes[d->head_len - d->written];
        d->head_len++;
    }
    if (fwrite(bytes, 1, n, d->out) != n) return 0;
    d->written += n;
    return n;
}

/* Whether the first bytes are those of an image format servers show. */
static bool is_image(const unsigned char *h, size_t n) {
    static const struct { const char *magic; size_t len; } formats[] = {
        {"\x89PNG\r\n\x1a\n", 8}, {"\xff\xd8\xff", 3}, {"GIF8", 4}, {"BM", 2}, {"<svg", 4}, {"<?xml", 5},
    };
    for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++)
        if (n >= formats[i].len && memcmp(h, formats[i].magic, formats[i].len) == 0) return true;
    return n >= 12 && memcmp(h, "RIFF", 4) == 0 && memcmp(h + 8, "WEBP", 4) == 0;
}

/* The folder for downloads, made on first use. */
static const char *image_dir(desktop *self) {
    if (self->image_dir) return self->image_dir;
    const char *base = getenv("XDG_RUNTIME_DIR");
    if (!base || !*base) base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    char *template = transport_format("%s/pushhost-desktop-XXXXXX", base);
    if (!template) return NULL;
    if (!mkdtemp(template)) {
        transport_log(self->host, PH_LOG_ERROR, "cannot make a folder for images in %s: %s", base, strerror(errno));
        free(template);
        return NULL;
    }
    self->image_dir = template;
    return template;
}

/* Keeps the last KEPT_DOWNLOADS files: the server may read an image
 * whenever it shows its notification, so the newest ones stay. */
#define KEPT_DOWNLOADS 64

static void remove_download(desktop *self, unsigned long number) {
    char *path = transport_format("%s/%lu", self->image_dir, number);
    if (path) unlink(path);
    free(path);
}

static void forget_old_download(desktop *self) {
    if (self->fetched > KEPT_DOWNLOADS) remove_download(self, self->fetched - KEPT_DOWNLOADS);
}

static char *fetch(desktop *self, const char *url, const char *what, const char *message_id) {
    const char *dir = image_dir(self);
    if (!dir) return NULL;
    char *path = transport_format("%s/%lu", dir, ++self->fetched);
    if (!path) return NULL;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    download d = {.out = fd >= 0 ? fdopen(fd, "w") : NULL, .limit = self->settings.image_max_bytes};
    if (!d.out) {
        transport_log(self->host, PH_LOG_WARNING, "message %s: cannot write %s: %s", message_id, path, strerror(errno));
        if (fd >= 0) close(fd);
        free(path);
        return NULL;
    }
    CURL *curl = curl_easy_init();
    char error[CURL_ERROR_SIZE] = "";
    CURLcode code = CURLE_FAILED_INIT;
    long status = 0;
    if (curl) {
        curl_easy_setopt(curl, CURLOPT_URL, url);
        curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
        curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 3L);
        curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, self->settings.image_timeout_ms);
        curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)self->settings.image_max_bytes);
        curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, take_bytes);
        curl_easy_setopt(curl, CURLOPT_WRITEDATA, &d);
        curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
        curl_easy_setopt(curl, CURLOPT_USERAGENT, "pushhost-desktop");
        code = curl_easy_perform(curl);
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
        curl_easy_cleanup(curl);
    }
    bool written = fclose(d.out) == 0;
    const char *why = NULL;
    char because[CURL_ERROR_SIZE + 64];
    if (d.too_big || code == CURLE_FILESIZE_EXCEEDED) {
        snprintf(because, sizeof because, "it is larger than image_max_bytes (%zu bytes)", self->settings.image_max_bytes);
        why = because;
    } else if (code == CURLE_OPERATION_TIMEDOUT) {
        snprintf(because, sizeof because, "it took longer than image_timeout (%ld ms)", self->settings.image_timeout_ms);
        why = because;
    } else if (code != CURLE_OK) {
        snprintf(because, sizeof because, "%s", *error ? error : curl_easy_strerror(code));
        why = because;
    } else if (status != 200) {
        snprintf(because, sizeof because, "the server answered HTTP %ld", status);
        why = because;
    } else if (!written) {
        why = "it could not be written";
    } else if (!is_image(d.head, d.head_len)) {
        why = "it is not an image (PNG, JPEG, GIF, WebP, BMP or SVG)";
    }
    if (why) {
        transport_log(self->host, PH_LOG_WARNING, "message %s: the %s %s is not shown: %s", message_id, what, url, why);
        unlink(path);
        free(path);
        return NULL;
    }
    forget_old_download(self);
    return path;
}

static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* file:///a%20b -> /a b; NULL when it is not a local absolute file URL. */
static char *file_url_path(const char *url) {
    const char *p = url + strlen("file://");
    if (strncmp(p, "localhost/", 10) == 0) p += 9;
    if (*p != '/') return NULL;
    char *out = malloc(strlen(p) + 1), *at = out;
    if (!out) return NULL;
    for (; *p; p++) {
        if (*p == '%' && hex(p[1]) >= 0 && hex(p[2]) >= 0) {
            *at++ = (char)(hex(p[1]) * 16 + hex(p[2]));
            p += 2;
        } else {
            *at++ = *p;
        }
    }
    *at = '\0';
    return out;
}

static char *local_file(desktop *self, char *path, const char *what, const char *value, const char *message_id) {
    struct stat st;
    const char *why = NULL;
    if (stat(path, &st) != 0) why = strerror(errno);
    else if (!S_ISREG(st.st_mode)) why = "not a regular file";
    else if (access(path, R_OK) != 0) why = strerror(errno);
    if (!why) return path;
    transport_log(self->host, PH_LOG_WARNING, "message %s: the %s %s is not shown: %s", message_id, what, value, why);
    free(path);
    return NULL;
}

char *desktop_image_path(desktop *self, const char *value, const char *what, const char *message_id) {
    if (value[0] == '/') {
        char *path = strdup(value);
        return path ? local_file(self, path, what, value, message_id) : NULL;
    }
    if (strncmp(value, "file://", 7) == 0) {
        char *path = file_url_path(value);
        if (!path) {
            transport_log(self->host, PH_LOG_WARNING, "message %s: the %s %s is not shown: not a local file URL",
                        message_id, what, value);
            return NULL;
        }
        return local_file(self, path, what, value, message_id);
    }
    if (strncmp(value, "http://", 7) == 0 || strncmp(value, "https://", 8) == 0) {
        if (self->settings.fetch_images) return fetch(self, value, what, message_id);
        transport_log(self->host, PH_LOG_DEBUG, "message %s: the %s %s is not fetched (fetch_images is off)",
                    message_id, what, value);
        return NULL;
    }
    if (strchr(value, ':') || strchr(value, '/')) {
        transport_log(self->host, PH_LOG_WARNING,
                    "message %s: the %s %s is not shown: neither a file, a file:// or http(s) URL, nor an icon name",
                    message_id, what, value);
        return NULL;
    }
    return strdup(value); /* an icon name from the theme */
}

/* Removes the downloads and their folder. */
void desktop_image_cleanup(desktop *self) {
    if (!self->image_dir) return;
    unsigned long first = self->fetched > KEPT_DOWNLOADS ? self->fetched - KEPT_DOWNLOADS + 1 : 1;
    for (unsigned long i = first; i <= self->fetched; i++) remove_download(self, i);
    rmdir(self->image_dir);
    free(self->image_dir);
    self->image_dir = NULL;
}
