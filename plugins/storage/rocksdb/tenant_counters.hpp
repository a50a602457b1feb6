// Accepted writes not yet projected, per tenant (the `projection_backlog` of freshness), and in
// all (the operator's backlog).
#pragma once

#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace eventsvc::plugins::rocksdb_storage {

class TenantCounters {
 public:
  void add(std::string_view tenant, std::ptrdiff_t delta) {
    const std::lock_guard lock(mutex_);
    auto& count = counts_[std::string(tenant)];
    count += delta;
    total_ += delta;
    if (count <= 0) counts_.erase(std::string(tenant));
  }
  std::size_t total() const {
    const std::lock_guard lock(mutex_);
    return total_ > 0 ? static_cast<std::size_t>(total_) : 0;
  }
  std::size_t get(std::string_view tenant) const {
    const std::lock_guard lock(mutex_);
    const auto it = counts_.find(std::string(tenant));
    return it == counts_.end() ? 0 : static_cast<std::size_t>(it->second);
  }

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::ptrdiff_t> counts_;
  std::ptrdiff_t total_ = 0;
};

}  // namespace eventsvc::plugins::rocksdb_storage
