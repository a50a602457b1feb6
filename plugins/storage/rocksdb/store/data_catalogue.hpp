// What a data directory must still hold when it is opened again, kept in a small file beside the
// database files (`eventsvc-catalogue`): the format, the column families, and how far the
// projector had come. RocksDB opens some damaged databases without a word (a truncated MANIFEST
// forgets column families, which would be created again empty); comparing the database with the
// catalogue turns that into a refusal to start, so that nothing acknowledged is served as if it
// had never been written.
//
// The file is one JSON object with a SHA-256 of the rest, replaced whole (toolkit::replace_file).
// It only ever records what is durable: the projector position is read from the database before its
// write-ahead log is synced, then written here.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "eventsvc/toolkit/files.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct DataCatalogue {
  static constexpr std::int64_t kFormat = 1;
  static constexpr const char* kFileName = "eventsvc-catalogue";

  std::vector<std::string> families;
  std::uint64_t projected = 0;  // the projector's position (its next inbox sequence number)

  // nullopt when the directory has none (a new database, or one from before catalogues); throws
  // sdk::Error naming the file when it is damaged or of another format.
  static std::optional<DataCatalogue> read(const std::filesystem::path& directory);
  void write(const std::filesystem::path& directory) const;
};

}  // namespace eventsvc::plugins::rocksdb_storage
