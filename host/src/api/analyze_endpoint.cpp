#include "api/analyze_endpoint.hpp"

namespace eventsvc::host {

ApiResponse AnalyzeEndpoint::handle(const ApiRequest& request) {
  const json::value body = parse_body(request.body);
  ValidationErrors errors;
  const AnalyzeRequest analyze = parse_analyze_request(body, request.now, errors);
  errors.throw_if_any();
  if (analyze.source == sdk::Source::history) {
    require_history_bound(analyze.where, retention_horizon(request.plan, request.now),
                          request.plan.retention_days);
  }
  engine_.require_modules(analyze);
  return json_answer(engine_.run(analyze, body, request));
}

}  // namespace eventsvc::host
