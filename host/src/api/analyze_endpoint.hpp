// POST /v1/analyze (API-SPEC 4.5, 2.7): validation, the history and retention rules, then the
// analysis engine.
#pragma once

#include "analysis/analysis_engine.hpp"
#include "api/endpoint_base.hpp"

namespace eventsvc::host {

class AnalyzeEndpoint final : public StorageEndpoint {
 public:
  AnalyzeEndpoint(const HostConfig& config, ModuleRegistry& modules)
      : StorageEndpoint(config, modules.storage()), engine_(modules) {}

  Operation operation() const override { return Operation::analyze; }
  std::vector<std::string_view> scopes() const override { return {sdk::kScopeRead}; }
  bool leased() const override { return true; }
  bool reports_concurrency() const override { return true; }
  std::size_t max_body_bytes() const override { return config_.max_body_bytes; }
  ApiResponse handle(const ApiRequest& request) override;

 private:
  AnalysisEngine engine_;
};

}  // namespace eventsvc::host
