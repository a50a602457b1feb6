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
#include "api/endpoint.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

class AnalysisEngine {
 public:
  explicit AnalysisEngine(ModuleRegistry& modules) : modules_(modules) {}

  // Checks that every module the request needs is enabled: 400 naming the module otherwise.
  void require_modules(const AnalyzeRequest& request) const;

  // The analysis response object of API-SPEC 2.7: exactly its properties.
  // `body` is the request body `request` was parsed from (kept for audit traces).
  sdk::json::object run(const AnalyzeRequest& request, const sdk::json::value& body,
                        const ApiRequest& http) const;

 private:
  ModuleRegistry& modules_;
};

}  // namespace eventsvc::host
