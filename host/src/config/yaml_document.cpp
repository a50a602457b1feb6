#include "config/yaml_document.hpp"

#include <yaml-cpp/yaml.h>

#include <charconv>
#include <fstream>
#include <sstream>

#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

// YAML 1.2's core schema numbers, scanned by hand (std::regex's automaton trips GCC 12's
// -Wmaybe-uninitialized at -O1): [-+]?[0-9]+ is an integer;
// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? a float.
std::size_t digits_from(std::string_view text, std::size_t at) {
  while (at < text.size() && text[at] >= '0' && text[at] <= '9')
    ++at;
  return at;
}

bool is_integer(std::string_view text) {
  const std::size_t start = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  const std::size_t end = digits_from(text, start);
  return end > start && end == text.size();
}

bool is_float(std::string_view text) {
  std::size_t at = !text.empty() && (text[0] == '-' || text[0] == '+') ? 1 : 0;
  const std::size_t whole = digits_from(text, at);
  const bool has_whole = whole > at;
  at = whole;
  if (at < text.size() && text[at] == '.') {
    const std::size_t fraction = digits_from(text, at + 1);
    if (!has_whole && fraction == at + 1) return false;  // "." or "-." alone
    at = fraction;
  } else if (!has_whole) {
    return false;
  }
  if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    std::size_t exponent = at + 1;
    if (exponent < text.size() && (text[exponent] == '-' || text[exponent] == '+')) ++exponent;
    const std::size_t end = digits_from(text, exponent);
    if (end == exponent) return false;
    at = end;
  }
  return at == text.size();
}

json::value typed_scalar(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "!") return json::string(text);  // quoted: always a string
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return nullptr;
  }
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  if (is_integer(text)) {
    std::int64_t value = 0;
    const char* begin = text.data() + (text.front() == '+' ? 1 : 0);
    const auto result = std::from_chars(begin, text.data() + text.size(), value);
    if (result.ec == std::errc()) return value;
    return json::string(text);  // out of range: leave it to the schema to reject
  }
  if (is_float(text)) {
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
