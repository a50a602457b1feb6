// Field names as requests address them (DESIGN §3): a canonical field (`id`, `timestamp`, ...),
// `payload.<path>` inside the event's data, or `metrics.<path>` inside its metrics. Path segments
// are separated by dots; an all-digit segment also indexes arrays.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/json.hpp"

namespace eventsvc::sdk {

enum class CanonicalField : std::uint8_t {
  id,
  type,
  stream,
  namespace_name,
  site_id,
  source_id,
  timestamp,
  ingested_at,
  receipt_id,
};

inline constexpr CanonicalField kCanonicalFields[] = {
    CanonicalField::id,         CanonicalField::type,
    CanonicalField::stream,     CanonicalField::namespace_name,
    CanonicalField::site_id,    CanonicalField::source_id,
    CanonicalField::timestamp,  CanonicalField::ingested_at,
    CanonicalField::receipt_id,
};

std::string_view canonical_field_name(CanonicalField field);

struct FieldPath {
  enum class Root : std::uint8_t { canonical, payload, metrics };

  Root root = Root::canonical;
  CanonicalField canonical = CanonicalField::id;  // when root is canonical
  std::vector<std::string> segments;              // below payload / metrics
  std::string text;                               // the name as written

  // nullopt for anything that is not a canonical field, `payload`, `payload.<path>`, `metrics` or
  // `metrics.<path>` (empty segments are not allowed).
  static std::optional<FieldPath> parse(std::string_view text);

  bool is_canonical(CanonicalField field) const {
    return root == Root::canonical && canonical == field;
  }
  // timestamp and ingested_at hold instants: comparisons take time expressions.
  bool is_instant() const;

  friend bool operator==(const FieldPath& a, const FieldPath& b) { return a.text == b.text; }
};

}  // namespace eventsvc::sdk
