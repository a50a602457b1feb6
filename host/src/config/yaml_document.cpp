#include "config/yaml_document.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <fstream>
#include <regex>
#include <sstream>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

json::value typed_scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return json::string(text);  // quoted: always a string
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  static const std::regex kInteger("[-+]?[0-9]+");
  static const std::regex kFloat("[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?");
  if (std::regex_match(text, kInteger)) {
    std::int64_t value = 0;
    const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
    const auto result = std::from_chars(begin, text.data() + text.size(), value);
    if (result.ec == std::errc()) return value;
    return json::string(text);  // out of range: leave it to the schema to reject
  }
  if (std::regex_match(text, kFloat)) {
    try {
      return std::stod(text);
    } catch (const std::exception&) {
      return json::string(text);
    }
  }
  return json::string(text);
}

json::value convert(const YAML::Node& node, const std::string& path, const std::string& origin,
                    sdk::LocationMap& locations) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return typed_scalar(node);
    case YAML::NodeType::Sequence: {
      json::array array;
      std::size_t index = 0;
      for (const auto& element : node) {
        array.push_back(convert(element, path + "." + std::to_string(index++), origin, locations));
      }
      return array;
    }
    case YAML::NodeType::Map: {
      json::object object;
      for (const auto& entry : node) {
        const std::string key = entry.first.as<std::string>();
        std::string child = path;
        if (!child.empty()) child += '.';
        child += key;
        locations[child] = sdk::SourceLocation{origin, entry.first.Mark().line + 1};
        object[key] = convert(entry.second, child, origin, locations);
      }
      return object;
    }
  }
  return nullptr;
}

}  // namespace

YamlDocument parse_yaml(std::string_view text, std::string origin) {
  YamlDocument document;
  document.origin = std::move(origin);
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& error) {
    throw sdk::Error(500, document.origin + ":" + std::to_string(error.mark.line + 1) +
                              ": not valid YAML: " + error.msg);
  }
  if (root.IsNull()) return document;
  if (!root.IsMap()) {
    throw sdk::Error(500, document.origin + ": the top level must be a mapping of keys to values");
  }
  document.root = convert(root, "", document.origin, document.locations).as_object();
  return document;
}

YamlDocument load_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw sdk::Error(500, path + ": cannot read the config file");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_yaml(text.str(), path);
}

sdk::LocationMap locations_below(const sdk::LocationMap& locations, std::string_view prefix) {
  sdk::LocationMap out;
  const std::string start = std::string(prefix) + ".";
  for (auto it = locations.lower_bound(start); it != locations.end(); ++it) {
    if (it->first.compare(0, start.size(), start) != 0) break;
    out[it->first.substr(start.size())] = it->second;
  }
  return out;
}

}  // namespace eventsvc::host
