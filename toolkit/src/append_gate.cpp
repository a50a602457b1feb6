#include "eventsvc/toolkit/append_gate.hpp"

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::toolkit {

AppendGate::Pass::Pass(Pass&& other) noexcept
    : duplicate(std::move(other.duplicate)),
      claimed(std::move(other.claimed)),
      sequence(other.sequence),
      gate_(std::exchange(other.gate_, nullptr)),
      key_(std::move(other.key_)) {}

AppendGate::Pass::~Pass() {
  if (gate_ != nullptr) gate_->release(*this);
}

std::variant<std::string, AppendGate::Pass> AppendGate::enter(const AppendCheck& check) {
  const std::lock_guard lock(mutex_);
  if (pending_keys_.contains(std::string(check.key))) {
    throw sdk::Error::conflict(
        "a write with this Idempotency-Key is still being processed; retry after Retry-After "
        "seconds",
        1);
  }
  if (auto answer = check.stored_answer()) return std::move(*answer);
  check.admit();
  std::vector<bool> duplicate(check.claims.size(), false);
  std::vector<std::string> claimed;
  std::unordered_set<std::string_view> in_append;
  for (std::size_t i = 0; i < check.claims.size(); ++i) {
    const std::string& claim = check.claims[i];
    duplicate[i] = !in_append.insert(claim).second || pending_claims_.contains(claim) ||
                   check.claimed_before(claim);
    if (!duplicate[i]) claimed.push_back(claim);
  }
  std::variant<std::string, Pass> entered(std::in_place_type<Pass>);
  Pass& pass = std::get<Pass>(entered);
  pass.duplicate = std::move(duplicate);
  pass.claimed = std::move(claimed);
  pass.key_ = std::string(check.key);
  pass.sequence = sequence_.begin();
  try {
    pending_keys_.insert(pass.key_);
    pending_claims_.insert(pass.claimed.begin(), pass.claimed.end());
  } catch (...) {  // out of memory: hold nothing (the lock is held, so not through the pass)
    forget(pass);
    sequence_.end(pass.sequence);
    throw;
  }
  pass.gate_ = this;  // from here on, destroying the pass frees what it holds
  return entered;
}

void AppendGate::forget(const Pass& pass) {
  pending_keys_.erase(pass.key_);
  for (const auto& claim : pass.claimed)
    pending_claims_.erase(claim);
}

void AppendGate::release(const Pass& pass) {
  {
    const std::lock_guard lock(mutex_);
    forget(pass);
  }
  sequence_.end(pass.sequence);
}

}  // namespace eventsvc::toolkit
