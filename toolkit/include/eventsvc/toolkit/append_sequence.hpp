// Sequence numbers of appends to a log that commit concurrently. Concurrent appends become durable
// in any order (they share syncs), so a reader may only pass a number once every smaller one is
// durable or abandoned: safe_upper() is the first number still in flight. The storage engine's
// inbox and the local durable log order their entries this way.
#pragma once

#include <cstdint>
#include <mutex>
#include <set>

namespace eventsvc::toolkit {

class AppendSequence {
 public:
  explicit AppendSequence(std::uint64_t next) : next_(next) {}

  std::uint64_t begin() {
    const std::lock_guard lock(mutex_);
    in_flight_.insert(next_);
    return next_++;
  }
  // The append with this number is durable, or failed and will never appear.
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

}  // namespace eventsvc::toolkit
