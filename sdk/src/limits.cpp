#include "eventsvc/sdk/limits.hpp"

#include <algorithm>
#include <cmath>

namespace eventsvc::sdk {

RateDecision bucket_decision(bool allowed, double tokens, int limit_per_minute,
                             std::int64_t unix_now_ms) {
  const double refill_per_ms = limit_per_minute / 60000.0;
  RateDecision decision;
  decision.allowed = allowed;
  decision.limit = limit_per_minute;
  decision.remaining = static_cast<int>(std::floor(std::max(0.0, tokens)));
  if (!allowed) {
    decision.retry_after =
        std::max(1, static_cast<int>(std::ceil((1.0 - tokens) / refill_per_ms / 1000.0)));
  }
  const double ms_to_full = std::max(0.0, limit_per_minute - tokens) / refill_per_ms;
  decision.reset = (unix_now_ms + static_cast<std::int64_t>(std::ceil(ms_to_full)) + 999) / 1000;
  return decision;
}

// Out-of-line destructors: they anchor each class's vtable and type_info in the SDK library, so
// host and plugins (loaded with RTLD_LOCAL) share one type_info per class and dynamic_cast and
// exception matching work across the boundary.
Limits::~Limits() = default;

}  // namespace eventsvc::sdk
