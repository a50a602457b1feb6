// The process's own figures under the names every Prometheus client library uses (process_*), so
// the usual dashboards and alerts work unchanged: CPU time, memory, descriptors, threads, start.
#pragma once

#include "eventsvc/sdk/metrics.hpp"

namespace eventsvc::host {

// Reads /proc/self; a figure that cannot be read is left out.
void report_process_metrics(sdk::MetricsSink& sink);

}  // namespace eventsvc::host
