#include <cstdio>
#include <stdexcept>

#include "cli/commands.hpp"
#include "cli/config_arguments.hpp"
#include "eventsvc/sdk/strings.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

int run_check_config(const std::vector<std::string>& args) {
  const Arguments arguments(args, kCommonOptions, {});
  if (!arguments.positionals().empty()) {
    throw std::invalid_argument("unexpected argument '" + arguments.positionals().front() + "'");
  }
  const HostConfig config = config_from(arguments);
  LogSink log;
  const auto modules = ModuleRegistry::load(config, log, ModuleRegistry::Selection::inspect);
  const std::string enabled = sdk::join(modules->loaded(), ", ", &ModuleRegistry::Loaded::instance);
  std::printf("%s: OK (%zu plugins enabled: %s)\n", config.origin.c_str(), modules->loaded().size(),
              enabled.c_str());
  return 0;
}

}  // namespace eventsvc::host
