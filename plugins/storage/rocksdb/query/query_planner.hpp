// Chooses how to find the candidates of a query (DESIGN §5, "indexes instead of scans"):
//
//  * ordered sources, each a time-ordered index stream: id eq/in (id index), eq/in on any
//    indexed field (field index), each text word and phrase word (postings), prefix* terms
//    (a union over the matching tokens);
//  * collected sources, read from a field-index value range then sorted: gt/gte/lt/lte, prefix
//    and exists:true on indexed fields. Used when no ordered source is small, and only while the
//    range stays under a cap;
//  * otherwise a time-range scan of current or history, bounded by the scan limit.
//
// Ordered sources are intersected with a leapfrog join, so the most selective one drives and the
// others are consulted by seeks. Every candidate is then confirmed against all conditions.
#pragma once

#include <string_view>

#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/condition.hpp"
#include "query/candidate_stream.hpp"
#include "store/database.hpp"
#include "store/index_keys.hpp"

namespace eventsvc::plugins::rocksdb_storage {

struct QueryPlan {
  StreamPtr candidates;
  bool indexed = false;    // false: a time-range scan
  bool selective = false;  // an index stream of fewer than a thousand entries drives it
  // The candidates walk history itself: each one's value is its stored record.
  bool walks_records = false;
};

// A ranked text query of plain words whose other conditions the indexes decide exactly (time
// bounds, equality on canonical string fields): every candidate is a match and BM25's inputs are
// in the postings, so matches are scored without reading records.
struct ScoredWordsPlan {
  StreamPtr candidates;
  std::vector<const CandidateStream*> words;  // one per TextQuery::words entry, owned by candidates
};

class QueryPlanner {
 public:
  // `collect_limit`: the most entries a collected source may hold. `version_indexes`: the
  // database has a key per (value or token, version) (history from before chunk indexes);
  // without them, only ids offer a source, and candidates are confirmed on the record.
  QueryPlanner(Database& database, std::size_t collect_limit, bool version_indexes)
      : database_(database), collect_limit_(collect_limit), version_indexes_(version_indexes) {}

  QueryPlan plan(std::string_view tenant, const sdk::RecordQuery& query,
                 const toolkit::TimeBounds& bounds) const;

  // nullopt when the query does not qualify (see ScoredWordsPlan).
  std::optional<ScoredWordsPlan> plan_scored_words(std::string_view tenant,
                                                   const sdk::RecordQuery& query,
                                                   const toolkit::TimeBounds& bounds) const;

  // Stream of one exact indexed value of a field (used for stream neighbours too).
  StreamPtr field_equals(std::string_view tenant, Scope scope, const sdk::FieldPath& field,
                         const sdk::json::value& operand, const toolkit::TimeBounds& bounds,
                         sdk::Order order) const;

 private:
  // An ordered source and how many candidates a bounded prefix of it held.
  struct EstimatedSource {
    std::size_t size;
    std::function<StreamPtr()> make;
  };
  // The query's ordered sources (conditions, and words and prefixes with version indexes),
  // smallest estimate first.
  std::vector<EstimatedSource> ordered_sources(std::string_view tenant, Scope scope,
                                               const sdk::RecordQuery& query,
                                               const toolkit::TimeBounds& bounds) const;
  // The refs of range-like conditions, one key range per field (a lower and an upper bound
  // combine); a range that holds more than `limit` entries is left out.
  std::vector<std::vector<VersionRef>> collected_ranges(std::string_view tenant, Scope scope,
                                                        const sdk::RecordQuery& query,
                                                        const toolkit::TimeBounds& bounds,
                                                        std::size_t limit) const;
  // nullptr when the condition offers no ordered source.
  StreamPtr ordered_source(std::string_view tenant, Scope scope, const sdk::Condition& condition,
                           const toolkit::TimeBounds& bounds, sdk::Order order) const;
  StreamPtr token_source(std::string_view tenant, Scope scope, std::string_view token,
                         const toolkit::TimeBounds& bounds, sdk::Order order) const;
  StreamPtr prefix_source(std::string_view tenant, Scope scope, std::string_view prefix,
                          const toolkit::TimeBounds& bounds, sdk::Order order) const;
  // Refs of the field-index keys in [lower, upper) within the time bounds, or nullopt when more
  // than `limit` entries are in the range. `field_prefix_size` is where the value starts.
  std::optional<std::vector<VersionRef>> collect(std::size_t field_prefix_size,
                                                 const std::string& lower, const std::string& upper,
                                                 const toolkit::TimeBounds& bounds,
                                                 std::size_t limit) const;
  // The key range [lower, upper) of the field index holding every value a range-like condition
  // (gt, gte, lt, lte, prefix, exists: true) can match; nullopt for other conditions.
  std::optional<std::pair<std::string, std::string>> value_range(
      std::string_view tenant, Scope scope, const sdk::Condition& condition) const;

  Database& database_;
  std::size_t collect_limit_;
  bool version_indexes_;
};

// Whether a field has entries in the field index (canonical strings, ingested_at, payload.*,
// metrics.*; not id or timestamp, which have their own paths).
bool field_indexed(const sdk::FieldPath& field);

}  // namespace eventsvc::plugins::rocksdb_storage
