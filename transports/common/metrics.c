/*
 * metrics.c: see metrics.h.
 */
#include "metrics.h"

const ph_metrics *transport_metrics(const ph_host *host) {
    return host->get_extension(host, PH_EXT_METRICS);
}

ph_metric *transport_metric(const ph_host *host, const ph_metrics *metrics, ph_metric_kind kind, const char *name,
                            const char *help) {
    if (!metrics || !PH_HAS_FIELD(ph_metrics, metrics, metric)) return NULL;
    return metrics->metric(host, kind, name, help, NULL, NULL, 0);
}

void transport_metric_add(const ph_metrics *metrics, ph_metric *metric, double value) {
    if (metric && metrics && PH_HAS_FIELD(ph_metrics, metrics, add)) metrics->add(metric, value);
}

void transport_metric_set(const ph_metrics *metrics, ph_metric *metric, double value) {
    if (metric && metrics && PH_HAS_FIELD(ph_metrics, metrics, set)) metrics->set(metric, value);
}
