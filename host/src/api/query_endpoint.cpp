#include "api/query_endpoint.hpp"

#include <chrono>
#include <cmath>

#include "api/field_projection.hpp"
#include "api/validation.hpp"
#include "api/where_parser.hpp"
#include "eventsvc/toolkit/record_json.hpp"

namespace eventsvc::host {

namespace {

Schema query_schema() {
  return Schema::object()
      .property("source", Schema::string().one_of({"current", "history"}))
      .property("where", Schema::any())
      .property("fields", Schema::array(Schema::string().length(1, 256)).items(1, 100))
      .property("order", Schema::string().one_of({"asc", "desc"}))
      .property("limit", Schema::integer().range(1, 1000))
      .closed();
}

}  // namespace

ApiResponse QueryEndpoint::handle(const ApiRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  const json::value body = parse_body(request.body);
  const json::object& object = body.get_object();
  ValidationErrors errors;
  query_schema().validate(body, "", errors);
  const ReadPaging paging = this->paging("query", request, body);
  const sdk::Millis now = paging.now();
  ParsedWhere where;
  if (const auto* raw = object.if_contains("where"))
    where = parse_where(*raw, "/where", now, errors);
  std::vector<sdk::FieldPath> fields;
  if (const auto* raw = object.if_contains("fields"); raw != nullptr && raw->is_array()) {
    std::size_t index = 0;
    for (const auto& name : raw->get_array()) {
      if (auto field = parse_field(name, sdk::pointer_append("/fields", index++), errors)) {
        fields.push_back(std::move(*field));
      }
    }
  }
  errors.throw_if_any();

  sdk::RecordQuery query;
  query.source = object.contains("source") && object.at("source") == "history"
                     ? sdk::Source::history
                     : sdk::Source::current;
  const sdk::Millis horizon = retention_horizon(request.plan, now);
  if (query.source == sdk::Source::history) {
    require_history_bound(where, horizon, request.plan.retention_days);
  }
  query.where = std::move(where.conditions);
  // Records older than the plan's retention are not visible.
  query.where.push_back({*sdk::FieldPath::parse("timestamp"), sdk::Op::gte, json::value(horizon)});
  query.order =
      object.contains("order") && object.at("order") == "asc" ? sdk::Order::asc : sdk::Order::desc;
  const std::size_t limit =
      object.contains("limit") ? object.at("limit").to_number<std::size_t>() : 100;
  query.limit = limit + 1;  // one more tells whether a next page exists
  query.scan_limit = kQueryScanLimit;
  paging.continue_read(query);

  json::array results;
  sdk::ReadPosition last;
  bool more = false;
  const sdk::ScanStats stats = storage_.call([&](sdk::Storage& storage) {
    return storage.scan(request.principal.tenant, query, [&](const sdk::Record& record, double) {
      if (results.size() == limit) {
        more = true;
        return false;
      }
      last = {0, record.timestamp, record.id};
      json::object json = toolkit::record_to_json(record);
      results.emplace_back(fields.empty() ? std::move(json) : project_fields(json, fields));
      return true;
    });
  });
  json::object answer;
  answer["count"] = results.size();
  answer["results"] = std::move(results);
  answer["source"] = sdk::source_name(query.source);
  answer["complete"] = stats.complete;
  answer["scanned"] = stats.scanned;
  ApiResponse response;
  if (more || (!stats.complete && !answer["results"].as_array().empty())) {
    paging.link_next(answer, response.headers, last, nullptr);
  }
  answer["elapsed_ms"] = elapsed_ms_since(started);
  response.body = sdk::to_json(answer);
  return response;
}

}  // namespace eventsvc::host
