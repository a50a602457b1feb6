// Limits plugins keep the plans' rate limits and concurrency leases (API-SPEC 2.9). Exactly one is
// active: `local` keeps them in the process (one server); `redis` keeps them in Redis, so that
// several servers behind one address admit no more than a plan allows in total.
//
// Every method is called from many threads at once, on the path of every request: keep it short.
// A plugin that cannot decide (its store is unreachable) either answers as if the limit were not
// reached or throws Error::unavailable; which one is the operator's choice, in its config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "eventsvc/sdk/plugin.hpp"

namespace eventsvc::sdk {

// One charge against a token bucket, and what the response headers say about it.
struct RateDecision {
  bool allowed = true;
  int limit = 0;           // X-RateLimit-Limit
  int remaining = 0;       // X-RateLimit-Remaining
  std::int64_t reset = 0;  // X-RateLimit-Reset: Unix seconds when the bucket is full again
  int retry_after = 0;     // seconds until one token is back (set when not allowed)
};

// What a token bucket of `limit_per_minute` tokens answers when it holds `tokens` after a charge
// (allowed: the charge took one) at Unix time `unix_now_ms`: remaining whole tokens, when it is
// full again and, when refused, the whole seconds until one token is back (at least 1). One rule
// for every limits plugin, so the headers mean the same whichever keeps the buckets.
RateDecision bucket_decision(bool allowed, double tokens, int limit_per_minute,
                             std::int64_t unix_now_ms);

// A concurrency lease: held while a request runs, handed back to release() when it ends.
struct Lease {
  std::string key;
  std::string token;  // the plugin's name for this lease (unique among the key's leases)
  int active = 0;     // leases of the key held when this one was granted, itself included
};

class Limits : public Plugin {
 public:
  static constexpr PluginKind kKind = PluginKind::limits;

  ~Limits() override;

  // Takes one token from the bucket `key`. A bucket holds up to `limit_per_minute` tokens and
  // refills at that many per minute, so a client may burst to its per-minute limit and then goes
  // on at the steady rate. A bucket not seen before starts full.
  virtual RateDecision charge(std::string_view key, int limit_per_minute) = 0;

  // A lease on `key`, or nullopt when `limit` leases of it are already held.
  virtual std::optional<Lease> acquire(std::string_view key, int limit) = 0;

  // Hands a lease back. Must not throw: it runs when a request ends, however it ended. A lease
  // that is never released (its server died) must not be held for ever.
  virtual void release(const Lease& lease) noexcept = 0;
};

}  // namespace eventsvc::sdk
