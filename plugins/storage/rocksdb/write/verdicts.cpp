#include "write/verdicts.hpp"

namespace eventsvc::plugins::rocksdb_storage {

std::string Verdicts::encode(sdk::Verification verification) {
  return std::string(1, static_cast<char>(verification));
}

sdk::Verification Verdicts::of(std::string_view tenant, std::string_view receipt_id) {
  std::string key(tenant);
  key += receipt_id;
  {
    const std::lock_guard lock(mutex_);
    if (const auto it = cache_.find(key); it != cache_.end()) return it->second;
  }
  const auto stored = database_.get(database_.verdicts, key);
  if (!stored || stored->empty()) return sdk::Verification::pending;
  const auto verification = static_cast<sdk::Verification>((*stored)[0]);
  const std::lock_guard lock(mutex_);
  if (cache_.size() >= kMaxCached) cache_.clear();
  cache_.emplace(std::move(key), verification);
  return verification;
}

}  // namespace eventsvc::plugins::rocksdb_storage
