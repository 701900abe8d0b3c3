/*
 * metrics.h: a transport plugin's own metrics, through the host's
 * ph.metrics/1 (include/pushhost.h): registered in create(), the only time
 * the host takes them, and updated from whichever thread the event happens
 * on. The host serves them at /metrics as PLUGIN_NAME (PLUGIN: the plugin's
 * name, '-' as '_').
 *
 * A host without ph.metrics/1, or with a table too short for a call, leaves
 * the plugin nothing to count with: transport_metrics gives NULL, every
 * handle is NULL, and an update of a NULL handle does nothing. So is a
 * metric the host refused (it logs why). The plugin works the same either
 * way. Compiled into each plugin, like text.h.
 */
#ifndef TRANSPORT_METRICS_H
#define TRANSPORT_METRICS_H

#include <pushhost.h>

#include <stddef.h>

/* One series a plugin declares, without labels: where its handle goes, a
 * counter (its name ends in _total) or a gauge, and one line of help. */
typedef struct transport_metric_spec {
    ph_metric **handle;
    ph_metric_kind kind;
    const char *name;
    const char *help;
} transport_metric_spec;

/* [create] Declares each of specs, its handle NULL when the host refused
 * it (logged by the host); gauges start at 0. The host's ph.metrics/1, or
 * NULL (and every handle NULL) when it has none. */
const ph_metrics *transport_metrics_declare(const ph_host *host, const transport_metric_spec *specs, size_t count);

/* [any thread] Adds value (0 or more for a counter); nothing when metric is NULL. */
void transport_metric_add(const ph_metrics *metrics, ph_metric *metric, double value);

/* [any thread] Sets a gauge to value; nothing when metric is NULL. */
void transport_metric_set(const ph_metrics *metrics, ph_metric *metric, double value);

#endif
