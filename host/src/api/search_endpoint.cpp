#include "api/search_endpoint.hpp"

#include "api/highlights.hpp"
#include "api/validation.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/record_json.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

Schema search_schema() {
  return Schema::object()
      .property("query", Schema::string().length(1, 500), true)
      .property("namespace", Schema::string().length(1, 256))
      .property("from", Schema::string())
      .property("to", Schema::string())
      .property("limit", Schema::integer().range(1, 100))
      .closed();
}

std::optional<sdk::Millis> time_field(const json::object& body, std::string_view key,
                                      std::string_view fallback, sdk::Millis now,
                                      ValidationErrors& errors) {
  const auto* value = body.if_contains(key);
  if (value != nullptr && !value->is_string()) return std::nullopt;  // reported by the schema
  const std::string_view text = value != nullptr ? std::string_view(value->get_string()) : fallback;
  auto instant = toolkit::parse_time_expression(text, now);
  if (!instant) {
    errors.add(sdk::pointer_append("", key),
               "must be an RFC 3339 date-time or a time expression (now, now-24h, now+1h; units "
               "ms s m h d w)");
  }
  return instant;
}

}  // namespace

ApiResponse SearchEndpoint::handle(const ApiRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  const json::value body = parse_body(request.body);
  const json::object& object = body.get_object();
  ValidationErrors errors;
  search_schema().validate(body, "", errors);
  const ReadPaging paging = this->paging("search", request, body);
  const sdk::Millis now = paging.now();
  const auto from = time_field(object, "from", "now-24h", now, errors);
  const auto to = time_field(object, "to", "now", now, errors);
  errors.throw_if_any();
  if (*from > *to) {
    throw sdk::Error::bad_request(
        "from (" + toolkit::format_rfc3339(*from) + ") is after to (" +
            toolkit::format_rfc3339(*to) + ")",
        {{"errors",
          json::array{json::object{{"path", "/from"}, {"message", "must not be after to"}}}}});
  }
  const sdk::Millis horizon = retention_horizon(request.plan, now);
  if (object.contains("from")) check_retention("from", *from, horizon, request.plan.retention_days);

  sdk::RecordQuery query;
  query.source = sdk::Source::history;
  query.text = toolkit::parse_text_query(object.at("query").as_string());
  query.rank_by_text = true;
  const auto timestamp = *sdk::FieldPath::parse("timestamp");
  query.where.push_back({timestamp, sdk::Op::gte, json::value(std::max(*from, horizon))});
  query.where.push_back({timestamp, sdk::Op::lte, json::value(*to)});
  if (const auto* ns = object.if_contains("namespace")) {
    query.where.push_back({*sdk::FieldPath::parse("namespace"), sdk::Op::eq, *ns});
  }
  const std::size_t limit =
      object.contains("limit") ? object.at("limit").to_number<std::size_t>() : 25;
  query.limit = limit + 1;  // one more tells whether a next page exists
  query.scan_limit = kSearchScanLimit;
  paging.continue_read(query);

  json::array results;
  std::optional<sdk::ReadPosition> last;
  bool more = false;
  const sdk::ScanStats stats = storage_.call([&](sdk::Storage& storage) {
    return storage.scan(
        request.principal.tenant, query, [&](const sdk::Record& record, double score) {
          if (results.size() == limit) {
            more = true;
            return false;
          }
          last = sdk::ReadPosition{score, record.timestamp, record.id};
          json::object hit;
          hit["id"] = record.id;
          hit["timestamp"] = toolkit::format_rfc3339(record.timestamp);
          hit["stream"] = record.stream;
          hit["type"] = record.type;
          hit["namespace"] =
              record.namespace_name ? json::value(*record.namespace_name) : json::value(nullptr);
          hit["score"] = std::round(score * 1e6) / 1e6;
          hit["highlights"] = highlights(record, *query.text);
          hit["record"] = toolkit::record_to_json(record);
          results.emplace_back(std::move(hit));
          return true;
        });
  });
  json::object answer;
  answer["count"] = results.size();
  answer["results"] = std::move(results);
  answer["complete"] = stats.complete;
  ApiResponse response;
  paging.end_page(answer, response.headers, last, more, stats.complete, stats.rank_statistics);
  answer["elapsed_ms"] = elapsed_ms_since(started);
  response.body = sdk::to_json(answer);
  return response;
}

}  // namespace eventsvc::host
