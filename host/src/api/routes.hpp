// The five /v1 routes and the endpoint behind each.
#pragma once

#include "config/host_config.hpp"
#include "metrics/host_metrics.hpp"
#include "modules/module_registry.hpp"
#include "server/router.hpp"

namespace eventsvc::host {

// Ingest bodies are limited to 1 MiB by the API contract (API-SPEC 4.1).
inline constexpr std::size_t kIngestBodyLimit = 1 << 20;

Router build_routes(const HostConfig& config, ModuleRegistry& modules, HostMetrics& metrics);

}  // namespace eventsvc::host
