// A YAML file read into JSON, remembering the line of every key so validation errors can name it.
#pragma once

#include <string>
#include <string_view>

#include "eventsvc/sdk/config.hpp"
#include "eventsvc/sdk/json.hpp"

namespace eventsvc::host {

struct YamlDocument {
  std::string origin;          // file name, or "<embedded default config>"
  sdk::json::object root;      // the top-level mapping
  sdk::LocationMap locations;  // dotted key path -> file:line
};

// Plain scalars are typed as YAML 1.2's core schema says (null, true/false, integers, floats,
// else strings); quoted scalars are always strings. Throws sdk::Error naming the file and line of
// a syntax error, or when the top level is not a mapping.
YamlDocument parse_yaml(std::string_view text, std::string origin);
YamlDocument load_yaml_file(const std::string& path);

// Keys below `prefix` with the prefix removed: locations of "plugins.x.config.a" for prefix
// "plugins.x.config" become "a".
sdk::LocationMap locations_below(const sdk::LocationMap& locations, std::string_view prefix);

}  // namespace eventsvc::host
