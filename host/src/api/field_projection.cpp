#include "api/field_projection.hpp"

#include "eventsvc/toolkit/record_json.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

// A canonical member as the record's answer shows it (toolkit::record_to_json); nullopt for an
// optional one the record lacks.
std::optional<json::value> canonical_member(const sdk::Record& record, sdk::CanonicalField field) {
  auto optional = [](const std::optional<std::string>& text) -> std::optional<json::value> {
    if (!text) return std::nullopt;
    return json::value(*text);
  };
  switch (field) {
    case sdk::CanonicalField::id:
      return json::value(record.id);
    case sdk::CanonicalField::type:
      return json::value(record.type);
    case sdk::CanonicalField::stream:
      return json::value(record.stream);
    case sdk::CanonicalField::namespace_name:
      return optional(record.namespace_name);
    case sdk::CanonicalField::site_id:
      return optional(record.site_id);
    case sdk::CanonicalField::source_id:
      return optional(record.source_id);
    case sdk::CanonicalField::timestamp:
      return json::value(toolkit::format_rfc3339(record.timestamp));
    case sdk::CanonicalField::ingested_at:
      return json::value(toolkit::format_rfc3339(record.ingested_at));
    case sdk::CanonicalField::receipt_id:
      return json::value(record.receipt_id);
  }
  return std::nullopt;
}

// Copies into `out`, under `name`, what `source` holds at `segments`, nested as in the record.
// Walks down while the value is an object: an array or a scalar met on the way is copied whole;
// a missing member copies nothing.
void copy_path(json::object& out, std::string_view name, const json::value& source,
               const std::vector<std::string>& segments) {
  const json::value* at = &source;
  json::object* target = &out;
  std::string_view key = name;
  for (const auto& segment : segments) {
    if (!at->is_object()) break;
    const json::value* child = at->get_object().if_contains(segment);
    if (child == nullptr) return;
    json::value& slot = (*target)[key];
    if (!slot.is_object()) slot = json::object();
    target = &slot.get_object();
    at = child;
    key = segment;
  }
  (*target)[key] = *at;
}

// The record trimmed to `fields`, built from the record itself rather than from its whole answer
// object: a question naming a few fields pays for those.
json::object project_record(const sdk::Record& record, const std::vector<sdk::FieldPath>& fields) {
  json::object out;
  out["id"] = record.id;
  for (const auto& field : fields) {
    switch (field.root) {
      case sdk::FieldPath::Root::canonical:
        if (auto value = canonical_member(record, field.canonical)) {
          out[sdk::canonical_field_name(field.canonical)] = std::move(*value);
        }
        break;
      case sdk::FieldPath::Root::payload:
        copy_path(out, "payload", record.payload, field.segments);
        break;
      case sdk::FieldPath::Root::metrics:
        // The answer shows metrics only when they are an object.
        if (record.metrics.is_object()) copy_path(out, "metrics", record.metrics, field.segments);
        break;
    }
  }
  return out;
}

}  // namespace

sdk::json::object record_answer(const sdk::Record& record,
                                const std::vector<sdk::FieldPath>& fields) {
  return fields.empty() ? toolkit::record_to_json(record) : project_record(record, fields);
}

void append_record_answer(std::string& out, const sdk::Record& record,
                          const std::vector<sdk::FieldPath>& fields) {
  if (fields.empty()) {
    toolkit::append_record_json(out, record);
    return;
  }
  sdk::append_json(out, project_record(record, fields));
}

}  // namespace eventsvc::host
