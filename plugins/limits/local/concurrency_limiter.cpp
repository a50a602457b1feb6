#include "concurrency_limiter.hpp"

namespace eventsvc::plugins::limits {

std::optional<int> ConcurrencyLimiter::acquire(std::string_view key, int limit) {
  const std::lock_guard lock(mutex_);
  const auto it = active_.find(std::string(key));
  const int held = it == active_.end() ? 0 : it->second;
  if (held >= limit) return std::nullopt;
  if (it == active_.end()) {
    active_.emplace(std::string(key), 1);
  } else {
    ++it->second;
  }
  return held + 1;
}

void ConcurrencyLimiter::release(std::string_view key) {
  const std::lock_guard lock(mutex_);
  const auto it = active_.find(std::string(key));
  if (it == active_.end()) return;
  if (--it->second <= 0) active_.erase(it);
}

int ConcurrencyLimiter::active(std::string_view key) const {
  const std::lock_guard lock(mutex_);
  const auto it = active_.find(std::string(key));
  return it == active_.end() ? 0 : it->second;
}

}  // namespace eventsvc::plugins::limits
