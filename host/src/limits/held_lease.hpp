// A concurrency lease a request holds while it runs: handed back to the limits plugin when the
// holder is reset, reassigned or destroyed, exactly once.
#pragma once

#include <optional>
#include <utility>

#include "eventsvc/sdk/limits.hpp"

namespace eventsvc::host {

class HeldLease {
 public:
  HeldLease() = default;
  HeldLease(sdk::Limits& limits, sdk::Lease lease) : limits_(&limits), lease_(std::move(lease)) {}
  HeldLease(const HeldLease&) = delete;
  HeldLease& operator=(const HeldLease&) = delete;
  HeldLease(HeldLease&& other) noexcept
      : limits_(std::exchange(other.limits_, nullptr)), lease_(std::move(other.lease_)) {}
  HeldLease& operator=(HeldLease&& other) noexcept {
    if (this != &other) {
      reset();
      limits_ = std::exchange(other.limits_, nullptr);
      lease_ = std::move(other.lease_);
    }
    return *this;
  }
  ~HeldLease() { reset(); }

  void reset() noexcept {
    if (limits_ != nullptr) limits_->release(lease_);
    limits_ = nullptr;
  }
  explicit operator bool() const { return limits_ != nullptr; }
  int active() const { return lease_.active; }

 private:
  sdk::Limits* limits_ = nullptr;
  sdk::Lease lease_;
};

}  // namespace eventsvc::host
