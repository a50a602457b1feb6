// What a plugin says about itself: name, kind, version, description and the schema of its
// configuration section. The host validates an instance's config against this schema before the
// plugin sees it, so a plugin never has to check types, unknown keys or defaults itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/json.hpp"

namespace eventsvc::sdk {

enum class PluginKind { auth, storage, aggregation, context_mode, embedder, audit };

// "auth", "storage", "aggregation", "context", "embedder", "audit".
std::string_view kind_name(PluginKind kind);

// section: fixed keys (`fields`); mapping: any keys, values checked by whoever owns the mapping.
enum class ConfigType { string, integer, number, boolean, string_list, section, mapping };

std::string_view type_name(ConfigType type);

// One key of a config schema. Build with the named constructors and the chained setters:
//   ConfigField::integer("block_cache_mb", "Block cache size").default_to(64).at_least(8)
struct ConfigField {
  std::string key;
  ConfigType type = ConfigType::string;
  std::string description;
  bool required = false;
  json::value default_value;  // null: no default; the key is then absent unless required
  std::optional<double> minimum;
  std::optional<double> maximum;
  std::vector<std::string> one_of;  // allowed values of a string field
  std::vector<ConfigField> fields;  // keys of a section

  static ConfigField string(std::string key, std::string description);
  static ConfigField integer(std::string key, std::string description);
  static ConfigField number(std::string key, std::string description);
  static ConfigField boolean(std::string key, std::string description);
  static ConfigField string_list(std::string key, std::string description);
  static ConfigField section(std::string key, std::string description,
                             std::vector<ConfigField> fields);
  static ConfigField mapping(std::string key, std::string description);

  ConfigField&& default_to(json::value value) &&;
  ConfigField&& mandatory() &&;
  ConfigField&& at_least(double value) &&;
  ConfigField&& at_most(double value) &&;
  ConfigField&& allowed(std::vector<std::string> values) &&;
};

using ConfigSchema = std::vector<ConfigField>;

struct Manifest {
  std::string name;  // unique within its kind, e.g. "rocksdb"
  PluginKind kind = PluginKind::auth;
  std::string version;  // the plugin's own version, e.g. "1.0.0"
  std::string description;
  ConfigSchema config;
};

// The manifest as JSON (what `eventsvc plugins` prints).
json::object manifest_to_json(const Manifest& manifest);

}  // namespace eventsvc::sdk
