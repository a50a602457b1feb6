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
  const ReadPaging paging = this->paging("analyze", request, body);
  const sdk::Millis now = paging.now();
  ValidationErrors errors;
  ParsedAnalyzeRequest parsed = parse_analyze_request(body, now, errors);
  errors.throw_if_any();
  if (const auto& cursor = paging.cursor()) {
    if (parsed.analysis.context) {
      throw sdk::Error::bad_request(
          "a Context Pack is built from every match and is not paged; send the request without a "
          "cursor");
    }
    parsed.analysis.after = cursor->after;
    parsed.analysis.rank_statistics = cursor->statistics;
  }
  const sdk::Millis horizon = retention_horizon(request.plan, now);
  if (parsed.analysis.source == sdk::Source::history) {
    require_history_bound(parsed.where, horizon, request.plan.retention_days);
  }
  require_modules(parsed.analysis, modules_);
  std::optional<PageEnd> page_end;
  json::object answer =
      engine_.run(parsed.analysis, {request.principal, horizon, now, body, &page_end});
  ApiResponse response;
  if (page_end) paging.link_next(answer, response.headers, page_end->last, page_end->statistics);
  answer["elapsed_ms"] = elapsed_ms_since(started);
  response.body = sdk::to_json(answer);
  return response;
}

}  // namespace eventsvc::host
