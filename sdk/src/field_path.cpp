#include "eventsvc/sdk/field_path.hpp"

#include <charconv>

namespace eventsvc::sdk {

std::string_view canonical_field_name(CanonicalField field) {
  switch (field) {
    case CanonicalField::id:
      return "id";
    case CanonicalField::type:
      return "type";
    case CanonicalField::stream:
      return "stream";
    case CanonicalField::namespace_name:
      return "namespace";
    case CanonicalField::site_id:
      return "site_id";
    case CanonicalField::source_id:
      return "source_id";
    case CanonicalField::timestamp:
      return "timestamp";
    case CanonicalField::ingested_at:
      return "ingested_at";
    case CanonicalField::receipt_id:
      return "receipt_id";
  }
  return "";
}

std::optional<FieldPath> FieldPath::parse(std::string_view text) {
  FieldPath path;
  path.text = std::string(text);
  for (const auto field : kCanonicalFields) {
    if (canonical_field_name(field) == text) {
      path.root = Root::canonical;
      path.canonical = field;
      return path;
    }
  }
  std::string_view rest;
  if (text.substr(0, 7) == "payload") {
    path.root = Root::payload;
    rest = text.substr(7);
  } else if (text.substr(0, 7) == "metrics") {
    path.root = Root::metrics;
    rest = text.substr(7);
  } else {
    return std::nullopt;
  }
  if (rest.empty()) return path;
  if (rest.front() != '.') return std::nullopt;
  rest.remove_prefix(1);
  while (true) {
    const std::size_t dot = rest.find('.');
    const std::string_view segment = rest.substr(0, dot);
    if (segment.empty()) return std::nullopt;
    path.segments.emplace_back(segment);
    if (dot == std::string_view::npos) break;
    rest.remove_prefix(dot + 1);
  }
  return path;
}

bool FieldPath::is_instant() const {
  return root == Root::canonical &&
         (canonical == CanonicalField::timestamp || canonical == CanonicalField::ingested_at);
}

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
    case CanonicalField::id:
      return FieldValue::of(std::string_view(record.id));
    case CanonicalField::type:
      return FieldValue::of(std::string_view(record.type));
    case CanonicalField::stream:
      return FieldValue::of(std::string_view(record.stream));
    case CanonicalField::namespace_name:
      return optional_string(record.namespace_name);
    case CanonicalField::site_id:
      return optional_string(record.site_id);
    case CanonicalField::source_id:
      return optional_string(record.source_id);
    case CanonicalField::timestamp:
      return FieldValue::of_instant(record.timestamp);
    case CanonicalField::ingested_at:
      return FieldValue::of_instant(record.ingested_at);
    case CanonicalField::receipt_id:
      return FieldValue::of(std::string_view(record.receipt_id));
  }
  return FieldValue::absent();
}

}  // namespace eventsvc::sdk
