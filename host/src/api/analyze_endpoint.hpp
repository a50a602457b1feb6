// POST /v1/analyze (API-SPEC 4.5, 2.7): validation, the history and retention rules, then the
// analysis engine.
#pragma once

#include "analysis/analysis_engine.hpp"
#include "api/endpoint_base.hpp"

namespace eventsvc::host {

class AnalyzeEndpoint final : public ReadEndpoint {
 public:
  AnalyzeEndpoint(const HostConfig& config, ModuleRegistry& modules, const CursorSeal& seal)
      : ReadEndpoint(config, modules.storage(), seal), modules_(modules), engine_(modules) {}

  Operation operation() const override { return Operation::analyze; }
  ApiResponse handle(const ApiRequest& request) override;

 private:
  const ModuleRegistry& modules_;
  AnalysisEngine engine_;
};

}  // namespace eventsvc::host
