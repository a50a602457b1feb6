#include "api/analyze_request_parser.hpp"

#include <regex>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

Schema field_list(std::size_t max_items) {
  return Schema::array(Schema::string().length(1, 256)).items(0, max_items);
}

Schema analyze_schema() {
  Schema aggregation = Schema::object()
                           // Any operator a plugin provides: the endpoint refuses one that
                           // is not enabled, by name.
                           .property("op", Schema::string().length(1, 64), true)
                           .property("field", Schema::string().length(1, 256))
                           .property("time_field", Schema::string().length(1, 256))
                           .property("unit", Schema::string().one_of({"ms", "s", "m", "h"}))
                           .property("max_gap_ms", Schema::integer().range(1, 86400000))
                           .closed();
  Schema aggregations =
      Schema::object()
          .max_properties(kMaxAggregations)
          .check([aggregation](const json::value& value, const std::string& path,
                               ValidationErrors& errors) {
            for (const auto& member : value.get_object()) {
              aggregation.validate(member.value(), sdk::pointer_append(path, member.key()), errors);
            }
          });
  Schema context =
      Schema::object()
          .property("token_budget", Schema::integer().range(256, 100000))
          .property("mode", Schema::string().length(1, 64))  // a context mode plugin
          .property("include_documents", Schema::boolean())
          .property("max_facts", Schema::integer().range(1, 100))
          .property("max_timeline", Schema::integer().range(1, 100))
          .property("max_contradictions", Schema::integer().range(1, 50))
          .property("contradiction_window_ms", Schema::integer().range(0, 120000))
          .property("expected_freshness_ms", Schema::integer().range(1000, 31536000000.0))
          .closed();
  static const std::regex kInterval(R"(^\d+(?:ms|s|m|h|d)$)");
  Schema interval = Schema::string().check(
      [](const json::value& value, const std::string& path, ValidationErrors& errors) {
        const std::string text(value.get_string());
        const auto millis = toolkit::parse_duration(text);
        if (!std::regex_match(text, kInterval)) {
          errors.add(path, "must match ^\\d+(?:ms|s|m|h|d)$, e.g. 15m");
        } else if (!millis || *millis <= 0) {
          errors.add(path, "must be a positive duration");
        }
      });
  return Schema::object()
      .property("source", Schema::string().one_of({"current", "history"}))
      .property("where", Schema::any())
      .property("text", Schema::string().length(0, 500))
      .property("aggregations", std::move(aggregations))
      .property("group_by", field_list(8))
      .property("group_limit", Schema::integer().range(1, 1000))
      .property("time_bucket", Schema::object()
                                   .property("interval", std::move(interval), true)
                                   .property("field", Schema::string().length(1, 256))
                                   .closed())
      .property("vector",
                Schema::object().property("text", Schema::string().length(1, 32768), true).closed())
      .property("temporal", Schema::object()
                                .property("before", Schema::integer().range(0, 50))
                                .property("after", Schema::integer().range(0, 50))
                                .closed())
      .property("relationship_fields", field_list(16))
      .property("relationship_limit", Schema::integer().range(1, 1000))
      .property("context", std::move(context))
      .property("order", Schema::string().one_of({"asc", "desc"}))
      .property("limit", Schema::integer().range(1, 1000))
      .property("scan_limit", Schema::integer().range(1, 50000))
      .property("excluded_document_ids",
                Schema::array(Schema::string().length(1, kMaxEventIdLength)).items(0, 4096))
      .property("include_results", Schema::boolean())
      .closed();
}

// The number at `key`, or `fallback` when it is absent or not a T: the schema has already
// reported a bad value as a 400 naming its path, and parsing goes on to collect the other errors.
template <class T>
T number_or(const json::object& object, std::string_view key, T fallback) {
  const auto* value = object.if_contains(key);
  if (value == nullptr || !value->is_number()) return fallback;
  boost::system::error_code error;
  const T number = value->to_number<T>(error);
  return error ? fallback : number;
}

std::vector<sdk::FieldPath> fields_at(const json::object& object, std::string_view key,
                                      ValidationErrors& errors) {
  std::vector<sdk::FieldPath> fields;
  const auto* list = object.if_contains(key);
  if (list == nullptr || !list->is_array()) return fields;
  std::size_t index = 0;
  for (const auto& name : list->get_array()) {
    if (auto field =
            parse_field(name, sdk::pointer_append(sdk::pointer_append("", key), index++), errors)) {
      fields.push_back(std::move(*field));
    }
  }
  return fields;
}

sdk::AggregationSpec aggregation_spec_of(std::string_view name, const json::object& raw,
                                         const std::string& path, ValidationErrors& errors) {
  sdk::AggregationSpec spec;
  spec.name = std::string(name);
  if (const auto* op = raw.if_contains("op"); op != nullptr && op->is_string())
    spec.op = op->get_string();
  if (const auto* field = raw.if_contains("field")) {
    if (auto parsed = parse_field(*field, path + "/field", errors)) spec.field = std::move(*parsed);
  }
  spec.time_field = *sdk::FieldPath::parse("timestamp");
  if (const auto* time_field = raw.if_contains("time_field")) {
    if (auto parsed = parse_field(*time_field, path + "/time_field", errors)) {
      spec.time_field = std::move(*parsed);
    }
  }
  if (const auto* unit = raw.if_contains("unit"); unit != nullptr && unit->is_string()) {
    spec.unit = unit->get_string();
  }
  spec.max_gap_ms = number_or<sdk::Millis>(raw, "max_gap_ms", 300000);
  return spec;
}

