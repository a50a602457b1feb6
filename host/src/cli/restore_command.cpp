#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "backup/restore_backup.hpp"
#include "cli/commands.hpp"
#include "cli/config_arguments.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

int run_restore(const std::vector<std::string>& args) {
  auto options = kCommonOptions;
  options.insert("from");
  const Arguments arguments(args, options, {});
  if (!arguments.positionals().empty()) {
    throw std::invalid_argument("unexpected argument '" + arguments.positionals().front() + "'");
  }
  const HostConfig config = config_from(arguments);
  const auto from = std::filesystem::absolute(arguments.require("from")).lexically_normal();
  const RestoreSummary summary = restore_backup(from, config.data_dir);
  std::printf(
      "restored the backup taken %s by eventsvc %s into %s: %zu files, %.1f MiB (%.1f MiB of "
      "table files hard-linked from the backup). Start the server on it with the same config "
      "(its plugin instances): eventsvc serve --data-dir %s\n",
      toolkit::format_rfc3339(summary.created_at).c_str(), summary.version.c_str(),
      summary.data_dir.c_str(), summary.files,
      static_cast<double>(summary.bytes) / (1024.0 * 1024.0),
      static_cast<double>(summary.linked_bytes) / (1024.0 * 1024.0), summary.data_dir.c_str());
  return 0;
}

}  // namespace eventsvc::host
