#include "eventsvc/toolkit/field_value.hpp"

#include <charconv>

#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::toolkit {

FieldValue FieldValue::of(const json::value* value) {
  FieldValue out;
  if (value != nullptr) {
    out.kind_ = Kind::json;
    out.json_ = value;
  }
  return out;
}

FieldValue FieldValue::of(std::string_view text) {
  FieldValue out;
  out.kind_ = Kind::string;
  out.string_ = text;
  return out;
}

FieldValue FieldValue::of_instant(Millis instant) {
  FieldValue out;
  out.kind_ = Kind::instant;
  out.instant_ = instant;
  return out;
}

json::value FieldValue::to_json() const {
  switch (kind_) {
    case Kind::absent:
      return nullptr;
    case Kind::json:
      return *json_;
    case Kind::string:
      return json::string(string_);
    case Kind::instant:
      return json::string(format_rfc3339(instant_));
  }
  return nullptr;
}

std::optional<std::string_view> FieldValue::as_string() const {
  if (kind_ == Kind::string) return string_;
  if (kind_ == Kind::json && json_->is_string()) return std::string_view(json_->get_string());
  return std::nullopt;
}

const json::value* resolve_path(const json::value& root, const std::vector<std::string>& segments) {
  const json::value* current = &root;
  for (const auto& segment : segments) {
    if (current->is_object()) {
      current = current->get_object().if_contains(segment);
    } else if (current->is_array()) {
      std::size_t index = 0;
      const auto* end = segment.data() + segment.size();
      const auto result = std::from_chars(segment.data(), end, index);
      if (result.ec != std::errc() || result.ptr != end) return nullptr;
      const auto& array = current->get_array();
      current = index < array.size() ? &array[index] : nullptr;
    } else {
      return nullptr;
    }
    if (current == nullptr) return nullptr;
  }
  return current;
}

namespace {
FieldValue optional_string(const std::optional<std::string>& value) {
  return value ? FieldValue::of(std::string_view(*value)) : FieldValue::absent();
}
}  // namespace

FieldValue resolve(const Record& record, const FieldPath& path) {
  switch (path.root) {
    case FieldPath::Root::payload:
      return FieldValue::of(resolve_path(record.payload, path.segments));
    case FieldPath::Root::metrics:
      if (!record.metrics.is_object()) return FieldValue::absent();
      return FieldValue::of(resolve_path(record.metrics, path.segments));
    case FieldPath::Root::canonical:
      break;
  }
  switch (path.canonical) {
    case sdk::CanonicalField::id:
      return FieldValue::of(std::string_view(record.id));
    case sdk::CanonicalField::type:
      return FieldValue::of(std::string_view(record.type));
    case sdk::CanonicalField::stream:
      return FieldValue::of(std::string_view(record.stream));
    case sdk::CanonicalField::namespace_name:
      return optional_string(record.namespace_name);
    case sdk::CanonicalField::site_id:
      return optional_string(record.site_id);
    case sdk::CanonicalField::source_id:
      return optional_string(record.source_id);
    case sdk::CanonicalField::timestamp:
      return FieldValue::of_instant(record.timestamp);
    case sdk::CanonicalField::ingested_at:
      return FieldValue::of_instant(record.ingested_at);
    case sdk::CanonicalField::receipt_id:
      return FieldValue::of(std::string_view(record.receipt_id));
  }
  return FieldValue::absent();
}

}  // namespace eventsvc::toolkit
