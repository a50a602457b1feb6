// RocksDB before 8.3 keeps the empty write-ahead log each open starts until a memtable flush, so
// a database opened again and again without writes in between (a server in a crash loop, a week
// of reads) gathered one file per open, and each open read them all (RocksDB issue 11313). An
// empty log holds no write: a plugin removes them before it opens its database, as RocksDB 8.3
// does at the open. Header-only, like the other RocksDB helpers here.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

namespace eventsvc::toolkit {

// Removes the empty logs (<number>.log of no bytes) in the database directory `path`; quietly
// leaves what it cannot list or remove.
inline void remove_empty_rocksdb_logs(const std::filesystem::path& path) {
  std::error_code error;
  std::filesystem::directory_iterator entries(path, error);
  if (error) return;
  for (const auto& entry : entries) {
    const std::string stem = entry.path().stem().string();
    if (entry.path().extension() != ".log" || stem.empty() ||
        stem.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    std::error_code ignored;
    if (entry.is_regular_file(ignored) && entry.file_size(ignored) == 0 && !ignored) {
      std::filesystem::remove(entry.path(), ignored);
    }
  }
}

}  // namespace eventsvc::toolkit
