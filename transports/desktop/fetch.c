/*
 * fetch.c: [bus thread] an http(s) image or icon of a message, downloaded
 * (fetch_images) into a private folder (0700, under $XDG_RUNTIME_DIR) that
 * keeps the newest downloads and is removed by destroy. A download is at
 * most image_max_bytes, takes at most image_timeout, and must be an image
 * (PNG, JPEG, GIF, WebP, BMP, SVG, by its first bytes).
 *
 * A push chooses the URL, so it must not make this machine fetch from its
 * own network: every address curl is about to connect to (each redirect,
 * each address a name resolves to) is checked, and loopback, link-local,
 * private, shared (100.64/10), multicast and reserved addresses are refused
 * unless fetch_private is set. Downloads go direct, never through a proxy
 * named in the environment, so the address checked is the one reached.
 */
#include "desktop.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The newest downloads kept: the server may read an image whenever it shows
 * its notification. */
#define KEPT_DOWNLOADS 64

/* A download in progress: the file it writes, how much it wrote, and an
 * address it refused. */
typedef struct download {
    FILE *out;
    size_t written, limit;
    bool too_big;
    unsigned char head[16]; /* the first bytes, to tell an image */
    size_t head_len;
    bool allow_private;
    char refused[INET6_ADDRSTRLEN]; /* "" unless an address was refused */
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

/* ---- Addresses ------------------------------------------------------------ */

/* Whether a (four bytes, in network order) is no public unicast address:
 * 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.168/16, 224/3. */
static bool private_v4(const uint8_t *a) {
    return a[0] == 0 || a[0] == 10 || a[0] == 127 || (a[0] == 100 && (a[1] & 0xc0) == 64) ||
           (a[0] == 169 && a[1] == 254) || (a[0] == 172 && (a[1] & 0xf0) == 16) || (a[0] == 192 && a[1] == 168) ||
           a[0] >= 224;
}

/* The same for IPv6: ::/96 (:: and ::1 among them) and the forms that carry
 * an IPv4 address (::ffff:0:0/96, 64:ff9b::/96, 2002::/16) by that address;
 * fc00::/7, fe80::/10, fec0::/10, ff00::/8. */
static bool private_v6(const uint8_t *a) {
    static const uint8_t zero[12], mapped[12] = {[10] = 0xff, [11] = 0xff}, nat64[12] = {0x00, 0x64, 0xff, 0x9b};
    if (memcmp(a, zero, 12) == 0 || memcmp(a, mapped, 12) == 0 || memcmp(a, nat64, 12) == 0) return private_v4(a + 12);
    if (a[0] == 0x20 && a[1] == 0x02) return private_v4(a + 2);
    return (a[0] & 0xfe) == 0xfc || (a[0] == 0xfe && (a[1] & 0x80) == 0x80) || a[0] == 0xff;
}

/* curl's socket for each connection it makes: refused (CURL_SOCKET_BAD,
 * the address noted) when it would reach a private address. */
static curl_socket_t open_socket(void *p, curlsocktype purpose, struct curl_sockaddr *address) {
    (void)purpose;
    download *d = p;
    if (!d->allow_private) {
        const void *bytes = NULL;
        bool refused = true;
        if (address->family == AF_INET && address->addrlen >= sizeof(struct sockaddr_in)) {
            bytes = &((const struct sockaddr_in *)&address->addr)->sin_addr;
            refused = private_v4(bytes);
        } else if (address->family == AF_INET6 && address->addrlen >= sizeof(struct sockaddr_in6)) {
            bytes = &((const struct sockaddr_in6 *)&address->addr)->sin6_addr;
            refused = private_v6(bytes);
        }
        if (refused) {
            if (!bytes || !inet_ntop(address->family, bytes, d->refused, sizeof d->refused))
                snprintf(d->refused, sizeof d->refused, "of family %d", address->family);
            return CURL_SOCKET_BAD;
        }
    }
    return socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

/* ---- The folder ------------------------------------------------------------ */

/* The folder for downloads, made on first use; its real path, so that
 * image.c can tell a file inside it. */
static const char *image_dir(desktop *self) {
    if (self->image_dir) return self->image_dir;
    const char *base = getenv("XDG_RUNTIME_DIR");
    if (!base || !*base) base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    char *template = transport_format("%s/pushhost-desktop-XXXXXX", base);
    if (!template) return NULL;
    char real[PATH_MAX];
    if (!mkdtemp(template) || !realpath(template, real)) {
        transport_log(self->host, PH_LOG_ERROR, "cannot make a folder for images in %s: %s", base, strerror(errno));
        free(template);
        return NULL;
    }
    free(template);
    self->image_dir = strdup(real);
    if (!self->image_dir) rmdir(real);
    return self->image_dir;
}

static void remove_download(desktop *self, unsigned long number) {
    char *path = transport_format("%s/%lu", self->image_dir, number);
    if (path) unlink(path);
    free(path);
}

void desktop_fetch_cleanup(desktop *self) {
    if (!self->image_dir) return;
    unsigned long first = self->fetched > KEPT_DOWNLOADS ? self->fetched - KEPT_DOWNLOADS + 1 : 1;
    for (unsigned long i = first; i <= self->fetched; i++) remove_download(self, i);
    rmdir(self->image_dir);
    free(self->image_dir);
    self->image_dir = NULL;
}

/* ---- The download ------------------------------------------------------------ */

/* Runs the transfer of url into d; curl's result, *status the HTTP status. */
static CURLcode transfer(desktop *self, const char *url, download *d, char *error, long *status) {
    CURL *curl = curl_easy_init();
    if (!curl) return CURLE_FAILED_INIT;
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 3L);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, open_socket);
    curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, d);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, self->settings.image_timeout_ms);
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)self->settings.image_max_bytes);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, take_bytes);
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, d);
    curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(curl, CURLOPT_USERAGENT, "pushhost-desktop");
    CURLcode code = curl_easy_perform(curl);
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(curl);
    return code;
}

