// Sequence numbers of accepted writes. Concurrent writes commit in any order (they share syncs),
// so the projector may only pass a sequence number once every smaller one is committed or
// abandoned: safe_upper() is the first number still in flight.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>

namespace eventsvc::plugins::rocksdb_storage {

class InboxSequence {
 public:
  explicit InboxSequence(std::uint64_t next) : next_(next) {}

  std::uint64_t begin() {
    const std::lock_guard lock(mutex_);
    in_flight_.insert(next_);
    return next_++;
  }
  // The write with this number is durable, or failed and will never appear.
  void end(std::uint64_t sequence) {
    const std::lock_guard lock(mutex_);
    in_flight_.erase(sequence);
  }
  std::uint64_t safe_upper() const {
    const std::lock_guard lock(mutex_);
    return in_flight_.empty() ? next_ : *in_flight_.begin();
  }

 private:
  mutable std::mutex mutex_;
  std::uint64_t next_;
  std::set<std::uint64_t> in_flight_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
