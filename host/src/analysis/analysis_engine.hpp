// POST /v1/analyze's work (DESIGN §5): candidates from storage (where + text through the indexes,
// bounded by scan_limit), semantic ranking, aggregations, groups, time buckets, relationships,
// temporal windows, freshness, the Context Pack and the ranked results.
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
