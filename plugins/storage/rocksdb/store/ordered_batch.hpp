// A write batch assembled in any order and committed in key order. A projection round writes
// hundreds of thousands of index keys scattered over the key space; inserted sorted, RocksDB's
// memtable skiplist reuses its search path from one insert to the next. Operations on the same
// key keep the order they were added in.
#pragma once

#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <cstdint>
#include <string>
#include <vector>

namespace eventsvc::plugins::rocksdb_storage {

class OrderedBatch {
 public:
  void put(rocksdb::ColumnFamilyHandle* family, std::string key, std::string value);
  // Removes a key that was written exactly once (current state's version and index keys: a
  // version stops being current once, and is never current again). A single-delete tombstone
  // disappears when it meets its put, instead of lingering until the bottom level and slowing
  // every scan across it.
  void remove(rocksdb::ColumnFamilyHandle* family, std::string key);
  void merge(rocksdb::ColumnFamilyHandle* family, std::string key, std::string value);

  // Appends every operation to `batch` in (column family, key, insertion) order and empties this.
  void move_into(rocksdb::WriteBatch& batch);
  std::size_t size() const { return operations_.size(); }

 private:
  enum class Kind : std::uint8_t { put, remove, merge };
  struct Operation {
    rocksdb::ColumnFamilyHandle* family;
    Kind kind;
    std::uint32_t order;
    std::string key;
    std::string value;
  };
  std::vector<Operation> operations_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
