/*
 * image.c: [bus thread] an image or icon value of a message, made into what
 * the notification server reads: a local file path (or a theme icon name).
 *
 *   /path/to/file.png         its real path, when it is a readable regular
 *                             file inside a folder of image_dirs
 *   file:///path/to%20it.png  the same, percent-decoded first
 *   http://, https://         downloaded (fetch.c), only when fetch_images is on
 *   dialog-warning            an icon name (no slash), given as it is
 *
 * A push chooses the value, so it must not choose which file of this
 * machine the desktop shell reads: a local path is resolved (realpath: no
 * .., no symbolic link left) and shown only from the image_dirs folders or
 * the plugin's own download folder. Anything else, or a download that
 * fails, is logged with the message's id and the reason, and the
 * notification goes out without it.
 */
#include "desktop.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* file:///a%20b -> /a b; NULL when it is not a local absolute file URL (or
 * it encodes a NUL, which would cut the path short). */
static char *file_url_path(const char *url) {
    const char *p = url + strlen("file://");
    if (strncmp(p, "localhost/", 10) == 0) p += 9;
    if (*p != '/') return NULL;
    char *out = malloc(strlen(p) + 1), *at = out;
    if (!out) return NULL;
    for (; *p; p++) {
        if (*p == '%' && hex(p[1]) >= 0 && hex(p[2]) >= 0) {
            *at = (char)(hex(p[1]) * 16 + hex(p[2]));
            if (*at++ == '\0') {
                free(out);
                return NULL;
            }
            p += 2;
        } else {
            *at++ = *p;
        }
    }
    *at = '\0';
    return out;
}

/* Whether real (a real path) is inside folder (a real path). */
static bool inside(const char *real, const char *folder) {
    size_t n = strlen(folder);
    if (n == 1) return true; /* "/" */
    return strncmp(real, folder, n) == 0 && real[n] == '/';
}

/* Why real may not be shown, or NULL when it may. */
static const char *refusal(const desktop *self, const char *real) {
    if (self->image_dir && inside(real, self->image_dir)) return NULL;
    if (!self->settings.image_dirs) return "a local file is shown only from the image_dirs folders, and none is set";
    for (char **dir = self->settings.image_dirs; *dir; dir++)
        if (inside(real, *dir)) return NULL;
    return "it is outside the image_dirs folders";
}

/* The real path of path when it may be shown; NULL (logged) when not. */
static char *local_file(desktop *self, const char *path, const char *what, const char *value, const char *message_id) {
    char real[PATH_MAX];
    struct stat st;
    const char *why = NULL;
    if (!realpath(path, real)) why = strerror(errno);
    else if ((why = refusal(self, real))) {}
    else if (stat(real, &st) != 0) why = strerror(errno);
    else if (!S_ISREG(st.st_mode)) why = "not a regular file";
    else if (access(real, R_OK) != 0) why = strerror(errno);
    if (!why) {
        char *copy = strdup(real);
        if (copy) return copy;
        why = "out of memory";
    }
    transport_log(self->host, PH_LOG_WARNING, "message %s: the %s %s is not shown: %s", message_id, what, value, why);
    return NULL;
}

char *desktop_image_path(desktop *self, const char *value, const char *what, const char *message_id) {
    if (value[0] == '/') return local_file(self, value, what, value, message_id);
    if (strncmp(value, "file://", 7) == 0) {
        char *path = file_url_path(value);
        if (!path) {
            transport_log(self->host, PH_LOG_WARNING, "message %s: the %s %s is not shown: not a local file URL",
                          message_id, what, value);
            return NULL;
        }
        char *real = local_file(self, path, what, value, message_id);
        free(path);
        return real;
    }
    if (strncmp(value, "http://", 7) == 0 || strncmp(value, "https://", 8) == 0) {
        if (self->settings.fetch_images) return desktop_fetch(self, value, what, message_id);
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
