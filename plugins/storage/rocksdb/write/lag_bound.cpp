#include "write/lag_bound.hpp"

#include <algorithm>
#include <string>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::plugins::rocksdb_storage {

void LagBound::admit(std::chrono::milliseconds lag) {
  if (max_lag_.count() == 0 || lag <= max_lag_) return;
  refused_.fetch_add(1, std::memory_order_relaxed);
  // The projector needs about the excess to bring the oldest write under the bound again.
  const auto excess_s = (lag - max_lag_).count() / 1000 + 1;
  const int retry_after = static_cast<int>(std::min<std::int64_t>(excess_s, 30));
  throw sdk::Error(503,
                   "search trails acceptance by " + std::to_string(lag.count()) +
                       " ms, more than the " + std::to_string(max_lag_.count()) +
                       " ms allowed (projector.max_lag_ms): retry after Retry-After seconds",
                   {{"lag_ms", lag.count()}, {"max_lag_ms", max_lag_.count()}})
      .with_retry_after(retry_after);
}

std::chrono::milliseconds LagBound::hold(std::chrono::milliseconds lag) {
  if (pace_from_.count() == 0 || lag <= pace_from_) return std::chrono::milliseconds(0);
  // Half what the lag exceeds the mark by: the further behind, the slower each writer goes, until
  // the rate offered is the rate projected and the lag settles a little past the mark. The whole
  // excess overshot: writers held most of a second let the backlog drain to nothing, then came
  // back at once, and the lag swung around the mark.
  const auto held = std::min((lag - pace_from_) / 2, kLongestHold);
  if (held.count() == 0) return held;
  held_.fetch_add(1, std::memory_order_relaxed);
  held_ms_.fetch_add(static_cast<std::uint64_t>(held.count()), std::memory_order_relaxed);
  return held;
}

}  // namespace eventsvc::plugins::rocksdb_storage
