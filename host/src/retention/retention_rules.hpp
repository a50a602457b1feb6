// What retention lets go, workspace and environment by workspace and environment. A tenant's data
// is read by its keys, each under its plan, so an event goes only once every plan of the tenant's
// keys (revoked ones too: the data was written under them) has let it go: kept for the longest of
// their retention_days, and a stream for the longest of their days for it. A tenant without keys,
// or with a key whose plan the config no longer defines, is left alone rather than guessed at.
#pragma once

#include <string>
#include <vector>

#include "config/host_config.hpp"
#include "eventsvc/sdk/auth.hpp"
#include "eventsvc/sdk/json.hpp"

namespace eventsvc::host {

struct RetentionRule {
  sdk::Tenant tenant;
  std::string stream;      // empty: every stream
  int days = 0;            // how long the rule keeps events
  sdk::Millis cutoff = 0;  // versions with a timestamp before it go
  // A stream's rule covers only what its tenant's rule keeps: the versions from this instant on.
  sdk::Millis from = 0;

  // The rule as the body of an erasure (docs/api.md#erasure): its `where` over history.
  sdk::json::object erasure_body() const;
  sdk::json::object to_json() const;
};

struct LeftAlone {
  sdk::Tenant tenant;
  std::string reason;
};

struct RetentionRules {
  std::vector<RetentionRule> rules;  // a tenant's own rule before its streams'
  std::vector<LeftAlone> left_alone;
};

RetentionRules retention_rules(const HostConfig& config, const std::vector<sdk::KeyInfo>& keys,
                               sdk::Millis now);

}  // namespace eventsvc::host
