#include "admin/operator_pages.hpp"

#include "admin/admin_answer.hpp"
#include "eventsvc/sdk/json.hpp"
#include "metrics/metric_families.hpp"
#include "metrics/process_metrics.hpp"
#include "server/http_response.hpp"

namespace eventsvc::host {

namespace {

constexpr std::string_view kPrometheusText = "text/plain; version=0.0.4; charset=utf-8";

Answer json_page(int status, const sdk::json::object& body) {
  return admin_json(status, body);
}

}  // namespace

Answer OperatorPages::answer(const AdminRequest& request) const {
  const std::string_view method = request.method;
  const std::string_view path = request.path;
  if (path == "/admin/keys" || path.starts_with("/admin/keys/")) return keys_.answer(request);
  if (console_ && ConsoleSite::serves(path)) {
    return console_->answer(method, path, request.accept_encoding);
  }
  Answer answer;
  if (path != "/healthz" && path != "/readyz" && path != "/metrics") {
    answer_with(answer, sdk::Error::not_found(
                            "no such page: " + std::string(path) +
                            "; the admin listener serves /healthz, /readyz, /metrics" +
                            (console_ ? ", /admin/keys and /console/" : " and /admin/keys")));
    return answer;
  }
  if (method != "GET" && method != "HEAD") {
    answer_with(answer, method_not_allowed(method, path, {"GET", "HEAD"}, answer.headers));
    return answer;
  }
  if (path == "/healthz") return health();
  if (path == "/readyz") return readiness();
  return metrics();
}

Answer OperatorPages::health() const {
  // Alive and serving: this answer itself is the check. While stopping, say so, so that a
  // supervisor does not restart a process that is finishing its requests.
  if (sources_.pipeline.refusing()) return json_page(503, {{"status", "stopping"}});
  return json_page(200, {{"status", "ok"}});
}

Answer OperatorPages::readiness() const {
  sdk::json::object checks;
  sdk::json::array reasons;
  const auto check = [&](std::string_view name, bool ok, sdk::json::object detail,
                         const std::string& reason) {
    detail["ok"] = ok;
    checks[name] = std::move(detail);
    if (!ok) reasons.emplace_back(reason);
  };

  const bool stopping = sources_.pipeline.refusing();
  check("accepting", !stopping, {}, "the server is shutting down");

  sdk::StorageHealth storage;
  std::string storage_problem;
  try {
    storage = sources_.modules.storage().call([](sdk::Storage& s) { return s.health(); });
    storage_problem = storage.problem;
  } catch (const sdk::Error& error) {
    storage_problem = error.message();
    storage.projecting = false;
  }
  check("storage", storage_problem.empty(), {},
        storage_problem.empty() ? std::string() : "storage: " + storage_problem);
  const auto max_backlog = sources_.config.admin.ready_max_backlog;
  check("projector", storage.projecting, {},
        "the projector is not running or its last round failed");
  if (storage.follows_log) {
    check("log", storage.caught_up, {},
          "catching up with the durable log: its copy here is not complete yet");
  }
  check("backlog", storage.projection_backlog <= max_backlog,
        {{"writes", storage.projection_backlog}, {"max", max_backlog}},
        std::to_string(storage.projection_backlog) +
            " accepted writes wait to be projected (admin.ready_max_backlog is " +
            std::to_string(max_backlog) + ")");

  const bool ready = reasons.empty();
  sdk::json::object body{{"status", ready ? "ready" : "not_ready"}, {"checks", std::move(checks)}};
  if (!ready) body["reasons"] = std::move(reasons);
  return json_page(ready ? 200 : 503, body);
}

Answer OperatorPages::metrics() const {
  MetricFamilies families;
  {
    const auto host = families.sink("eventsvc_");
    host->gauge("build_info", "The running version (the value is always 1)", 1,
                {{"version", EVENTSVC_VERSION}});
    host->gauge("ready", "1 when /readyz answers 200, else 0", readiness().status == 200 ? 1 : 0);
    sources_.metrics.report(*host);
    report_connection_stats(sources_.connections, *host);
  }
  report_process_metrics(*families.sink(""));
  for (const auto& loaded : sources_.modules.loaded()) {
    const auto plugin = families.sink("eventsvc_", {{"plugin", loaded.instance}});
    try {
      call_plugin("plugin '" + loaded.instance + "'",
                  [&] { loaded.plugin->report_metrics(*plugin); });
    } catch (const sdk::Error& error) {
      sources_.log.log(sdk::LogLevel::warning, "admin",
                       "metrics of plugin '" + loaded.instance + "' left out: " + error.message());
    }
  }
  if (families.rejected() > 0 && !warned_.exchange(true)) {
    sources_.log.log(sdk::LogLevel::warning, "admin",
                     std::to_string(families.rejected()) + " metric series left out, e.g. " +
                         families.rejections().front());
  }
  return admin_page(200, families.text(), kPrometheusText);
}

}  // namespace eventsvc::host
