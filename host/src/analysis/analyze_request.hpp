// A validated POST /v1/analyze body (API-SPEC 4.5), with defaults applied: what the analysis
// stages work from. api/analyze_request_parser.hpp makes it from a request body.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "eventsvc/sdk/aggregate_pushdown.hpp"
#include "eventsvc/sdk/context_mode.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/text.hpp"

namespace eventsvc::host {

inline constexpr std::size_t kMaxAggregations = 64;

struct TemporalWindow {
  std::size_t before = 0;
  std::size_t after = 0;
};

struct AnalyzeRequest {
  sdk::Source source = sdk::Source::history;
  std::vector<sdk::Condition> where;
  std::optional<sdk::TextQuery> text;
  std::vector<sdk::AggregationSpec> aggregations;  // in request order
  std::vector<sdk::FieldPath> group_by;
  std::size_t group_limit = 100;
  std::optional<sdk::TimeBucketSpec> time_bucket;
  std::optional<std::string> vector_text;
  std::optional<TemporalWindow> temporal;
  std::vector<sdk::FieldPath> relationship_fields;
  std::size_t relationship_limit = 100;
  std::optional<sdk::ContextRequest> context;
  sdk::Order order = sdk::Order::desc;
  std::size_t limit = 100;
  std::size_t scan_limit = 10000;
  std::unordered_set<std::string> excluded_ids;
  bool include_results = true;
  // A later page (a cursor): only the matches after this position in evidence order, ranked with
  // the first page's statistics.
  std::optional<sdk::ReadPosition> after;
  std::shared_ptr<const sdk::RankStatistics> rank_statistics;
};

}  // namespace eventsvc::host
