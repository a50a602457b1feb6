// A validated view of one configuration section. The host builds it from YAML after checking it
// against the plugin's ConfigSchema (manifest.hpp): unknown keys, wrong types and out-of-range
// values never reach the plugin, and defaults are filled in. A plugin that finds a value it
// cannot use (a path that does not exist, two keys that contradict) calls fail(), which names the
// file, line and key in the same format the host uses.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/manifest.hpp"

namespace eventsvc::sdk {

struct SourceLocation {
  std::string file;
  int line = 0;  // 1-based; 0 when unknown
};

// "file:line" or "file" or "" .
std::string to_string(const SourceLocation& location);

// Where every key of a raw (unvalidated) tree came from, by dotted path relative to the tree.
using LocationMap = std::map<std::string, SourceLocation, std::less<>>;

class ConfigSection {
 public:
  ConfigSection() = default;
  ConfigSection(std::string path, json::object values, LocationMap locations,
                SourceLocation location);

  // Dotted path of this section in its file, e.g. "plugins.rocksdb.config".
  const std::string& path() const { return path_; }
  const json::object& values() const { return values_; }

  bool has(std::string_view key) const;
  std::string get_string(std::string_view key) const;
  std::int64_t get_int(std::string_view key) const;
  double get_number(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  std::vector<std::string> get_strings(std::string_view key) const;
  ConfigSection get_section(std::string_view key) const;

  // Throws Error(500) "file:line path.key: reason".
  [[noreturn]] void fail(std::string_view key, std::string_view reason) const;
  // "file:line path.key" of a key (of the section itself when key is empty).
  std::string where(std::string_view key) const;

 private:
  const json::value& require(std::string_view key) const;

  std::string path_;
  json::object values_;
  LocationMap locations_;
  SourceLocation location_;
};

// Checks `raw` against `schema` and returns the validated section with defaults applied. The
// first problem is thrown as Error(500) with one line:
//   "eventsvc.yaml:12 plugins.rocksdb.config.cache_mb: unknown key; allowed keys: block_cache_mb,
//   ..." "eventsvc.yaml:14 server.threads: must be an integer"
ConfigSection validate_config(const ConfigSchema& schema, const json::object& raw, std::string path,
                              const LocationMap& locations, const SourceLocation& location);

}  // namespace eventsvc::sdk
