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

ConfigSchema schema_of(std::span<const ConfigKey> keys) {
  ConfigSchema schema;
  for (const auto& key : keys)
    schema.push_back(field_of(key, std::string(key.key)));
  return schema;
}

Manifest make_manifest(std::string_view name, PluginKind kind, const PluginInfo& info) {
  return {std::string(name), kind, std::string(info.version), std::string(info.description),
          schema_of(info.config)};
}

json::object manifest_to_json(const Manifest& manifest) {
  return {{"name", manifest.name},
          {"kind", kind_name(manifest.kind)},
          {"version", manifest.version},
          {"description", manifest.description},
          {"config", schema_to_json(manifest.config)}};
}

}  // namespace eventsvc::sdk
