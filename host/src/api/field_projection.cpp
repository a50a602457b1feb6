#include "api/field_projection.hpp"

#include "eventsvc/toolkit/field_value.hpp"
#include "eventsvc/toolkit/record_json.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

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
        // As the record's answer shows it: instants as RFC 3339, absent optional members left out.
        if (const auto value = toolkit::resolve(record, field); value.present()) {
          out[sdk::canonical_field_name(field.canonical)] = value.to_json();
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
