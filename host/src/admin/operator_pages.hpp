// What the admin listener answers: /healthz (the process serves), /readyz (it can take traffic:
// accepting, storage writable, projector running, backlog under admin.ready_max_backlog) and
// /metrics (every series of the host, the connection layer, the process and each plugin, in the
// Prometheus text format), /admin/keys (key_admin.hpp), and the admin console under /console
// (keys and operations in a browser) when console.enabled. No socket here: the admin server hands
// requests in, answers come out.
#pragma once

#include <atomic>
#include <optional>
#include <string_view>

#include "admin/key_admin.hpp"
#include "config/host_config.hpp"
#include "console/console_site.hpp"
#include "logging/log_sink.hpp"
#include "metrics/host_metrics.hpp"
#include "modules/module_registry.hpp"
#include "server/admin_server.hpp"
#include "server/connection_stats.hpp"
#include "server/http_message.hpp"
#include "server/request_pipeline.hpp"

namespace eventsvc::host {

struct OperatorSources {
  const HostConfig& config;
  ModuleRegistry& modules;
  const RequestPipeline& pipeline;
  const HostMetrics& metrics;
  const ConnectionStats& connections;
  LogSink& log;
};

class OperatorPages {
 public:
  OperatorPages(OperatorSources sources, const KeyAdmin& keys) : sources_(sources), keys_(keys) {
    if (sources.config.console.enabled) console_.emplace(ConsoleSite::Listener::admin);
  }

  // GET or HEAD of a page, or key management; 404 or 405 with the error body otherwise.
  Answer answer(const AdminRequest& request) const;

  Answer health() const;
  Answer readiness() const;
  Answer metrics() const;

 private:
  OperatorSources sources_;
  const KeyAdmin& keys_;
  std::optional<ConsoleSite> console_;
  mutable std::atomic<bool> warned_{false};  // of series left out, once
};

}  // namespace eventsvc::host
