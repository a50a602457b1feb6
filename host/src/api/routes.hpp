// The /v1 routes and the endpoint behind each.
#pragma once

#include "api/page_cursor.hpp"
#include "config/host_config.hpp"
#include "erasure/erasure_ledger.hpp"
#include "metrics/host_metrics.hpp"
#include "modules/module_registry.hpp"
#include "server/router.hpp"

namespace eventsvc::host {

Router build_routes(const HostConfig& config, ModuleRegistry& modules, HostMetrics& metrics,
                    ErasureLedger& ledger, const CursorSeal& seal);

}  // namespace eventsvc::host
