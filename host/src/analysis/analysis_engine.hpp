// POST /v1/analyze's work (DESIGN §5), in named stages:
//
//   plan       the conditions (the request's plus the plan's retention bound)
//   aggregate  aggregations, groups and time buckets over every match, pushed down to storage
//   match      the records materialised one by one, up to scan_limit, in authoritative order
//   select     the results: matches not excluded by the request, at most `limit`
//   windows    temporal neighbours of the leading results
//   context    the Context Pack (and its audit trace)
//   render     exactly the properties of API-SPEC 2.7
#pragma once

#include "analysis/analyze_request.hpp"
#include "eventsvc/sdk/principal.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

// Who asks, and when: what the analysis needs of the HTTP request.
// Where the answer's results ended, when more matches follow them (the next page's cursor).
struct PageEnd {
  sdk::ReadPosition last;
  std::shared_ptr<const sdk::RankStatistics> statistics;
};

struct AnalysisContext {
  const sdk::Principal& principal;
  sdk::Millis retention_horizon = 0;  // the earliest timestamp the key's plan may see
  sdk::Millis now = 0;
  const sdk::json::value& body;  // the request body, kept for audit traces
  // Set when the results are cut and more matches follow (results shown, no Context Pack).
  std::optional<PageEnd>* page_end = nullptr;
};

class AnalysisEngine {
 public:
  explicit AnalysisEngine(ModuleRegistry& modules) : modules_(modules) {}

  // The analysis response object of API-SPEC 2.7: exactly its properties. Every module the
  // request names must be enabled (the endpoint checks).
  sdk::json::object run(const AnalyzeRequest& request, const AnalysisContext& context) const;

 private:
  // A sampled analysis is written to the audit trail; its trace id goes into the pack.
  void audit(const AnalysisContext& caller, sdk::json::object& context) const;

  ModuleRegistry& modules_;
};

}  // namespace eventsvc::host
