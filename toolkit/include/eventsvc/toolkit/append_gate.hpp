// The admission of one append to a durable log that holds idempotency answers and claims (the
// storage engine's own inbox, the local log plugin): the rules of sdk/durable_log.hpp ("once",
// "claims") for appends that run concurrently in one process. Between its check and its commit an
// append holds its idempotency key (a second append of the key gets 409) and its claims (a second
// append of a claimed event counts it a duplicate), and a sequence number that keeps readers below
// it until the append is durable or failed.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <variant>
#include <vector>

#include "eventsvc/toolkit/append_sequence.hpp"

namespace eventsvc::toolkit {

// What an append asks the gate; the callbacks run under the gate's lock, so an append of the same
// key or claim that completed before is seen by them.
struct AppendCheck {
  std::string_view key;                    // the idempotency key, with its tenant
  const std::vector<std::string>& claims;  // per event, in order: the key it is claimed under
  // The key's completed answer, when it is still to be replayed.
  std::function<std::optional<std::string>()> stored_answer;
  // Whether an append that completed took this claim.
  std::function<bool(const std::string& claim)> claimed_before;
  // Runs once the append is known to be new (not a replay, not in flight); may throw to refuse it.
  std::function<void()> admit;
};

class AppendGate {
 public:
  explicit AppendGate(AppendSequence& sequence) : sequence_(sequence) {}

  // An append let through. Destroying it, once the append is durable or has failed, frees its
  // key, its claims and its sequence number.
  class Pass {
   public:
    Pass() = default;  // holds nothing until the gate lets it through
    Pass(Pass&& other) noexcept;
    Pass& operator=(Pass&&) = delete;
    Pass(const Pass&) = delete;
    Pass& operator=(const Pass&) = delete;
    ~Pass();

    std::vector<bool> duplicate;       // per event: claimed before, or earlier in this append
    std::vector<std::string> claimed;  // the claims this append takes, each once
    std::uint64_t sequence = 0;

   private:
    friend class AppendGate;
    AppendGate* gate_ = nullptr;
    std::string key_;
  };

  // The key's answer to replay, or a pass. Throws sdk::Error 409 while another append holds the
  // key, and whatever `admit` throws.
  std::variant<std::string, Pass> enter(const AppendCheck& check);

 private:
  // Drops the pass's key and claims from the pending sets; the caller holds mutex_.
  void forget(const Pass& pass);
  void release(const Pass& pass);

  AppendSequence& sequence_;
  std::mutex mutex_;
  std::unordered_set<std::string> pending_keys_;
  std::unordered_set<std::string> pending_claims_;
};

}  // namespace eventsvc::toolkit
