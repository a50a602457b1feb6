#include "api/query_request.hpp"

#include "api/endpoint_base.hpp"
#include "api/validation.hpp"
#include "api/where_parser.hpp"

namespace eventsvc::host {

namespace {

Schema query_schema(QueryShape shape) {
  Schema schema =
      Schema::object()
          .property("source", Schema::string().one_of({"current", "history"}))
          .property("where", Schema::any())
          .property("fields", Schema::array(Schema::string().length(1, 256)).items(1, 100))
          .property("order", Schema::string().one_of({"asc", "desc"}));
  if (shape == QueryShape::query) schema.property("limit", Schema::integer().range(1, 1000));
  return schema.closed();
}

}  // namespace

QueryRequest parse_query_request(const sdk::json::value& body, QueryShape shape, const Plan& plan,
                                 sdk::Millis now) {
  const json::object& object = body.get_object();
  ValidationErrors errors;
  query_schema(shape).validate(body, "", errors);
  ParsedWhere where;
  if (const auto* raw = object.if_contains("where"))
    where = parse_where(*raw, "/where", now, errors);
  QueryRequest parsed;
  if (const auto* raw = object.if_contains("fields"); raw != nullptr && raw->is_array()) {
    std::size_t index = 0;
    for (const auto& name : raw->get_array()) {
      if (auto field = parse_field(name, sdk::pointer_append("/fields", index++), errors)) {
        parsed.fields.push_back(std::move(*field));
      }
    }
  }
  errors.throw_if_any();

  sdk::RecordQuery& query = parsed.read;
  query.source = object.contains("source") && object.at("source") == "history"
                     ? sdk::Source::history
                     : sdk::Source::current;
  const sdk::Millis horizon = retention_horizon(plan, now);
  if (query.source == sdk::Source::history) {
    require_history_bound(where, horizon, plan.retention_days);
  }
  query.where = std::move(where.conditions);
  // Records older than the plan's retention are not visible.
  query.where.push_back({*sdk::FieldPath::parse("timestamp"), sdk::Op::gte, json::value(horizon)});
  const sdk::Order fallback = shape == QueryShape::query ? sdk::Order::desc : sdk::Order::asc;
  if (const auto* order = object.if_contains("order"); order != nullptr) {
    query.order = *order == "asc" ? sdk::Order::asc : sdk::Order::desc;
  } else {
    query.order = fallback;
  }
  query.limit = object.contains("limit")     ? object.at("limit").to_number<std::size_t>()
                : shape == QueryShape::query ? 100
                                             : 0;
  return parsed;
}

}  // namespace eventsvc::host
