// The newest entries of each tenant's change feed in memory, with the records the projector made
// for them: live tails read what was just made searchable from here instead of RocksDB, so fifty
// tails of one workspace cost one projection's records, not fifty reads and decodes of each.
//
// A tenant's window holds every entry after its `start` place, in feed order: entries are added
// only once their round's batch is written, and the oldest leave when the windows together hold
// more than their capacity in versions (the window's start moves past them). An erasure drops the
// tenant's window before its batch is written, so no read serves an erased version from it; the
// window starts again with the next round. A read whose position lies before a window's start is
// the database's (change_feed.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "eventsvc/sdk/record.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct RecentEntry {
  std::string place;
  std::uint64_t first_ordinal = 0;
  std::string receipt_id;
  // One per version of the entry; the verification they carry is refreshed as readers find it
  // changed (update_verification).
  std::vector<std::shared_ptr<const sdk::Record>> records;
};

class RecentFeed {
 public:
  explicit RecentFeed(std::size_t capacity_versions) : capacity_(capacity_versions) {}

  // Adds a written entry; `start` is the place of the tenant's entry before it, used when the
  // tenant has no window yet.
  void append(const std::string& tenant, const std::string& start, RecentEntry entry);
  // Drops the tenant's window.
  void forget(const std::string& tenant);
  // Drops every window.
  void forget_all();

  struct Span {
    std::vector<std::shared_ptr<const RecentEntry>> entries;
    bool to_the_end = false;  // no entry of the window follows them
  };
  // The window's entries from the one at `after_place` on, when the window covers that place
  // (nullopt when it does not: the read is the database's); as many as hold `max_versions`.
  std::optional<Span> after(const std::string& tenant, const std::string& after_place,
                            std::size_t max_versions) const;

  // The entry with its records' verification set to `verification`, replacing it in the window so
  // that later readers find it so.
  std::shared_ptr<const RecentEntry> update_verification(
      const std::string& tenant, const std::shared_ptr<const RecentEntry>& entry,
      sdk::Verification verification);

 private:
  struct Window {
    std::string start;  // every entry after this place is in `entries`
    std::deque<std::shared_ptr<const RecentEntry>> entries;
  };
  void trim();

  std::size_t capacity_;
  mutable std::mutex mutex_;
  std::map<std::string, Window, std::less<>> windows_;
  std::deque<std::string> order_;  // the tenant of each entry held, oldest first
  std::size_t versions_ = 0;
};

}  // namespace eventsvc::plugins::rocksdb_storage
