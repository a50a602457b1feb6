// What a plugin says about itself: name, kind, version, description and the schema of its
// configuration section. The host validates an instance's config against this schema before the
// plugin sees it, so a plugin never has to check types, unknown keys or defaults itself.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/json.hpp"

namespace eventsvc::sdk {

enum class PluginKind { auth, storage, aggregation, context_mode, embedder, audit, limits, log };

inline constexpr PluginKind kPluginKinds[] = {
    PluginKind::auth,     PluginKind::storage, PluginKind::aggregation, PluginKind::context_mode,
    PluginKind::embedder, PluginKind::audit,   PluginKind::limits,      PluginKind::log};

// "auth", "storage", "aggregation", "context", "embedder", "audit", "limits", "log": the word in a
// plugin library's name (libeventsvc-<kind>-<name>.so) and in the folder of an in-tree plugin.
constexpr std::string_view kind_name(PluginKind kind) {
  switch (kind) {
    case PluginKind::auth:
      return "auth";
    case PluginKind::storage:
      return "storage";
    case PluginKind::aggregation:
      return "aggregation";
    case PluginKind::context_mode:
      return "context";
    case PluginKind::embedder:
      return "embedder";
    case PluginKind::audit:
      return "audit";
    case PluginKind::limits:
      return "limits";
    case PluginKind::log:
      return "log";
  }
  return "unknown";
}

// section: fixed keys (`fields`); mapping: any keys, values checked by whoever owns the mapping.
enum class ConfigType { string, integer, number, boolean, string_list, section, mapping };

std::string_view type_name(ConfigType type);

// One key of a config schema, as validate_config (config.hpp) checks with it: what a ConfigKey
// table (below), the one way a schema is declared, by plugins and the host alike, becomes.
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
};

using ConfigSchema = std::vector<ConfigField>;

struct Manifest {
  std::string name;  // unique within its kind, e.g. "rocksdb"
  PluginKind kind = PluginKind::auth;
  std::string version;  // the plugin's own version, e.g. "1.0.0"
  std::string description;
  ConfigSchema config;
};

// A plugin's manifest as data, Fluent Bit's config map style: a class declares its name once and
// its manifest as compile-time constants, and the SDK builds the Manifest from them
// (manifest_of<Class>(), plugin.hpp). Its kind is the kind interface it derives from (each
// declares kKind), written nowhere else:
//
//   static constexpr std::string_view kName = "sum";   // also what op() returns
//   static constexpr sdk::PluginInfo kInfo{"1.0.0", "Sum of the numeric values of a field"};
//
// A configurable plugin adds a table of its keys (see plugins/storage/rocksdb):
//
//   constexpr sdk::ConfigKey kConfig[] = {
//       sdk::ConfigKey::integer("block_cache_mb", "Shared block cache").defaults_to("128")
//           .at_least(8),
//       sdk::ConfigKey::section("projector", "Asynchronous projection", kProjector)};
//   const sdk::PluginInfo RocksdbStorage::kInfo{"1.0.0", "...", kConfig};
struct ConfigKey {
  std::string_view key;
  ConfigType type = ConfigType::string;
  std::string_view description;
  std::string_view
      default_json;  // the default as JSON text ("128", "\"lz4\"", "true"); empty: none
  bool required = false;
  std::optional<double> minimum;
  std::optional<double> maximum;
  std::span<const std::string_view> one_of;  // allowed values of a string
  std::span<const ConfigKey> fields;         // the keys of a section

  static constexpr ConfigKey of(ConfigType type, std::string_view key,
                                std::string_view description) {
    ConfigKey config_key;
    config_key.key = key;
    config_key.type = type;
    config_key.description = description;
    return config_key;
  }
  static constexpr ConfigKey string(std::string_view key, std::string_view description) {
    return of(ConfigType::string, key, description);
  }
  static constexpr ConfigKey integer(std::string_view key, std::string_view description) {
    return of(ConfigType::integer, key, description);
  }
  static constexpr ConfigKey number(std::string_view key, std::string_view description) {
    return of(ConfigType::number, key, description);
  }
  static constexpr ConfigKey boolean(std::string_view key, std::string_view description) {
    return of(ConfigType::boolean, key, description);
  }
  static constexpr ConfigKey string_list(std::string_view key, std::string_view description) {
    return of(ConfigType::string_list, key, description);
  }
  static constexpr ConfigKey section(std::string_view key, std::string_view description,
                                     std::span<const ConfigKey> keys) {
    ConfigKey config_key = of(ConfigType::section, key, description);
    config_key.fields = keys;
    return config_key;
  }
  static constexpr ConfigKey mapping(std::string_view key, std::string_view description) {
    return of(ConfigType::mapping, key, description);
  }
  constexpr ConfigKey defaults_to(std::string_view json) const {
    ConfigKey copy = *this;
    copy.default_json = json;
    return copy;
  }
  constexpr ConfigKey mandatory() const {
    ConfigKey copy = *this;
    copy.required = true;
    return copy;
  }
  constexpr ConfigKey at_least(double value) const {
    ConfigKey copy = *this;
    copy.minimum = value;
    return copy;
  }
  constexpr ConfigKey at_most(double value) const {
    ConfigKey copy = *this;
    copy.maximum = value;
    return copy;
  }
  constexpr ConfigKey allowed(std::span<const std::string_view> values) const {
    ConfigKey copy = *this;
    copy.one_of = values;
    return copy;
  }
};

struct PluginInfo {
  constexpr PluginInfo(std::string_view version_, std::string_view description_,
                       std::span<const ConfigKey> config_ = {})
      : version(version_), description(description_), config(config_) {}

  std::string_view version;  // the plugin's own version, e.g. "1.0.0"
  std::string_view description;
  std::span<const ConfigKey> config;
};

// The schema a table of keys declares; throws Error 500 naming the key whose default is not JSON.
ConfigSchema schema_of(std::span<const ConfigKey> keys);

// The Manifest of a plugin of `kind` named `name`; throws Error 500 naming the key whose default
// is not JSON.
Manifest make_manifest(std::string_view name, PluginKind kind, const PluginInfo& info);

// The manifest as JSON (what `eventsvc plugins` prints).
json::object manifest_to_json(const Manifest& manifest);

}  // namespace eventsvc::sdk
