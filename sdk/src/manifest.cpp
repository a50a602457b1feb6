#include "eventsvc/sdk/manifest.hpp"

#include <utility>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::sdk {

std::string_view type_name(ConfigType type) {
  switch (type) {
    case ConfigType::string:
      return "string";
    case ConfigType::integer:
      return "integer";
    case ConfigType::number:
      return "number";
    case ConfigType::boolean:
      return "boolean";
    case ConfigType::string_list:
      return "list of strings";
    case ConfigType::section:
      return "section";
    case ConfigType::mapping:
      return "mapping";
  }
  return "unknown";
}

namespace {
ConfigField make(std::string key, ConfigType type, std::string description) {
  ConfigField field;
  field.key = std::move(key);
  field.type = type;
  field.description = std::move(description);
  return field;
}
}  // namespace

ConfigField ConfigField::string(std::string key, std::string description) {
  return make(std::move(key), ConfigType::string, std::move(description));
}
ConfigField ConfigField::integer(std::string key, std::string description) {
  return make(std::move(key), ConfigType::integer, std::move(description));
}
ConfigField ConfigField::number(std::string key, std::string description) {
  return make(std::move(key), ConfigType::number, std::move(description));
}
ConfigField ConfigField::boolean(std::string key, std::string description) {
  return make(std::move(key), ConfigType::boolean, std::move(description));
}
ConfigField ConfigField::string_list(std::string key, std::string description) {
  return make(std::move(key), ConfigType::string_list, std::move(description));
}
ConfigField ConfigField::section(std::string key, std::string description,
                                 std::vector<ConfigField> fields) {
  auto field = make(std::move(key), ConfigType::section, std::move(description));
  field.fields = std::move(fields);
  return field;
}

ConfigField ConfigField::mapping(std::string key, std::string description) {
  return make(std::move(key), ConfigType::mapping, std::move(description));
}

ConfigField&& ConfigField::default_to(json::value value) && {
  default_value = std::move(value);
  return std::move(*this);
}
ConfigField&& ConfigField::mandatory() && {
  required = true;
  return std::move(*this);
}
ConfigField&& ConfigField::at_least(double value) && {
  minimum = value;
  return std::move(*this);
}
ConfigField&& ConfigField::at_most(double value) && {
  maximum = value;
  return std::move(*this);
}
ConfigField&& ConfigField::allowed(std::vector<std::string> values) && {
  one_of = std::move(values);
  return std::move(*this);
}

namespace {
json::array schema_to_json(const ConfigSchema& schema) {
  json::array fields;
  for (const auto& field : schema) {
    json::object entry{
        {"key", field.key}, {"type", type_name(field.type)}, {"description", field.description}};
    if (field.required) entry["required"] = true;
    if (!field.default_value.is_null()) entry["default"] = field.default_value;
    if (field.minimum) entry["minimum"] = *field.minimum;
    if (field.maximum) entry["maximum"] = *field.maximum;
    if (!field.one_of.empty()) {
      json::array values;
      for (const auto& value : field.one_of)
        values.emplace_back(value);
      entry["one_of"] = std::move(values);
    }
    if (field.type == ConfigType::section) entry["fields"] = schema_to_json(field.fields);
    fields.emplace_back(std::move(entry));
  }
  return fields;
}
}  // namespace

namespace {

ConfigField field_of(const ConfigKey& key, const std::string& path) {
  ConfigField field;
  field.key = std::string(key.key);
  field.type = key.type;
  field.description = std::string(key.description);
  field.required = key.required;
  if (!key.default_json.empty()) {
    try {
      field.default_value = parse_json(key.default_json);
    } catch (const Error&) {
      throw Error::internal("manifest: the default of " + path +
                            " is not JSON: " + std::string(key.default_json));
    }
  }
  field.minimum = key.minimum;
  field.maximum = key.maximum;
  for (const auto value : key.one_of)
    field.one_of.emplace_back(value);
  for (const auto& child : key.fields)
    field.fields.push_back(field_of(child, path + "." + std::string(child.key)));
  return field;
}

}  // namespace

Manifest make_manifest(std::string_view name, PluginKind kind, const PluginInfo& info) {
  Manifest manifest{
      std::string(name), kind, std::string(info.version), std::string(info.description), {}};
  for (const auto& key : info.config)
    manifest.config.push_back(field_of(key, std::string(key.key)));
  return manifest;
}

json::object manifest_to_json(const Manifest& manifest) {
  return {{"name", manifest.name},
          {"kind", kind_name(manifest.kind)},
          {"version", manifest.version},
          {"description", manifest.description},
          {"config", schema_to_json(manifest.config)}};
}

}  // namespace eventsvc::sdk
