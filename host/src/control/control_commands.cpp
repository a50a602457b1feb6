#include "control/control_commands.hpp"

#include <string>

#include "backup/take_backup.hpp"
#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

sdk::json::object answer_control(const HostConfig& config, const ModuleRegistry& modules,
                                 LogSink& log, const sdk::json::object& request) {
  const auto* command = request.if_contains("command");
  if (command == nullptr || !command->is_string() || command->get_string() != "backup") {
    throw sdk::Error::bad_request("unknown control command; the server takes \"backup\"");
  }
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

}  // namespace eventsvc::host
