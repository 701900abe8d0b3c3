/*
 * posted.c: [bus thread] the notifications this run posted, so that a tap
 * finds its message and a message with a collapse_key replaces the
 * notification of the one before it. Bounded: past DESKTOP_POSTED_CAP the
 * oldest is forgotten, and a tap on it is ignored as one on another
 * application's notification is: the server's ids are unique among all its
 * clients, so a signal about another application's notification finds
 * nothing here.
 */
#include "desktop.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

desktop_posted *desktop_posted_find(desktop_posted_table *t, uint32_t id) {
    if (id == 0) return NULL;
    for (size_t i = 0; i < DESKTOP_POSTED_CAP; i++)
        if (t->slots[i].id == id) return &t->slots[i];
    return NULL;
}

desktop_posted *desktop_posted_by_key(desktop_posted_table *t, const char *collapse_key) {
    if (!collapse_key) return NULL;
    for (size_t i = 0; i < DESKTOP_POSTED_CAP; i++) {
        desktop_posted *p = &t->slots[i];
        if (p->id != 0 && p->collapse_key && strcmp(p->collapse_key, collapse_key) == 0) return p;
    }
    return NULL;
}

void desktop_posted_forget(desktop_posted *p) {
    free(p->message_id);
    free(p->collapse_key);
    free(p->reply_action);
    memset(p, 0, sizeof *p);
}

/* The slot for id: its own when the server gave an id it gave before (a
 * replacement), else a free one, else the oldest. */
static desktop_posted *slot_for(desktop_posted_table *t, uint32_t id) {
    desktop_posted *same = desktop_posted_find(t, id);
    if (same) return same;
    desktop_posted *oldest = &t->slots[0];
    for (size_t i = 0; i < DESKTOP_POSTED_CAP; i++) {
        desktop_posted *p = &t->slots[i];
        if (p->id == 0) return p;
        if (p->age < oldest->age) oldest = p;
    }
    return oldest;
}

int desktop_posted_note(desktop_posted_table *t, uint32_t id, const desktop_request *r, const char *reply_action) {
    desktop_posted fresh = {.id = id, .age = ++t->clock};
    fresh.message_id = strdup(r->message_id);
    fresh.collapse_key = r->collapse_key ? strdup(r->collapse_key) : NULL;
    fresh.reply_action = reply_action ? strdup(reply_action) : NULL;
    if (!fresh.message_id || (r->collapse_key && !fresh.collapse_key) || (reply_action && !fresh.reply_action)) {
        desktop_posted_forget(&fresh);
        return -1;
    }
    desktop_posted *slot = slot_for(t, id);
    desktop_posted_forget(slot);
    *slot = fresh;
    t->dirty = true;
    return 0;
}

void desktop_posted_clear(desktop_posted_table *t) {
    for (size_t i = 0; i < DESKTOP_POSTED_CAP; i++)
        if (t->slots[i].id != 0) desktop_posted_forget(&t->slots[i]);
}

/* ---- Across restarts ------------------------------------------------------
 * A notification outlives the run that posted it: it stays in the tray, and
 * a tap on it after a restart must still find its message (the host keeps
 * the messages it delivered for that). The table is kept in the plugin's
 * state folder, `posted`, rewritten whole when it changed:
 *
 *   server :1.42
 *   ID AGE MESSAGE COLLAPSE_KEY REPLY_ACTION     (one line per notification)
 *
 * Fields are percent-encoded (%, space, newline, CR), "-" stands for none.
 * It is read back only when the same server (the same unique bus name) still
 * answers: a server that restarted numbers its notifications again.
 */

static char *encode(const char *s) {
    if (!s) return strdup("-");
    size_t n = 0;
    for (const char *c = s; *c; c++) n += strchr("% \n\r", *c) || (c == s && *c == '-') ? 3 : 1;
    char *out = malloc(n + 1), *at = out;
    if (!out) return NULL;
    for (const char *c = s; *c; c++) {
        if (strchr("% \n\r", *c) || (c == s && *c == '-')) at += sprintf(at, "%%%02X", (unsigned char)*c);
        else *at++ = *c;
    }
    *at = '\0';
    return out;
}

