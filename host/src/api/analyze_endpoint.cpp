#include "api/analyze_endpoint.hpp"

#include <chrono>

#include "api/analyze_request_parser.hpp"

namespace eventsvc::host {

namespace {

// Every module the request needs is enabled: 400 naming the module otherwise.
void require_modules(const AnalyzeRequest& request, const ModuleRegistry& modules) {
  ValidationErrors errors;
  for (const auto& spec : request.aggregations) {
    const std::string path = sdk::pointer_append("/aggregations", spec.name);
    const auto* op = modules.aggregation(spec.op);
    if (op == nullptr) {
      errors.add(path + "/op", "aggregation op '" + spec.op + "' is not enabled");
    } else if (!spec.field &&
               op->call([](const sdk::AggregationOperator& o) { return o.requires_field(); })) {
      errors.add(path + "/field", "is required for op " + spec.op);
    }
  }
  if (request.vector_text && !modules.embedder()) {
    errors.add("/vector", "semantic ranking needs an embedder plugin; none is enabled");
  }
  if (request.context && modules.context_mode(request.context->mode) == nullptr) {
    errors.add("/context/mode", "context mode '" + request.context->mode + "' is not enabled");
  }
  errors.throw_if_any();
}

}  // namespace

ApiResponse AnalyzeEndpoint::handle(const ApiRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  const json::value body = parse_body(request.body);
  ValidationErrors errors;
  const ParsedAnalyzeRequest parsed = parse_analyze_request(body, request.now, errors);
  errors.throw_if_any();
  const sdk::Millis horizon = retention_horizon(request.plan, request.now);
  if (parsed.analysis.source == sdk::Source::history) {
    require_history_bound(parsed.where, horizon, request.plan.retention_days);
  }
  require_modules(parsed.analysis, modules_);
  json::object answer =
      engine_.run(parsed.analysis, {request.principal, horizon, request.now, body});
  answer["elapsed_ms"] = elapsed_ms_since(started);
  return json_answer(answer);
}

}  // namespace eventsvc::host
