#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "backup/take_backup.hpp"
#include "cli/commands.hpp"
#include "cli/config_arguments.hpp"
#include "control/control_socket.hpp"
#include "eventsvc/sdk/error.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

namespace {

// No server runs on the data directory: the backup is taken by this process, with the plugins
// created as `serve` creates them but not started, so that none works meanwhile (a shared log's
// plugin would report this server's progress).
sdk::json::object back_up_here(const HostConfig& config, const std::filesystem::path& to) {
  LogSink log;
  log.set_level(sdk::LogLevel::warning);
  const auto modules = ModuleRegistry::load(config, log, ModuleRegistry::Selection::all);
  return take_backup(config, *modules, to).to_json();
}

double mebibytes(const sdk::json::value& bytes) {
  return bytes.to_number<double>() / (1024.0 * 1024.0);
}

}  // namespace

int run_backup(const std::vector<std::string>& args) {
  auto options = kCommonOptions;
  options.insert("to");
  const Arguments arguments(args, options, {});
  if (!arguments.positionals().empty()) {
    throw std::invalid_argument("unexpected argument '" + arguments.positionals().front() + "'");
  }
  const HostConfig config = config_from(arguments);
  const auto to = std::filesystem::absolute(arguments.require("to")).lexically_normal();
  const auto socket = config.data_dir / kControlSocketName;
  sdk::json::object summary;
  bool online = false;
  if (auto answer =
          ask_server_for(socket, {{"command", "backup"}, {"to", to.string()}}, "backup")) {
    summary = std::move(*answer);
    online = true;
  } else {
    summary = back_up_here(config, to);
  }
  std::printf(
      "backed up %s (%s) into %s: %lld files, %.1f MiB (%.1f MiB shared with the data directory "
      "by hard links), in %.1f s\n",
      config.data_dir.c_str(), online ? "the running server" : "no server was running", to.c_str(),
      static_cast<long long>(summary.at("files").to_number<std::int64_t>()),
      mebibytes(summary.at("bytes")), mebibytes(summary.at("shared_bytes")),
      summary.at("took_ms").to_number<double>() / 1000.0);
  return 0;
}

}  // namespace eventsvc::host
