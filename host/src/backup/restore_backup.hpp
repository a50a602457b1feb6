// `eventsvc restore`: a backup (take_backup.hpp) written out as a new data directory. Nothing is
// written before every file of the backup matches its manifest, and the data directory appears
// whole or not at all: it is written beside its place and renamed into it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "eventsvc/sdk/time.hpp"

namespace eventsvc::host {

struct RestoreSummary {
  std::filesystem::path data_dir;
  std::size_t files = 0;
  std::uint64_t bytes = 0;
  std::uint64_t linked_bytes = 0;  // of those, table files hard-linked from the backup
  sdk::Millis created_at = 0;      // when the backup was taken
  std::string version;             // the eventsvc that took it
};

// Throws sdk::Error 400 when `data_dir` exists and is not empty, or the backup is not one, is
// damaged or of a newer format; other failures leave `data_dir` as it was.
RestoreSummary restore_backup(const std::filesystem::path& from,
                              const std::filesystem::path& data_dir);

}  // namespace eventsvc::host
