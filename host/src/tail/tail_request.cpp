#include "tail/tail_request.hpp"

#include "api/endpoint_base.hpp"
#include "api/url_filter.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/hex.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

namespace json = sdk::json;

// Positions are at least a place tag, 8 bytes and an index: shorter hex is no id.
constexpr std::size_t kMinIdDigits = 2 * (1 + 8 + 4);
constexpr std::size_t kMaxIdDigits = 512;
constexpr std::size_t kMaxFields = 100;

json::array fields_of(const std::string& list) {
  json::array fields;
  std::size_t start = 0;
  while (start <= list.size()) {
    const auto comma = list.find(',', start);
    const std::string name =
        list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (name.empty()) throw bad_parameter("fields", "has an empty field name");
    fields.emplace_back(name);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (fields.size() > kMaxFields) {
    throw bad_parameter("fields", "names more than " + std::to_string(kMaxFields) + " fields");
  }
  return fields;
}

// The URL's where object with a lower time bound (history reads need one) at the retention
// horizon when it gives none.
json::object where_of(const UrlParameters& parameters, sdk::Millis horizon) {
  json::object where = url_where(parameters);
  const auto* timestamp = where.if_contains("timestamp");
  const bool bounded =
      timestamp != nullptr && timestamp->is_object() &&
      (timestamp->as_object().contains("gte") || timestamp->as_object().contains("gt"));
  if (!bounded) {
    json::object bound{{"gte", toolkit::format_rfc3339(horizon)}};
    if (timestamp != nullptr && timestamp->is_object()) {
      for (const auto& [op, operand] : timestamp->as_object())
        bound[op] = operand;
    } else if (timestamp != nullptr) {
      bound["eq"] = *timestamp;
    }
    where["timestamp"] = std::move(bound);
  }
  return where;
}

}  // namespace

std::string tail_event_id(std::string_view position) {
  if (position.empty()) return "0";
  return toolkit::hex_of(position);
}

std::optional<std::string> tail_position(std::string_view event_id) {
  if (event_id == "0") return std::string();
  if (event_id.size() < kMinIdDigits || event_id.size() > kMaxIdDigits) return std::nullopt;
  return toolkit::bytes_of_hex(event_id);
}

TailRequest parse_tail_request(const RequestHead& head, const Plan& plan, sdk::Millis now) {
  const UrlParameters parameters =
      url_parameters(head, {"where", "stream", "namespace", "fields", "since"}, "a tail");
  const sdk::Millis horizon = retention_horizon(plan, now);
  json::object body{{"source", "history"}, {"where", where_of(parameters, horizon)}};
  if (const auto it = parameters.find("fields"); it != parameters.end())
    body["fields"] = fields_of(it->second);

  TailRequest request;
  request.body = std::move(body);
  request.filter = parse_query_request(request.body, QueryShape::export_, plan, now);

  std::string since = "now";
  if (const auto it = parameters.find("since"); it != parameters.end()) since = it->second;
  if (const std::string* last = head.header("Last-Event-ID"); last != nullptr) {
    request.after = tail_position(*last);
    if (!request.after) {
      throw sdk::Error::bad_request(
          "Last-Event-ID is not the id of an event of this tail",
          {{"errors", json::array{json::object{{"path", "Last-Event-ID"},
                                               {"message", "is not an event id"}}}}});
    }
    return request;
  }
  if (since == "now") return request;
  if (auto position = tail_position(since)) {
    request.after = std::move(position);
    return request;
  }
  const auto instant = toolkit::parse_time_expression(since, now);
  if (!instant) {
    throw bad_parameter("since",
                        "must be now, an event's id, or a time (RFC 3339 or a time expression "
                        "such as now-1h)");
  }
  check_retention("since", *instant, horizon, plan.retention_days);
  request.since = *instant;
  return request;
}

}  // namespace eventsvc::host
