// `eventsvc backup`: a consistent copy of a data directory, taken while the server serves. Every
// plugin instance writes its copy into a folder of its name (sdk::Plugin::back_up: the storage
// and the local log as RocksDB checkpoints, whose table files are hard links where the backup
// shares the data directory's file system) or has its files copied; then the TLS material kept in
// the data directory, then the manifest (backup_manifest.hpp), last.
#pragma once

#include <cstdint>
#include <filesystem>

#include "config/host_config.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/time.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

struct BackupSummary {
  std::filesystem::path to;
  std::size_t files = 0;
  std::uint64_t bytes = 0;
  std::uint64_t shared_bytes = 0;  // of those, in files hard-linked to the data directory
  sdk::Millis took_ms = 0;

  sdk::json::object to_json() const;
};

// Writes the backup of `modules` (loaded and started from `config`) into `to`: an absolute path,
// new or an empty directory, outside the data directory. Throws sdk::Error 400 for such a `to`;
// any other failure removes what was written and throws.
BackupSummary take_backup(const HostConfig& config, const ModuleRegistry& modules,
                          const std::filesystem::path& to);

}  // namespace eventsvc::host
