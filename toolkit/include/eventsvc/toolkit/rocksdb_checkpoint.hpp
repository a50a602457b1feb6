// A plugin's RocksDB database copied for a backup (sdk::Plugin::back_up): a RocksDB checkpoint, a
// consistent point of every column family taken while writes go on. Table files are hard links
// where the backup is on the same file system (a second backup costs only what changed since the
// first), copies elsewhere; the memtables are flushed first, and the live write-ahead log is copied
// with it.
//
// Header-only, so that the toolkit library itself does not depend on RocksDB.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/utilities/checkpoint.h>

#include <filesystem>
#include <memory>
#include <string>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::toolkit {

// Where a database kept at `path` goes in the backup of an instance whose data_dir is `data_dir`
// and whose copy is written into `into`: at the same place under `into`. A database outside the
// data_dir (an absolute path in the config) could not be restored where the config looks for it:
// refused with Error 400 naming `config_key`.
inline std::filesystem::path backup_place(const std::filesystem::path& path,
                                          const std::filesystem::path& data_dir,
                                          const std::filesystem::path& into,
                                          const std::string& config_key) {
  const auto inside = path.lexically_normal().lexically_relative(data_dir.lexically_normal());
  if (inside.empty() || inside == "." || *inside.begin() == "..") {
    throw sdk::Error::bad_request(
        config_key + " (" + path.string() + ") is outside the data directory " + data_dir.string() +
        ": a backup restores a data directory, so keep the database inside it (a symbolic link "
        "from there to another disk works)");
  }
  return into / inside;
}

// Copies `database` into `into`, which must not exist yet (its parent must). Throws sdk::Error 500
// naming `what` and RocksDB's reason.
inline void checkpoint_rocksdb(rocksdb::DB& database, const std::filesystem::path& into,
                               const std::string& what) {
  rocksdb::Checkpoint* raw = nullptr;
  rocksdb::Status status = rocksdb::Checkpoint::Create(&database, &raw);
  const std::unique_ptr<rocksdb::Checkpoint> checkpoint(raw);
  if (status.ok()) status = checkpoint->CreateCheckpoint(into.string());
  if (!status.ok()) {
    throw sdk::Error::internal("cannot back up " + what + ": " + status.ToString());
  }
}

}  // namespace eventsvc::toolkit
