// Concurrency leases per key, counted in the process: a key holds at most `limit` at once.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace eventsvc::plugins::limits {

class ConcurrencyLimiter {
 public:
  // The leases of `key` held with this one, or nullopt when `limit` are already held.
  std::optional<int> acquire(std::string_view key, int limit);
  void release(std::string_view key);
  int active(std::string_view key) const;

 private:
  mutable std::mutex mutex_;
  // Only keys with leases held: a key's entry goes with its last lease.
  std::unordered_map<std::string, int> active_;
};

}  // namespace eventsvc::plugins::limits
