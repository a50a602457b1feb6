// A plugin's RocksDB database written again without what was deleted: every memtable flushed (the
// write-ahead logs that held them are then obsolete and deleted) and every column family compacted
// down to its last level, so that no table file keeps a deleted or overwritten value (but what a
// live snapshot still sees). What an erasure's purge asks of every database that held the erased
// events.
//
// Header-only, so that the toolkit library itself does not depend on RocksDB.
#pragma once

#include <rocksdb/db.h>

#include <string>
#include <vector>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::toolkit {

// Waits for it. Throws sdk::Error 503 naming `what` when RocksDB fails.
inline void compact_rocksdb_fully(rocksdb::DB& database,
                                  const std::vector<rocksdb::ColumnFamilyHandle*>& families,
                                  const std::string& what) {
  auto check = [&](const rocksdb::Status& status, const char* step) {
    if (!status.ok()) {
      throw sdk::Error::unavailable(what + ": the " + step + " failed (" + status.ToString() + ")",
                                    5);
    }
  };
  rocksdb::FlushOptions flush;
  flush.wait = true;
  check(database.Flush(flush, families), "flush");
  rocksdb::CompactRangeOptions options;
  options.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForce;
  for (auto* family : families)
    check(database.CompactRange(options, family, nullptr, nullptr), "compaction");
}

}  // namespace eventsvc::toolkit
