#include "api/validation.hpp"

#include <algorithm>
#include <cmath>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/strings.hpp"

namespace eventsvc::host {

namespace {

std::string_view kind_word(Schema::Type type) {
  switch (type) {
    case Schema::Type::string:
      return "a string";
    case Schema::Type::integer:
      return "an integer";
    case Schema::Type::number:
      return "a number";
    case Schema::Type::boolean:
      return "true or false";
    case Schema::Type::object:
      return "an object";
    case Schema::Type::array:
      return "an array";
    case Schema::Type::any:
      return "a value";
  }
  return "a value";
}

std::string number_text(double value) {
  if (std::floor(value) == value && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  return sdk::to_json(json::value(value));
}

bool is_integer(const json::value& value) {
  if (value.is_int64() || value.is_uint64()) return true;
  if (value.is_double()) {
    const double d = value.get_double();
    return std::floor(d) == d && std::fabs(d) < 9.007199254740992e15;
  }
  return false;
}

}  // namespace

void ValidationErrors::add(std::string path, std::string message) {
  errors_.emplace_back(std::move(path), std::move(message));
}

void ValidationErrors::throw_if_any() const {
  if (errors_.empty()) return;
  json::array list;
  for (const auto& [path, message] : errors_) {
    list.emplace_back(json::object{{"path", path}, {"message", message}});
  }
  std::string summary =
      (errors_.front().first.empty() ? std::string("body") : errors_.front().first) + ": " +
      errors_.front().second;
  if (errors_.size() > 1) {
    summary += "; and " + std::to_string(errors_.size() - 1) + " more problem" +
               (errors_.size() > 2 ? "s" : "");
  }
  throw sdk::Error::bad_request(summary, {{"errors", std::move(list)}});
}

Schema Schema::any() {
  return {};
}
Schema Schema::string() {
  Schema s;
  s.type_ = Type::string;
  return s;
}
Schema Schema::integer() {
  Schema s;
  s.type_ = Type::integer;
  return s;
}
Schema Schema::number() {
  Schema s;
  s.type_ = Type::number;
  return s;
}
Schema Schema::boolean() {
  Schema s;
  s.type_ = Type::boolean;
  return s;
}
Schema Schema::array(Schema items) {
  Schema s;
  s.type_ = Type::array;
  s.items_ = std::make_shared<Schema>(std::move(items));
  return s;
}
Schema Schema::object() {
  Schema s;
  s.type_ = Type::object;
  return s;
}

Schema& Schema::length(std::size_t min, std::size_t max) {
  min_length_ = min;
  max_length_ = max;
  return *this;
}
Schema& Schema::range(double min, double max) {
  minimum_ = min;
  maximum_ = max;
  return *this;
}
Schema& Schema::items(std::size_t min, std::size_t max) {
  min_items_ = min;
  max_items_ = max;
  return *this;
}
Schema& Schema::one_of(std::vector<std::string> values) {
  one_of_ = std::move(values);
  return *this;
}
Schema& Schema::max_properties(std::size_t max) {
  max_properties_ = max;
  return *this;
}
Schema& Schema::property(std::string name, Schema schema, bool required) {
  properties_.push_back({std::move(name), std::move(schema), required});
  return *this;
}
Schema& Schema::closed() {
  closed_ = true;
  return *this;
}
Schema& Schema::check(Check check) {
  checks_.push_back(std::move(check));
  return *this;
}

void Schema::validate(const json::value& value, const std::string& path,
                      ValidationErrors& errors) const {
  bool valid = true;
  switch (type_) {
    case Type::any:
      break;
    case Type::string:
      valid = validate_string(value, path, errors);
      break;
    case Type::integer:
    case Type::number:
      valid = validate_number(value, path, errors);
      break;
    case Type::boolean:
      valid = value.is_bool() || wrong_type(path, errors);
      break;
    case Type::array:
      valid = validate_array(value, path, errors);
      break;
    case Type::object:
      valid = validate_object(value, path, errors);
      break;
  }
  if (!valid) return;
  for (const auto& check : checks_)
    check(value, path, errors);
}

bool Schema::wrong_type(const std::string& path, ValidationErrors& errors) const {
  errors.add(path, "must be " + std::string(kind_word(type_)));
  return false;
}

bool Schema::validate_string(const json::value& value, const std::string& path,
                             ValidationErrors& errors) const {
  if (!value.is_string()) return wrong_type(path, errors);
  const std::size_t length = sdk::utf8_length(value.get_string());
  if (min_length_ && length < *min_length_) {
    errors.add(path, *min_length_ == 1
                         ? "must not be empty"
                         : "must be at least " + std::to_string(*min_length_) + " characters long");
    return false;
  }
  if (max_length_ && length > *max_length_) {
    errors.add(path, "must be at most " + std::to_string(*max_length_) + " characters long");
    return false;
  }
  if (!one_of_.empty() &&
      std::find(one_of_.begin(), one_of_.end(), value.get_string()) == one_of_.end()) {
    errors.add(path, "must be one of: " + sdk::join(one_of_, ", "));
    return false;
  }
  return true;
}

bool Schema::validate_number(const json::value& value, const std::string& path,
                             ValidationErrors& errors) const {
  if (!value.is_number() || (type_ == Type::integer && !is_integer(value))) {
    return wrong_type(path, errors);
  }
  const double number = value.to_number<double>();
  if ((minimum_ && number < *minimum_) || (maximum_ && number > *maximum_)) {
    errors.add(path,
               "must be between " + number_text(*minimum_) + " and " + number_text(*maximum_));
    return false;
  }
  return true;
}

bool Schema::validate_array(const json::value& value, const std::string& path,
                            ValidationErrors& errors) const {
  if (!value.is_array()) return wrong_type(path, errors);
  const auto& array = value.get_array();
  if (min_items_ && array.size() < *min_items_) {
    errors.add(path, "must have at least " + std::to_string(*min_items_) + " item" +
                         (*min_items_ == 1 ? "" : "s"));
    return false;
  }
  if (max_items_ && array.size() > *max_items_) {
    errors.add(path, "must have at most " + std::to_string(*max_items_) + " items");
    return false;
  }
  for (std::size_t i = 0; i < array.size(); ++i) {
    items_->validate(array[i], sdk::pointer_append(path, i), errors);
  }
  return true;
}

bool Schema::validate_object(const json::value& value, const std::string& path,
                             ValidationErrors& errors) const {
  if (!value.is_object()) return wrong_type(path, errors);
  const auto& object = value.get_object();
  if (max_properties_ && object.size() > *max_properties_) {
    errors.add(path, "must have at most " + std::to_string(*max_properties_) + " properties");
    return false;
  }
  for (const auto& property : properties_) {
    const auto* member = object.if_contains(property.name);
    const std::string member_path = sdk::pointer_append(path, property.name);
    if (member == nullptr) {
      if (property.required) errors.add(member_path, "is required");
      continue;
    }
    property.schema.validate(*member, member_path, errors);
  }
  if (!closed_) return true;
  for (const auto& member : object) {
    bool known = false;
    for (const auto& property : properties_)
      known = known || property.name == member.key();
    if (!known) {
      const std::string allowed = sdk::join(properties_, ", ", &Property::name);
      errors.add(sdk::pointer_append(path, member.key()),
                 "is not an allowed property; allowed: " + allowed);
    }
  }
  return true;
}

json::value parse_body(std::string_view body) {
  if (body.empty()) throw sdk::Error::bad_request("the request needs a JSON body");
  json::value value = sdk::parse_json(body);
  if (!value.is_object()) {
    throw sdk::Error::bad_request(
        "the request body must be a JSON object",
        {{"errors", json::array{json::object{{"path", ""}, {"message", "must be an object"}}}}});
  }
  return value;
}

}  // namespace eventsvc::host
