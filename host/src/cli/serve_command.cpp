#include <pthread.h>

#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "admin/operator_pages.hpp"
#include "api/routes.hpp"
#include "cli/commands.hpp"
#include "cli/config_arguments.hpp"
#include "console/console_site.hpp"
#include "control/control_commands.hpp"
#include "control/control_socket.hpp"
#include "keys/secret_file.hpp"
#include "logging/log_sink.hpp"
#include "metrics/host_metrics.hpp"
#include "modules/module_registry.hpp"
#include "retention/retention_sweeper.hpp"
#include "server/admin_server.hpp"
#include "server/https_server.hpp"
#include "server/request_pipeline.hpp"
#include "server/tls_material.hpp"

namespace eventsvc::host {

namespace {

// On first start (no key exists yet) creates a development key and shows how to use it; later
// starts only show the curl lines, since a key's secret is revealed once.
void bootstrap_key(const HostConfig& config, ModuleRegistry& modules, const std::string& base) {
  auto& auth = modules.auth();
  const auto keys = auth.call([](sdk::AuthProvider& a) { return a.list_keys(); });
  std::string key = "$EVENTSVC_KEY";
  if (keys.empty()) {
    sdk::KeyRequest request;
    request.tenant = {"dev", sdk::Environment::test};
    request.scopes = {std::string(sdk::kScopeRead), std::string(sdk::kScopeWrite)};
    request.plan = config.plan("default") != nullptr ? "default" : config.plans.begin()->first;
    request.label = "bootstrap";
    const auto created = auth.call([&](sdk::AuthProvider& a) { return a.create_key(request); });
    key = created.secret;
    std::printf(
        "\nCreated a development key for workspace 'dev' (test environment). It is shown once and "
        "not stored:\n\n  %s\n\n",
        key.c_str());
  } else {
    std::printf(
        "\nKeys already exist (listed by `eventsvc keys list`). Put one in EVENTSVC_KEY, or make a "
        "new one:\n  eventsvc keys create --workspace dev --env test --scopes "
        "events:read,events:write --data-dir %s\n\n",
        config.data_dir.c_str());
  }
  std::printf(
      "Send an event:\n  curl -sk %s/v1/events -H \"Authorization: Bearer %s\" "
      "-H 'Content-Type: application/json' -H \"Idempotency-Key: first-write-1\" "
      "-d '{\"stream\":\"demo\",\"events\":[{\"id\":\"evt-1\",\"type\":\"greeting\","
      "\"occurred_at\":\"'$(date -u +%%Y-%%m-%%dT%%H:%%M:%%SZ)'\",\"data\":{\"text\":\"hello "
      "world\"}}]}'\n\n"
      "Find it:\n  curl -sk %s/v1/search -H \"Authorization: Bearer %s\" "
      "-H 'Content-Type: application/json' -d '{\"query\":\"hello\"}'\n\n",
      base.c_str(), key.c_str(), base.c_str(), key.c_str());
}

std::string display_host(const std::string& host) {
  if (host == "0.0.0.0" || host == "::" || host.empty()) return "127.0.0.1";
  return host.find(':') != std::string::npos ? "[" + host + "]" : host;
}

// scheme://host:port, a wildcard host shown as loopback.
std::string url_of(std::string_view scheme, const std::string& host, std::uint16_t port) {
  return std::string(scheme) + "://" + display_host(host) + ":" + std::to_string(port);
}

// Blocks SIGINT and SIGTERM (taken by sigwait in run_serve; threads created from here on inherit
// the mask) and ignores the signals a server must survive. Returns the set to wait for.
sigset_t block_stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);
  // A file-size limit (ulimit -f) must fail the write that reaches it (EFBIG: a 503, storage not
  // ready), as PostgreSQL does, not kill the process with everything it has under way.
  std::signal(SIGXFSZ, SIG_IGN);
  return signals;
}

