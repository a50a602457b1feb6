#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/config_arguments.hpp"
#include "control/control_socket.hpp"
#include "erasure/await_hidden.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "modules/module_registry.hpp"
#include "retention/retention_sweep.hpp"

namespace eventsvc::host {

namespace {

// No server runs on the data directory: this process starts the plugins, sweeps, and (unless it
// is a dry run) waits until the erasures it made are hidden; their purge finishes at the server's
// next start.
sdk::json::object sweep_here(const HostConfig& config, bool dry_run) {
  LogSink log;
  log.set_level(sdk::LogLevel::warning);
  const StartedModules modules(ModuleRegistry::load(config, log, ModuleRegistry::Selection::all));
  const RetentionSweep sweep =
      sweep_retention(config, *modules, log, toolkit::now_millis(), dry_run);
  std::vector<MadeErasure> made;
  for (const auto& swept : sweep.rules) {
    if (!swept.erasure_id.empty()) made.push_back({swept.rule.tenant, swept.erasure_id});
  }
  await_hidden(modules->storage(), made);
  return sweep.to_json();
}

std::string text_of(const sdk::json::value& value) {
  return value.is_string() ? std::string(value.get_string()) : "";
}

void print_sweep(const sdk::json::object& sweep, bool online) {
  const bool dry_run = sweep.at("dry_run").as_bool();
  std::printf("retention (%s%s): %lld versions %s\n",
              online ? "the running server" : "no server was running", dry_run ? ", dry run" : "",
              static_cast<long long>(sweep.at("versions").to_number<std::int64_t>()),
              dry_run ? "would go" : "go");
  for (const auto& item : sweep.at("rules").as_array()) {
    const auto& rule = item.as_object();
    const std::string stream = text_of(rule.at("stream"));
    std::printf("  %s/%s%s: kept %lld days, before %s: %lld versions%s%s\n",
                text_of(rule.at("workspace")).c_str(), text_of(rule.at("environment")).c_str(),
                stream.empty() ? "" : (", stream " + stream).c_str(),
                static_cast<long long>(rule.at("days").to_number<std::int64_t>()),
                text_of(rule.at("before")).c_str(),
                static_cast<long long>(rule.at("versions").to_number<std::int64_t>()),
                rule.contains("erasure_id") ? ", erasure " : "",
                rule.contains("erasure_id") ? text_of(rule.at("erasure_id")).c_str() : "");
  }
  for (const auto& item : sweep.at("left_alone").as_array()) {
    const auto& tenant = item.as_object();
    std::printf("  %s/%s left alone: %s\n", text_of(tenant.at("workspace")).c_str(),
                text_of(tenant.at("environment")).c_str(), text_of(tenant.at("reason")).c_str());
  }
}

}  // namespace

int run_retention(const std::vector<std::string>& args) {
  const Arguments arguments(args, kCommonOptions, {"dry-run", "json"});
  if (!arguments.positionals().empty()) {
    throw std::invalid_argument("unexpected argument '" + arguments.positionals().front() + "'");
  }
  const HostConfig config = config_from(arguments);
  const bool dry_run = arguments.flag("dry-run");
  const auto socket = config.data_dir / kControlSocketName;
  sdk::json::object sweep;
  bool online = false;
  if (auto answer =
          ask_server_for(socket, {{"command", "retention"}, {"dry_run", dry_run}}, "retention")) {
    sweep = std::move(*answer);
    online = true;
  } else {
    sweep = sweep_here(config, dry_run);
  }
  if (arguments.flag("json")) {
    std::printf("%s\n", sdk::to_json(sweep).c_str());
  } else {
    print_sweep(sweep, online);
  }
  return 0;
}

}  // namespace eventsvc::host
