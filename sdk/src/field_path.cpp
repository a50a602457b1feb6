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

}  // namespace eventsvc::sdk