char *desktop_fetch(desktop *self, const char *url, const char *what, const char *message_id) {
    const char *dir = image_dir(self);
    if (!dir) return NULL;
    char *path = transport_format("%s/%lu", dir, ++self->fetched);
    if (!path) return NULL;
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    download d = {.out = fd >= 0 ? fdopen(fd, "w") : NULL, .limit = self->settings.image_max_bytes,
                  .allow_private = self->settings.fetch_private};
    if (!d.out) {
        transport_log(self->host, PH_LOG_WARNING, "message %s: cannot write %s: %s", message_id, path, strerror(errno));
        if (fd >= 0) close(fd);
        free(path);
        return NULL;
    }
    char error[CURL_ERROR_SIZE] = "";
    long status = 0;
    CURLcode code = transfer(self, url, &d, error, &status);
    bool written = fclose(d.out) == 0;
    char because[CURL_ERROR_SIZE + 128];
    const char *why = because;
    if (code != CURLE_OK && *d.refused)
        snprintf(because, sizeof because, "its address %s is loopback, link-local or private, which fetch_private does not allow",
                 d.refused);
    else if (d.too_big || code == CURLE_FILESIZE_EXCEEDED)
        snprintf(because, sizeof because, "it is larger than image_max_bytes (%zu bytes)", self->settings.image_max_bytes);
    else if (code == CURLE_OPERATION_TIMEDOUT)
        snprintf(because, sizeof because, "it took longer than image_timeout (%ld ms)", self->settings.image_timeout_ms);
    else if (code != CURLE_OK)
        snprintf(because, sizeof because, "%s", *error ? error : curl_easy_strerror(code));
    else if (status != 200)
        snprintf(because, sizeof because, "the server answered HTTP %ld", status);
    else if (!written)
        why = "it could not be written";
    else if (!is_image(d.head, d.head_len))
        why = "it is not an image (PNG, JPEG, GIF, WebP, BMP or SVG)";
    else
        why = NULL;
    if (why) {
        transport_log(self->host, PH_LOG_WARNING, "message %s: the %s %s is not shown: %s", message_id, what, url, why);
        unlink(path);
        free(path);
        return NULL;
    }
    if (self->fetched > KEPT_DOWNLOADS) remove_download(self, self->fetched - KEPT_DOWNLOADS);
    return path;
}
