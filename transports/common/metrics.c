/*
 * metrics.c: see metrics.h.
 */
#include "metrics.h"

#include <stdbool.h>

const ph_metrics *transport_metrics_declare(const ph_host *host, const transport_metric_spec *specs, size_t count) {
    const ph_metrics *metrics = host->get_extension(host, PH_EXT_METRICS);
    const bool usable = metrics && PH_HAS_FIELD(ph_metrics, metrics, metric);
    for (size_t i = 0; i < count; i++) {
        *specs[i].handle = usable ? metrics->metric(host, specs[i].kind, specs[i].name, specs[i].help, NULL, NULL, 0) : NULL;
        if (specs[i].kind == PH_METRIC_GAUGE) transport_metric_set(metrics, *specs[i].handle, 0);
    }
    return metrics;
}

void transport_metric_add(const ph_metrics *metrics, ph_metric *metric, double value) {
    if (metric && metrics && PH_HAS_FIELD(ph_metrics, metrics, add)) metrics->add(metric, value);
}

void transport_metric_set(const ph_metrics *metrics, ph_metric *metric, double value) {
    if (metric && metrics && PH_HAS_FIELD(ph_metrics, metrics, set)) metrics->set(metric, value);
}
