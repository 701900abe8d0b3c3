/*
 * token_log.c: a token plugin (on_token), the receiver of registration
 * token refreshes: it records each new token next to the one it replaces.
 *
 * Shows: the token role, where the host hands over plain strings instead
 * of a message (both borrowed until on_token returns), and reporting
 * through host->log when no file is set.
 *
 * Setting:  path  file to append to (optional; default: host->log at info)
 * Output:   token <new> previous <previous or ->
 */
#include "../common/sample.h" /* the plumbing: state, create/destroy, log lines */

#include <stdio.h>

/* The setting is optional: without it, self->out stays NULL and the lines
 * go to host->log. */
static void *token_log_create(const ph_host *host, const ph_config *config) {
    return sample_create(host, config, NULL);
}

/* previous is NULL for the very first token. */
static void token_log_on_token(void *p, const char *token, const char *previous) {
    sample *self = p;
    const ph_host *h = self->host;
    if (!previous || !*previous) previous = "-";

    if (self->out) {
        fprintf(self->out, "token %s previous %s\n", token, previous);
        /* Flush each line: others may read the file while the host runs. */
        if (fflush(self->out) != 0) h->log(h, PH_LOG_WARNING, "cannot write the token line");
        return;
    }
    sample_log(h, PH_LOG_INFO, "token %s previous %s", token, previous);
}

/* It offers and uses no extension (ABI 1.2). */
static const char *const extensions[] = {NULL};

static const ph_plugin plugin = {
    PH_PLUGIN_HEADER,
    .name = "token-log",
    .version = "1.0.0",
    .description = "Token receiver: records each new registration token and the one it replaces.",
    .create = token_log_create,
    .destroy = sample_destroy,
    .on_token = token_log_on_token,
    .extensions = extensions,
};

PH_EXPORT const ph_plugin *ph_plugin_entry(void) { return &plugin; }