static int hex(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Decodes in place; NULL for "-". */
static char *decode(char *s) {
    if (strcmp(s, "-") == 0) return NULL;
    char *at = s;
    for (char *c = s; *c; c++) {
        if (*c == '%' && hex(c[1]) >= 0 && hex(c[2]) >= 0) {
            *at++ = (char)(hex(c[1]) * 16 + hex(c[2]));
            c += 2;
        } else {
            *at++ = *c;
        }
    }
    *at = '\0';
    return s;
}

static bool dup_or_null(char **out, const char *s) {
    *out = s ? strdup(s) : NULL;
    return !s || *out;
}

/* Reads the file's entries into t when its server is owner. */
static void load(desktop_posted_table *t, const char *owner) {
    FILE *in = fopen(t->file, "re");
    if (!in) return;
    char line[4096];
    bool same = fgets(line, sizeof line, in) && strncmp(line, "server ", 7) == 0 &&
                strcspn(line + 7, "\n") == strlen(owner) && strncmp(line + 7, owner, strlen(owner)) == 0;
    size_t i = 0;
    while (same && i < DESKTOP_POSTED_CAP && fgets(line, sizeof line, in)) {
        line[strcspn(line, "\n")] = '\0';
        char *fields[5], *save = NULL;
        size_t n = 0;
        for (char *f = strtok_r(line, " ", &save); f && n < 5; f = strtok_r(NULL, " ", &save)) fields[n++] = f;
        unsigned long id = n == 5 ? strtoul(fields[0], NULL, 10) : 0;
        const char *message = n == 5 ? decode(fields[2]) : NULL;
        if (id == 0 || id > UINT32_MAX || !message) continue; /* not a line this plugin writes */
        desktop_posted *p = &t->slots[i];
        p->id = (uint32_t)id;
        p->age = strtoull(fields[1], NULL, 10);
        if (!dup_or_null(&p->message_id, message) || !dup_or_null(&p->collapse_key, decode(fields[3])) ||
            !dup_or_null(&p->reply_action, decode(fields[4]))) {
            desktop_posted_forget(p);
            break;
        }
        if (p->age > t->clock) t->clock = p->age;
        i++;
    }
    fclose(in);
}

void desktop_posted_adopt(desktop *self, const char *owner) {
    desktop_posted_table *t = &self->posted;
    if (t->server && strcmp(t->server, owner) == 0) return;
    bool first = !t->server;
    desktop_posted_clear(t);
    free(t->server);
    t->server = strdup(owner);
    t->dirty = true;
    if (first && t->file && t->server) load(t, owner);
}

void desktop_posted_save(desktop *self) {
    desktop_posted_table *t = &self->posted;
    if (!t->dirty || !t->file || !t->server) return;
    t->dirty = false;
    char *temporary = transport_format("%s.tmp", t->file);
    FILE *out = temporary ? fopen(temporary, "we") : NULL;
    bool written = out && fprintf(out, "server %s\n", t->server) > 0;
    for (size_t i = 0; written && i < DESKTOP_POSTED_CAP; i++) {
        desktop_posted *p = &t->slots[i];
        if (p->id == 0) continue;
        char *message = encode(p->message_id), *key = encode(p->collapse_key), *reply = encode(p->reply_action);
        written = message && key && reply &&
                  fprintf(out, "%u %llu %s %s %s\n", p->id, (unsigned long long)p->age, message, key, reply) > 0;
        free(message);
        free(key);
        free(reply);
    }
    if (out) written = fclose(out) == 0 && written;
    if (written) written = rename(temporary, t->file) == 0;
    if (!written) {
        transport_log(self->host, PH_LOG_WARNING, "cannot keep the posted notifications in %s: %s", t->file,
                      strerror(errno));
        if (temporary) unlink(temporary);
    }
    free(temporary);
}

void desktop_posted_free(desktop_posted_table *t) {
    desktop_posted_clear(t);
    free(t->server);
    free(t->file);
    t->server = t->file = NULL;
}
