#include "eventsvc/sdk/config.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/strings.hpp"

namespace eventsvc::sdk {

std::string to_string(const SourceLocation& location) {
  if (location.file.empty()) return {};
  if (location.line <= 0) return location.file;
  return location.file + ":" + std::to_string(location.line);
}

namespace {

std::string join_path(std::string_view base, std::string_view key) {
  if (base.empty()) return std::string(key);
  if (key.empty()) return std::string(base);
  std::string out(base);
  out.push_back('.');
  out += key;
  return out;
}

// "file:line path: reason" (location omitted when unknown).
std::string describe(const SourceLocation& location, std::string_view path,
                     std::string_view reason) {
  std::string where = to_string(location);
  std::string out = where.empty() ? std::string() : where + " ";
  out += path;
  out += ": ";
  out += reason;
  return out;
}

[[noreturn]] void reject(const SourceLocation& location, std::string_view path,
                         std::string_view reason) {
  throw Error(500, describe(location, path, reason));
}

std::string format_bound(double value) {
  if (std::floor(value) == value && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  return std::to_string(value);
}

SourceLocation locate(const LocationMap& locations, const std::string& relative,
                      const SourceLocation& fallback) {
  const auto it = locations.find(relative);
  return it != locations.end() ? it->second : fallback;
}

json::value check_value(const ConfigField& field, const json::value& raw, const std::string& path,
                        const std::string& relative, const LocationMap& locations,
                        const SourceLocation& location);

json::object check_section(const ConfigSchema& schema, const json::object& raw,
                           const std::string& path, const std::string& relative,
                           const LocationMap& locations, const SourceLocation& location) {
  for (const auto& member : raw) {
    bool known = false;
    for (const auto& field : schema)
      known = known || field.key == member.key();
    if (!known) {
      const std::string allowed = join(schema, ", ", &ConfigField::key);
      const std::string key_relative = join_path(relative, member.key());
      reject(locate(locations, key_relative, location), join_path(path, member.key()),
             "unknown key; allowed keys: " + (allowed.empty() ? std::string("(none)") : allowed));
    }
  }
  json::object out;
  for (const auto& field : schema) {
    const std::string key_path = join_path(path, field.key);
    const std::string key_relative = join_path(relative, field.key);
    const auto* value = raw.if_contains(field.key);
    if (value == nullptr || value->is_null()) {
      if (field.type == ConfigType::section) {
        out[field.key] = check_section(field.fields, {}, key_path, key_relative, locations,
                                       locate(locations, key_relative, location));
        continue;
      }
      if (field.required) reject(location, key_path, "is required");
      if (!field.default_value.is_null()) out[field.key] = field.default_value;
      continue;
    }
    out[field.key] = check_value(field, *value, key_path, key_relative, locations,
                                 locate(locations, key_relative, location));
  }
  return out;
}

json::value check_value(const ConfigField& field, const json::value& raw, const std::string& path,
                        const std::string& relative, const LocationMap& locations,
                        const SourceLocation& location) {
  switch (field.type) {
    case ConfigType::string: {
      if (!raw.is_string()) {
        reject(location, path,
               raw.is_number() || raw.is_bool() ? "must be a string (quote the value)"
                                                : "must be a string");
      }
      if (!field.one_of.empty() && std::find(field.one_of.begin(), field.one_of.end(),
                                             raw.get_string()) == field.one_of.end()) {
        reject(location, path, "must be one of: " + join(field.one_of, ", "));
      }
      return raw;
    }
    case ConfigType::integer:
    case ConfigType::number: {
      const bool integral = raw.is_int64() || raw.is_uint64();
      if (field.type == ConfigType::integer && !integral)
        reject(location, path, "must be an integer");
      if (!raw.is_number()) reject(location, path, "must be a number");
      const double number = raw.to_number<double>();
      if (field.minimum && number < *field.minimum) {
        reject(location, path, "must be at least " + format_bound(*field.minimum));
      }
      if (field.maximum && number > *field.maximum) {
        reject(location, path, "must be at most " + format_bound(*field.maximum));
      }
      if (field.type == ConfigType::integer && raw.is_uint64()) {
        reject(location, path, "is too large");
      }
      return field.type == ConfigType::number ? json::value(number) : raw;
    }
    case ConfigType::boolean:
      if (!raw.is_bool()) reject(location, path, "must be true or false");
      return raw;
    case ConfigType::string_list: {
      if (!raw.is_array()) reject(location, path, "must be a list of strings");
      for (const auto& element : raw.get_array()) {
        if (!element.is_string()) reject(location, path, "must be a list of strings");
      }
      return raw;
    }
    case ConfigType::section:
      if (!raw.is_object()) reject(location, path, "must be a mapping of keys to values");
      return check_section(field.fields, raw.get_object(), path, relative, locations, location);
    case ConfigType::mapping:
      if (!raw.is_object()) reject(location, path, "must be a mapping of keys to values");
      return raw;
  }
  return raw;
}

}  // namespace

ConfigSection::ConfigSection(std::string path, json::object values, LocationMap locations,
                             SourceLocation location)
    : path_(std::move(path)),
      values_(std::move(values)),
      locations_(std::move(locations)),
      location_(std::move(location)) {}

bool ConfigSection::has(std::string_view key) const {
  return values_.contains(key);
}

const json::value& ConfigSection::require(std::string_view key) const {
  const auto* value = values_.if_contains(key);
  if (value == nullptr) {
    throw Error::internal("config key '" + join_path(path_, key) +
                          "' is not declared in the plugin's schema or has no default");
  }
  return *value;
}

std::string ConfigSection::get_string(std::string_view key) const {
  return std::string(require(key).as_string());
}
std::int64_t ConfigSection::get_int(std::string_view key) const {
  return require(key).to_number<std::int64_t>();
}
double ConfigSection::get_number(std::string_view key) const {
  return require(key).to_number<double>();
}
bool ConfigSection::get_bool(std::string_view key) const {
  return require(key).as_bool();
}
std::vector<std::string> ConfigSection::get_strings(std::string_view key) const {
  std::vector<std::string> out;
  for (const auto& element : require(key).as_array()) {
    out.emplace_back(element.as_string());
  }
  return out;
}

ConfigSection ConfigSection::get_section(std::string_view key) const {
  const std::string prefix = std::string(key) + ".";
  LocationMap nested;
  for (const auto& [name, location] : locations_) {
    if (name.compare(0, prefix.size(), prefix) == 0) nested[name.substr(prefix.size())] = location;
  }
  const auto it = locations_.find(key);
  return {join_path(path_, key), require(key).as_object(), std::move(nested),
          it != locations_.end() ? it->second : location_};
}

std::string ConfigSection::where(std::string_view key) const {
  const auto it = locations_.find(key);
  const SourceLocation& location = it != locations_.end() ? it->second : location_;
  const std::string text = to_string(location);
  return (text.empty() ? std::string() : text + " ") + join_path(path_, key);
}

void ConfigSection::fail(std::string_view key, std::string_view reason) const {
  throw Error(500, where(key) + ": " + std::string(reason));
}

ConfigSection validate_config(const ConfigSchema& schema, const json::object& raw, std::string path,
                              const LocationMap& locations, const SourceLocation& location) {
  json::object values = check_section(schema, raw, path, "", locations, location);
  return {std::move(path), std::move(values), locations, location};
}

}  // namespace eventsvc::sdk
