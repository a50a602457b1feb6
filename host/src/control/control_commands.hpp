// What the control socket (control_socket.hpp) answers:
//   {"command": "backup", "to": DIR}  takes a backup of the running server (backup/take_backup.hpp)
//                                     and answers {"ok": true, "backup": the summary};
//   {"command": "retention", "dry_run": B}  sweeps retention now (retention/retention_sweep.hpp)
//                                     and answers {"ok": true, "retention": the sweep}.
#pragma once

#include "config/host_config.hpp"
#include "eventsvc/sdk/json.hpp"
#include "logging/log_sink.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

sdk::json::object answer_control(const HostConfig& config, const ModuleRegistry& modules,
                                 LogSink& log, const sdk::json::object& request);

}  // namespace eventsvc::host
