// The order a read delivers its matches in, and the position a page of it ended at: by (timestamp,
// id) per the query's order, or when ranked by score, best first (ties: newer first, then by id).
// Every path of the engine (column chunks, postings, index streams) orders and pages by this.
#pragma once

#include <optional>

#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/condition.hpp"
#include "query/candidate_stream.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct ReadOrder {
  sdk::Order order = sdk::Order::desc;
  bool ranked = false;

  // Whether (score_a, a) is delivered before (score_b, b).
  bool before(double score_a, const VersionRef& a, double score_b, const VersionRef& b) const {
    const auto timestamp_a = [&a] { return a.timestamp; };
    const auto timestamp_b = [&b] { return b.timestamp; };
    if (const auto decided = before(score_a, timestamp_a, score_b, timestamp_b)) return *decided;
    return ranked ? a.id < b.id : compare(a, b, order) < 0;
  }
  // The same from the scores and timestamps alone; nullopt when only the ids can tell. A
  // timestamp is asked for only when the scores do not decide (a column read, for a row).
  template <typename TimestampA, typename TimestampB>
  std::optional<bool> before(double score_a, TimestampA timestamp_a, double score_b,
                             TimestampB timestamp_b) const {
    if (ranked && score_a != score_b) return score_a > score_b;
    const sdk::Millis a = timestamp_a();
    const sdk::Millis b = timestamp_b();
    if (a == b) return std::nullopt;
    return ranked || order == sdk::Order::desc ? a > b : a < b;
  }
};

// Where the previous page ended: only what is delivered after it belongs to the next.
struct PagePosition {
  VersionRef ref;
  double score = 0;

  static std::optional<PagePosition> of(const sdk::RecordQuery& query) {
    if (!query.after) return std::nullopt;
    return PagePosition{{query.after->timestamp, query.after->id}, query.after->score};
  }
  bool admits(const ReadOrder& order, double score, const VersionRef& ref) const {
    return order.before(this->score, this->ref, score, ref);
  }
  // Unranked, a page after this position holds no version on the far side of its timestamp.
  void narrow(const ReadOrder& order, toolkit::TimeBounds& bounds) const {
    if (order.ranked) return;
    if (order.order == sdk::Order::desc) {
      bounds.upper = std::min(bounds.upper, ref.timestamp);
      bounds.has_upper = true;
    } else {
      bounds.lower = std::max(bounds.lower, ref.timestamp);
      bounds.has_lower = true;
    }
  }
};

}  // namespace eventsvc::plugins::rocksdb_storage
