#include "control/control_commands.hpp"

#include <string>

#include "backup/take_backup.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "retention/retention_sweep.hpp"

namespace eventsvc::host {

namespace {

sdk::json::object back_up(const HostConfig& config, const ModuleRegistry& modules, LogSink& log,
                          const sdk::json::object& request) {
  const auto* to = request.if_contains("to");
  if (to == nullptr || !to->is_string()) {
    throw sdk::Error::bad_request("a backup names its directory (\"to\")");
  }
  log.log(sdk::LogLevel::info, "host", "backup started", {{"to", to->get_string()}});
  try {
    const BackupSummary summary = take_backup(config, modules, std::string(to->get_string()));
    auto fields = summary.to_json();
    log.log(sdk::LogLevel::info, "host", "backup taken", fields);
    return {{"ok", true}, {"backup", std::move(fields)}};
  } catch (const std::exception& error) {
    log.log(sdk::LogLevel::warning, "host", std::string("backup failed: ") + error.what());
    throw;
  }
}

sdk::json::object sweep(const HostConfig& config, const ModuleRegistry& modules, LogSink& log,
                        const sdk::json::object& request) {
  const auto* dry_run = request.if_contains("dry_run");
  if (dry_run != nullptr && !dry_run->is_bool()) {
    throw sdk::Error::bad_request("dry_run is true or false");
  }
  const bool dry = dry_run != nullptr && dry_run->get_bool();
  return {
      {"ok", true},
      {"retention", sweep_retention(config, modules, log, toolkit::now_millis(), dry).to_json()}};
}

}  // namespace

sdk::json::object answer_control(const HostConfig& config, const ModuleRegistry& modules,
                                 LogSink& log, const sdk::json::object& request) {
  const auto* command = request.if_contains("command");
  const std::string_view name =
      command != nullptr && command->is_string() ? std::string_view(command->get_string()) : "";
  if (name == "backup") return back_up(config, modules, log, request);
  if (name == "retention") return sweep(config, modules, log, request);
  throw sdk::Error::bad_request(
      "unknown control command; the server takes \"backup\" and \"retention\"");
}

}  // namespace eventsvc::host
