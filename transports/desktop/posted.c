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

#include <stdlib.h>
#include <string.h>

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
    return 0;
}

void desktop_posted_clear(desktop_posted_table *t) {
    for (size_t i = 0; i < DESKTOP_POSTED_CAP; i++)
        if (t->slots[i].id != 0) desktop_posted_forget(&t->slots[i]);
}
