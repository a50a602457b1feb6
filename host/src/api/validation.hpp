// Request body validation. Every problem is collected with its JSON Pointer path; the answer is
// one 400 listing them all in data.errors: [{path, message}].
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "eventsvc/sdk/json.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

class ValidationErrors {
 public:
  void add(std::string path, std::string message);
  bool empty() const { return errors_.empty(); }
  std::size_t size() const { return errors_.size(); }
  // Throws Error 400: message "<first path>: <first message>" (+ "; and N more problems"),
  // data.errors the whole list.
  void throw_if_any() const;

 private:
  std::vector<std::pair<std::string, std::string>> errors_;
};

// The longest event id the API takes, wherever an id is given: an event's `id` at ingest, the
// ids of an erasure, analyze's `excluded_document_ids`.
inline constexpr std::size_t kMaxEventIdLength = 1024;

// A JSON schema subset, built in code.
class Schema {
 public:
  enum class Type { any, string, integer, number, boolean, object, array };
  using Check = std::function<void(const json::value&, const std::string& path, ValidationErrors&)>;

  static Schema any();
  static Schema string();
  static Schema integer();
  static Schema number();
  static Schema boolean();
  static Schema array(Schema items);
  static Schema object();

  Schema& length(std::size_t min, std::size_t max);  // strings, in characters
  Schema& range(double min, double max);             // numbers
  Schema& items(std::size_t min, std::size_t max);   // arrays
  Schema& one_of(std::vector<std::string> values);   // strings
  Schema& max_properties(std::size_t max);           // objects
  Schema& property(std::string name, Schema schema, bool required = false);
  Schema& closed();            // objects: no other properties
  Schema& check(Check check);  // extra rule, run when the type is right

  void validate(const json::value& value, const std::string& path, ValidationErrors& errors) const;

 private:
  // Each adds its errors and says whether the value is valid so far (the checks then run).
  bool wrong_type(const std::string& path, ValidationErrors& errors) const;
  bool validate_string(const json::value& value, const std::string& path,
                       ValidationErrors& errors) const;
  bool validate_number(const json::value& value, const std::string& path,
                       ValidationErrors& errors) const;
  bool validate_array(const json::value& value, const std::string& path,
                      ValidationErrors& errors) const;
  bool validate_object(const json::value& value, const std::string& path,
                       ValidationErrors& errors) const;

  Type type_ = Type::any;
  std::optional<std::size_t> min_length_, max_length_;
  std::optional<double> minimum_, maximum_;
  std::optional<std::size_t> min_items_, max_items_;
  std::optional<std::size_t> max_properties_;
  std::vector<std::string> one_of_;
  struct Property;
  std::vector<Property> properties_;
  bool closed_ = false;
  std::shared_ptr<Schema> items_;
  std::vector<Check> checks_;
};

struct Schema::Property {
  std::string name;
  Schema schema;
  bool required;
};

// The request body as an object, or a 400 naming what it is instead.
json::value parse_body(std::string_view body);

}  // namespace eventsvc::host
