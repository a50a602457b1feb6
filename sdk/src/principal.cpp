#include "eventsvc/sdk/principal.hpp"

#include <algorithm>

namespace eventsvc::sdk {

std::string_view environment_name(Environment environment) {
  return environment == Environment::live ? "live" : "test";
}

std::optional<Environment> parse_environment(std::string_view text) {
  if (text == "live") return Environment::live;
  if (text == "test") return Environment::test;
  return std::nullopt;
}

bool is_known_scope(std::string_view scope) {
  return scope == kScopeRead || scope == kScopeWrite || scope == kScopeErase;
}

bool Principal::has_scope(std::string_view scope) const {
  return std::find(scopes.begin(), scopes.end(), scope) != scopes.end();
}

}  // namespace eventsvc::sdk
