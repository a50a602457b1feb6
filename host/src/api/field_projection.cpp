#include "api/field_projection.hpp"

#include "eventsvc/toolkit/record_json.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

sdk::json::object project_fields(const json::object& record,
                                 const std::vector<sdk::FieldPath>& fields) {
  json::object out;
  out["id"] = record.at("id");
  for (const auto& field : fields) {
    std::vector<std::string> path;
    if (field.root == sdk::FieldPath::Root::canonical) {
      path.emplace_back(sdk::canonical_field_name(field.canonical));
    } else {
      path.emplace_back(field.root == sdk::FieldPath::Root::payload ? "payload" : "metrics");
      path.insert(path.end(), field.segments.begin(), field.segments.end());
    }
    const json::value* source = record.if_contains(path.front());
    if (source == nullptr) continue;
    json::object* target = &out;
    std::size_t depth = 0;
    // Walk down while both sides are objects; copy the value found at the end (or the array met
    // on the way).
    while (depth + 1 < path.size() && source->is_object()) {
      const json::value* child = source->get_object().if_contains(path[depth + 1]);
      if (child == nullptr) {
        source = nullptr;
        break;
      }
      json::value& slot = (*target)[path[depth]];
      if (!slot.is_object()) slot = json::object();
      target = &slot.get_object();
      source = child;
      ++depth;
    }
    if (source != nullptr) (*target)[path[depth]] = *source;
  }
  return out;
}

sdk::json::object record_answer(const sdk::Record& record,
                                const std::vector<sdk::FieldPath>& fields) {
  sdk::json::object json = toolkit::record_to_json(record);
  return fields.empty() ? json : project_fields(json, fields);
}

void append_record_answer(std::string& out, const sdk::Record& record,
                          const std::vector<sdk::FieldPath>& fields) {
  if (fields.empty()) {
    toolkit::append_record_json(out, record);
    return;
  }
  sdk::append_json(out, project_fields(toolkit::record_to_json(record), fields));
}

}  // namespace eventsvc::host