sdk::TimeBucketSpec time_bucket_of(const json::object& raw, ValidationErrors& errors) {
  sdk::TimeBucketSpec time_bucket;
  if (const auto* interval = raw.if_contains("interval");
      interval != nullptr && interval->is_string()) {
    time_bucket.interval = toolkit::parse_duration(interval->get_string()).value_or(0);
  }
  time_bucket.field = *sdk::FieldPath::parse("timestamp");
  if (const auto* field = raw.if_contains("field")) {
    if (auto parsed = parse_field(*field, "/time_bucket/field", errors))
      time_bucket.field = std::move(*parsed);
  }
  return time_bucket;
}

sdk::ContextRequest context_request_of(const json::object& raw) {
  sdk::ContextRequest options;
  if (const auto* mode = raw.if_contains("mode"); mode != nullptr && mode->is_string()) {
    options.mode = mode->get_string();
  }
  options.token_budget = number_or<std::size_t>(raw, "token_budget", 4000);
  if (const auto* include = raw.if_contains("include_documents");
      include != nullptr && include->is_bool()) {
    options.include_documents = include->get_bool();
  }
  options.max_facts = number_or<std::size_t>(raw, "max_facts", 20);
  options.max_timeline = number_or<std::size_t>(raw, "max_timeline", 16);
  options.max_contradictions = number_or<std::size_t>(raw, "max_contradictions", 12);
  options.contradiction_window_ms = number_or<sdk::Millis>(raw, "contradiction_window_ms", 5000);
  options.expected_freshness_ms = number_or<sdk::Millis>(raw, "expected_freshness_ms", 900000);
  return options;
}

// The part of an analyze body that says how its matches are read and shown: order, limits,
// exclusions, whether results are returned.
void read_paging(const json::object& object, AnalyzeRequest& request) {
  if (const auto* order = object.if_contains("order"); order != nullptr && *order == "asc") {
    request.order = sdk::Order::asc;
  }
  request.limit = number_or<std::size_t>(object, "limit", 100);
  request.scan_limit = number_or<std::size_t>(object, "scan_limit", 10000);
  if (const auto* excluded = object.if_contains("excluded_document_ids");
      excluded != nullptr && excluded->is_array()) {
    for (const auto& id : excluded->get_array()) {
      if (id.is_string()) request.excluded_ids.emplace(id.get_string());
    }
  }
  if (const auto* include = object.if_contains("include_results");
      include != nullptr && include->is_bool()) {
    request.include_results = include->get_bool();
  }
}

}  // namespace

ParsedAnalyzeRequest parse_analyze_request(const json::value& body, sdk::Millis now,
                                           ValidationErrors& errors) {
  analyze_schema().validate(body, "", errors);
  ParsedAnalyzeRequest parsed;
  AnalyzeRequest& request = parsed.analysis;
  const json::object& object = body.get_object();
  if (const auto* source = object.if_contains("source");
      source != nullptr && *source == "current") {
    request.source = sdk::Source::current;
  }
  if (const auto* where = object.if_contains("where")) {
    parsed.where = parse_where(*where, "/where", now, errors);
    request.where = parsed.where.conditions;
  }
  if (const auto* text = object.if_contains("text");
      text != nullptr && text->is_string() && !text->get_string().empty()) {
    try {
      request.text = toolkit::parse_text_query(text->get_string());
    } catch (const sdk::Error& error) {
      errors.add("/text", error.message());
    }
  }
  if (const auto* aggregations = object.if_contains("aggregations");
      aggregations != nullptr && aggregations->is_object()) {
    for (const auto& member : aggregations->get_object()) {
      if (!member.value().is_object()) continue;
      request.aggregations.push_back(
          aggregation_spec_of(member.key(), member.value().get_object(),
                              sdk::pointer_append("/aggregations", member.key()), errors));
    }
  }
  request.group_by = fields_at(object, "group_by", errors);
  request.group_limit = number_or<std::size_t>(object, "group_limit", 100);
  if (const auto* bucket = object.if_contains("time_bucket");
      bucket != nullptr && bucket->is_object()) {
    request.time_bucket = time_bucket_of(bucket->get_object(), errors);
  }
  if (const auto* vector = object.if_contains("vector"); vector != nullptr && vector->is_object()) {
    if (const auto* text = vector->get_object().if_contains("text");
        text != nullptr && text->is_string()) {
      request.vector_text = std::string(text->get_string());
    }
  }
  if (const auto* temporal = object.if_contains("temporal");
      temporal != nullptr && temporal->is_object()) {
    request.temporal = TemporalWindow{number_or<std::size_t>(temporal->get_object(), "before", 0),
                                      number_or<std::size_t>(temporal->get_object(), "after", 0)};
  }
  request.relationship_fields = fields_at(object, "relationship_fields", errors);
  request.relationship_limit = number_or<std::size_t>(object, "relationship_limit", 100);
  if (const auto* context = object.if_contains("context");
      context != nullptr && context->is_object()) {
    request.context = context_request_of(context->get_object());
  }
  read_paging(object, request);
  return parsed;
}

}  // namespace eventsvc::host
