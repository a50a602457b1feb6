#pragma once

#include "cli/arguments.hpp"
#include "config/host_config.hpp"

namespace eventsvc::host {

// The config named by --config (the embedded default without it), with --data-dir, --listen and
// --admin-listen applied.
inline HostConfig config_from(const Arguments& arguments) {
  ConfigOverrides overrides;
  overrides.data_dir = arguments.get("data-dir");
  overrides.listen = arguments.get("listen");
  overrides.admin_listen = arguments.get("admin-listen");
  return load_host_config(arguments.get("config").value_or(""), overrides);
}

}  // namespace eventsvc::host
