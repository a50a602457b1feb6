#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>

#include "backup/restore_backup.hpp"
#include "cli/commands.hpp"
#include "cli/config_arguments.hpp"
#include "erasure/reapply_erasures.hpp"
#include "eventsvc/toolkit/files.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

std::optional<std::string> read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

int run_restore(const std::vector<std::string>& args) {
  auto options = kCommonOptions;
  options.insert("from");
  options.insert("erasure-ledger");
  const Arguments arguments(args, options, {});
  if (!arguments.positionals().empty()) {
    throw std::invalid_argument("unexpected argument '" + arguments.positionals().front() + "'");
  }
  const HostConfig config = config_from(arguments);
  const auto from = std::filesystem::absolute(arguments.require("from")).lexically_normal();
  // Read before the restore: by default the ledger lives in the data directory being filled.
  const auto ledger = std::filesystem::absolute(
                          arguments.get("erasure-ledger").value_or(config.erasure_ledger.string()))
                          .lexically_normal();
  const auto ledger_bytes = read_whole_file(ledger);
  const RestoreSummary summary = restore_backup(from, config.data_dir);
  // The restored server keeps the ledger's erasures for a later restore.
  if (ledger_bytes && !std::filesystem::exists(config.erasure_ledger)) {
    toolkit::replace_file(config.erasure_ledger, *ledger_bytes, 0600);
  }
  const ReappliedErasures erasures =
      ledger_bytes ? reapply_erasures(config, config.erasure_ledger) : ReappliedErasures{};
  std::printf(
      "restored the backup taken %s by eventsvc %s into %s: %zu files, %.1f MiB (%.1f MiB of "
      "table files hard-linked from the backup). Start the server on it with the same config "
      "(its plugin instances): eventsvc serve --data-dir %s\n",
      toolkit::format_rfc3339(summary.created_at).c_str(), summary.version.c_str(),
      summary.data_dir.c_str(), summary.files,
      static_cast<double>(summary.bytes) / (1024.0 * 1024.0),
      static_cast<double>(summary.linked_bytes) / (1024.0 * 1024.0), summary.data_dir.c_str());
  if (ledger_bytes) {
    std::printf(
        "erasure ledger %s: %zu erasures, %zu of them made after the backup and carried "
        "out again\n",
        ledger.c_str(), erasures.in_ledger, erasures.reapplied);
  } else {
    std::printf(
        "no erasure ledger at %s: no erasure made after the backup was carried out again "
        "(--erasure-ledger names the ledger of the server the backup came from)\n",
        ledger.c_str());
  }
  return 0;
}

}  // namespace eventsvc::host
