#include "keys/key_requests.hpp"

#include <algorithm>

#include "eventsvc/sdk/strings.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

// 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.
bool valid_workspace(std::string_view name) {
  const auto alphanumeric = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (name.empty() || name.size() > 64 || !alphanumeric(name.front())) return false;
  return std::all_of(name.begin(), name.end(),
                     [&](char c) { return alphanumeric(c) || c == '.' || c == '_' || c == '-'; });
}

}  // namespace

std::optional<KeyRequestProblem> check_key_request(const HostConfig& config,
                                                   std::string_view environment,
                                                   sdk::KeyRequest& request) {
  if (!valid_workspace(request.tenant.workspace)) {
    return KeyRequestProblem{"workspace",
                             "must be 1-64 letters, digits, '.', '_' or '-', starting with a "
                             "letter or digit"};
  }
  const auto parsed = sdk::parse_environment(environment);
  if (!parsed) return KeyRequestProblem{"env", "must be live or test"};
  request.tenant.environment = *parsed;
  // An empty list is allowed: such a key authenticates but every route answers 403.
  for (const auto& scope : request.scopes) {
    if (!sdk::is_known_scope(scope)) {
      return KeyRequestProblem{"scopes", "has an unknown scope '" + scope + "'; scopes are " +
                                             std::string(sdk::kScopeRead) + ", " +
                                             std::string(sdk::kScopeWrite) + " and " +
                                             std::string(sdk::kScopeErase)};
    }
  }
  if (config.plan(request.plan) == nullptr) {
    std::vector<std::string> plans;
    for (const auto& [name, plan] : config.plans)
      plans.push_back(name);
    return KeyRequestProblem{"plan", "names no plan '" + request.plan + "' in " + config.origin +
                                         "; plans: " + sdk::join(plans, ", ")};
  }
  return std::nullopt;
}

sdk::json::object key_info_json(const sdk::KeyInfo& key) {
  sdk::json::array scopes;
  for (const auto& scope : key.scopes)
    scopes.emplace_back(scope);
  return {{"id", key.id},
          {"workspace", key.tenant.workspace},
          {"env", sdk::environment_name(key.tenant.environment)},
          {"scopes", std::move(scopes)},
          {"plan", key.plan},
          {"label", key.label},
          {"created_at", toolkit::format_rfc3339(key.created_at)},
          {"revoked_at", key.revoked_at ? sdk::json::value(toolkit::format_rfc3339(*key.revoked_at))
                                        : sdk::json::value(nullptr)},
          {"last_used_at", key.last_used_at
                               ? sdk::json::value(toolkit::format_rfc3339(*key.last_used_at))
                               : sdk::json::value(nullptr)}};
}

}  // namespace eventsvc::host
