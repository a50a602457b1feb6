// A field's value in one record (sdk/field_path.hpp names fields), found without copying it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/record.hpp"
#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

using sdk::FieldPath;
using sdk::Record;

class FieldValue {
 public:
  enum class Kind : std::uint8_t { absent, json, string, instant };

  static FieldValue absent() { return {}; }
  static FieldValue of(const json::value* value);
  static FieldValue of(std::string_view text);
  static FieldValue of_instant(Millis instant);

  Kind kind() const { return kind_; }
  bool present() const { return kind_ != Kind::absent; }
  const json::value& json_value() const { return *json_; }
  std::string_view string() const { return string_; }
  Millis instant() const { return instant_; }

  // The value as JSON; instants as RFC 3339 strings. Null for absent.
  json::value to_json() const;
  // The string the value holds (string or json string), if it is one.
  std::optional<std::string_view> as_string() const;

 private:
  Kind kind_ = Kind::absent;
  const json::value* json_ = nullptr;
  std::string_view string_;
  Millis instant_ = 0;
};

FieldValue resolve(const Record& record, const FieldPath& path);

// Walks `segments` inside a JSON value; null when a segment is missing.
const json::value* resolve_path(const json::value& root, const std::vector<std::string>& segments);

}  // namespace eventsvc::toolkit
