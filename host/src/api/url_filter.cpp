#include "api/url_filter.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

sdk::Error bad_parameter(const std::string& name, const std::string& message) {
  return sdk::Error::bad_request(
      "the " + name + " parameter " + message,
      {{"errors", json::array{json::object{{"path", name}, {"message", message}}}}});
}

UrlParameters url_parameters(const RequestHead& head,
                             const std::set<std::string, std::less<>>& known,
                             std::string_view read) {
  UrlParameters parameters;
  for (auto& [name, value] : head.query_parameters()) {
    if (!known.contains(name)) {
      std::string names;
      for (const auto& one : known)
        names += (names.empty() ? "" : ", ") + one;
      throw bad_parameter(name, "is not one of " + std::string(read) + "'s: " + names);
    }
    if (!parameters.emplace(name, std::move(value)).second)
      throw bad_parameter(name, "is given more than once");
  }
  return parameters;
}

json::object url_where(const UrlParameters& parameters) {
  json::object where;
  if (const auto it = parameters.find("where"); it != parameters.end()) {
    json::value parsed;
    try {
      parsed = sdk::parse_json(it->second);
    } catch (const std::exception&) {
      throw bad_parameter("where", "is not JSON: give a where object, URL-encoded");
    }
    if (!parsed.is_object()) throw bad_parameter("where", "must be a JSON object");
    where = std::move(parsed.as_object());
  }
  for (const char* name : {"stream", "namespace"}) {
    const auto it = parameters.find(name);
    if (it == parameters.end()) continue;
    if (where.contains(name)) {
      throw bad_parameter(name, std::string("is given twice: as a parameter and in where"));
    }
    where[name] = it->second;
  }
  return where;
}

}  // namespace eventsvc::host
