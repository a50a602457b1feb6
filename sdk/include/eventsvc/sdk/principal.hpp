// Who is asking and whose data they reach. A Tenant (workspace + environment) is the unit of data
// isolation: storage keeps every tenant's data apart and nothing a request says can change it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace eventsvc::sdk {

// `live` keys reach the production data plane, `test` keys the test data plane.
enum class Environment { live, test };

std::string_view environment_name(Environment environment);  // "live" / "test"
std::optional<Environment> parse_environment(std::string_view text);

struct Tenant {
  std::string workspace;
  Environment environment = Environment::test;

  friend bool operator==(const Tenant&, const Tenant&) = default;
};

// The scopes a key can hold.
inline constexpr std::string_view kScopeRead = "events:read";
inline constexpr std::string_view kScopeWrite = "events:write";
// Erasing events (POST /v1/erasures); not implied by events:write.
inline constexpr std::string_view kScopeErase = "events:erase";

bool is_known_scope(std::string_view scope);

struct Principal {
  Tenant tenant;
  std::vector<std::string> scopes;
  std::string plan;    // name of a plan in the host config
  std::string key_id;  // public identifier of the key (never the secret)

  bool has_scope(std::string_view scope) const;
};

}  // namespace eventsvc::sdk
