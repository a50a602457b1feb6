#include "limits/concurrency_limiter.hpp"

#include <utility>

namespace eventsvc::host {

ConcurrencyLimiter::Lease::Lease(Lease&& other) noexcept
    : owner_(std::exchange(other.owner_, nullptr)),
      key_(std::move(other.key_)),
      active_(other.active_) {}

ConcurrencyLimiter::Lease& ConcurrencyLimiter::Lease::operator=(Lease&& other) noexcept {
  if (this != &other) {
    release();
    owner_ = std::exchange(other.owner_, nullptr);
    key_ = std::move(other.key_);
    active_ = other.active_;
  }
  return *this;
}

ConcurrencyLimiter::Lease::~Lease() {
  release();
}

void ConcurrencyLimiter::Lease::release() {
  if (owner_ != nullptr) owner_->release(key_);
  owner_ = nullptr;
}

std::optional<ConcurrencyLimiter::Lease> ConcurrencyLimiter::acquire(std::string_view key,
                                                                     int limit) {
  const std::lock_guard lock(mutex_);
  int& count = active_[std::string(key)];
  if (count >= limit) {
    if (count == 0) active_.erase(std::string(key));
    return std::nullopt;
  }
  ++count;
  return Lease(this, std::string(key), count);
}

int ConcurrencyLimiter::active(std::string_view key) const {
  const std::lock_guard lock(mutex_);
  const auto it = active_.find(std::string(key));
  return it == active_.end() ? 0 : it->second;
}

void ConcurrencyLimiter::release(const std::string& key) {
  const std::lock_guard lock(mutex_);
  const auto it = active_.find(key);
  if (it == active_.end()) return;
  if (--it->second <= 0) active_.erase(it);
}

}  // namespace eventsvc::host