// The addresses served, on stdout for whoever started the server and as the log's "listening".
void announce_ready(const HostConfig& config, const std::string& base, const HttpsServer& server,
                    const AdminServer* admin, LogSink& log) {
  std::string admin_base;
  if (admin != nullptr) {
    admin_base = url_of("http", config.admin.listen->host, admin->port());
    std::printf("eventsvc admin: %s (/healthz, /readyz, /metrics)\n", admin_base.c_str());
  }
  if (config.console.enabled) {
    std::printf("eventsvc console: %s/console/ (sign in with an API key)\n", base.c_str());
    if (admin != nullptr) {
      std::printf(
          "eventsvc admin console: %s/console/ (keys and operations; sign in with the "
          "admin token in %s)\n",
          admin_base.c_str(), config.admin.token_file.c_str());
    }
  }
  std::printf("eventsvc ready: %s\n", base.c_str());
  std::fflush(stdout);
  sdk::json::object ready{
      {"https", base}, {"data_dir", config.data_dir.string()}, {"config", config.origin}};
  if (const auto http = server.http_port()) {
    ready["http"] = url_of("http", config.server.http_listen->host, *http);
  }
  if (admin != nullptr) ready["admin"] = admin_base;
  log.log(sdk::LogLevel::info, "host", "listening", std::move(ready));
}

}  // namespace

int run_serve(const std::vector<std::string>& args) {
  const Arguments arguments(args, kCommonOptions, {"bootstrap-key"});
  if (!arguments.positionals().empty()) {
    throw std::invalid_argument("unexpected argument '" + arguments.positionals().front() + "'");
  }
  const HostConfig config = config_from(arguments);

  const sigset_t signals = block_stop_signals();

  LogSink log;
  log.set_level(config.server.log_level);
  auto modules = ModuleRegistry::load(config, log, ModuleRegistry::Selection::all);
  if (ensure_tls_material(config.server.tls)) {
    log.log(sdk::LogLevel::info, "host",
            "created a self-signed certificate: " + config.server.tls.certificate.string());
  }
  ErasureLedger ledger(config.erasure_ledger);
  const CursorSeal cursor_seal = CursorSeal::from_file(config.cursors.secret_file);
  modules->start();
  HostMetrics metrics;
  std::optional<ConsoleSite> console;
  if (config.console.enabled) console.emplace(ConsoleSite::Listener::api);
  RequestPipeline pipeline(
      config, *modules, log, build_routes(config, *modules, metrics, ledger, cursor_seal), metrics,
      console ? FileSite([&console](const RequestHead& head) { return console->answer(head); })
              : FileSite());
  HttpsServer server(config, pipeline, log);
  const KeyAdmin keys(config, *modules, log,
                      load_or_create_secret(config.admin.token_file, "the admin token"));
  const OperatorPages pages({config, *modules, pipeline, metrics, server.stats(), log}, keys);
  // Before the API listener: a busy admin port stops the start before any client is served.
  std::optional<AdminServer> admin;
  if (config.admin.listen) {
    admin.emplace(
        *config.admin.listen,
        [&pages](const AdminRequest& request) { return pages.answer(request); }, log);
    admin->start();
  }
  // Commands run beside the server on this machine (eventsvc backup) reach it here.
  ControlSocket control(
      config.data_dir / kControlSocketName,
      [&](const sdk::json::object& request) {
        return answer_control(config, *modules, log, request);
      },
      log);
  try {
    control.start();
  } catch (const sdk::Error& error) {
    log.log(sdk::LogLevel::warning, "host",
            "no control socket, so `eventsvc backup` and `eventsvc retention` cannot reach this "
            "server: " +
                error.message());
  }
  server.start();
  RetentionSweeper retention(config, *modules, log);
  retention.start();

  const std::string base = url_of("https", config.server.listen.host, server.https_port());
  if (arguments.flag("bootstrap-key")) bootstrap_key(config, *modules, base);
  announce_ready(config, base, server, admin ? &*admin : nullptr, log);

  int received = 0;
  sigwait(&signals, &received);
  log.log(sdk::LogLevel::info, "host",
          std::string("stopping on ") + (received == SIGINT ? "SIGINT" : "SIGTERM"));
  // The admin listener answers through the grace period (/readyz: not ready, /healthz: stopping),
  // and stops before the plugins it reads.
  const bool joined = server.stop(config.server.shutdown_grace_s);
  control.stop();  // after a backup under way
  retention.stop();
  if (admin) admin->stop();
  modules->stop();
  if (!joined) {
    // A worker thread is still blocked on a client (a TLS handshake never finished): the servers
    // must not be destroyed under it. Everything acknowledged is durable; close the storage and go.
    modules.reset();
    log.log(sdk::LogLevel::info, "host", "stopped (a client connection was cut off)");
    std::fflush(stdout);
    std::_Exit(0);
  }
  log.log(sdk::LogLevel::info, "host", "stopped");
  return 0;
}

}  // namespace eventsvc::host
