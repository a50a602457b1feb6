// Streams of candidate record versions in (timestamp, id) order, ascending or descending. The
// planner builds one per usable index and combines them; the scan reads records in the order the
// combined stream yields them, so ordered answers stop as soon as they have `limit` matches.
#pragma once

#include <rocksdb/iterator.h>

#include <memory>
#include <string>
#include <vector>

#include "eventsvc/sdk/condition.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/condition.hpp"
#include "store/database.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct VersionRef {
  sdk::Millis timestamp = 0;
  std::string id;
};

// <0 when `a` comes before `b` in the direction of `order`.
int compare(const VersionRef& a, const VersionRef& b, sdk::Order order);

class CandidateStream {
 public:
  virtual ~CandidateStream() = default;
  virtual bool valid() const = 0;
  virtual const VersionRef& current() const = 0;
  virtual void next() = 0;
  // Moves to the first entry not before `target` (in stream order); never moves backwards.
  virtual void seek(const VersionRef& target) = 0;
  // The index entry's value at the current position (a posting's tf and length); empty for
  // streams that are not a single index range.
  virtual std::string_view value() const { return {}; }
};

using StreamPtr = std::unique_ptr<CandidateStream>;

// Keys <prefix><instant>[<id>] of one column family within time bounds. Without an id in the key
// (the id index), every entry's id is `fixed_id`. `fill_cache` as Database::iterator's.
StreamPtr key_range_stream(Database& database, rocksdb::ColumnFamilyHandle* family,
                           std::string prefix, bool id_in_key, std::string fixed_id,
                           const toolkit::TimeBounds& bounds, sdk::Order order,
                           bool fill_cache = true);

// Entries of any of the streams, each once.
StreamPtr union_stream(std::vector<StreamPtr> streams, sdk::Order order);

// Entries present in every stream (leapfrog join).
StreamPtr intersection_stream(std::vector<StreamPtr> streams, sdk::Order order);

// A collected list (sorted here).
StreamPtr listed_stream(std::vector<VersionRef> refs, sdk::Order order);

StreamPtr empty_stream();

}  // namespace eventsvc::plugins::rocksdb_storage
