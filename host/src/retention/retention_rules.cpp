#include "retention/retention_rules.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

using TenantKey = std::tuple<std::string, sdk::Environment>;

TenantKey key_of(const sdk::Tenant& tenant) {
  return {tenant.workspace, tenant.environment};
}

struct TenantPlans {
  sdk::Tenant tenant;
  std::set<std::string> plans;
  std::string unknown_plan;  // a plan the config does not define, when a key names one
};

}  // namespace

sdk::json::object RetentionRule::erasure_body() const {
  sdk::json::object timestamp{{"lt", toolkit::format_rfc3339(cutoff)}};
  sdk::json::object where;
  if (!stream.empty()) {
    timestamp["gte"] = toolkit::format_rfc3339(from);
    where["stream"] = stream;
  }
  where["timestamp"] = std::move(timestamp);
  return {{"where", std::move(where)}, {"source", "history"}};
}

sdk::json::object RetentionRule::to_json() const {
  sdk::json::object rule{{"workspace", tenant.workspace},
                         {"environment", sdk::environment_name(tenant.environment)},
                         {"stream", nullptr},
                         {"days", days},
                         {"before", toolkit::format_rfc3339(cutoff)}};
  if (!stream.empty()) rule["stream"] = stream;
  return rule;
}

RetentionRules retention_rules(const HostConfig& config, const std::vector<sdk::KeyInfo>& keys,
                               sdk::Millis now) {
  std::map<TenantKey, TenantPlans> tenants;
  for (const auto& key : keys) {
    auto& plans = tenants[key_of(key.tenant)];
    plans.tenant = key.tenant;
    if (config.plan(key.plan) == nullptr) {
      plans.unknown_plan = key.plan;
    } else {
      plans.plans.insert(key.plan);
    }
  }

  RetentionRules result;
  for (const auto& [key, plans] : tenants) {
    if (!plans.unknown_plan.empty()) {
      result.left_alone.push_back(
          {plans.tenant, "a key names the plan '" + plans.unknown_plan +
                             "', which the config does not define: its retention is unknown"});
      continue;
    }
    int days = 0;
    std::set<std::string, std::less<>> streams;
    for (const auto& name : plans.plans) {
      const Plan& plan = *config.plan(name);
      days = std::max(days, plan.retention_days);
      for (const auto& [stream, stream_days] : plan.stream_retention_days)
        streams.insert(stream);
    }
    const sdk::Millis cutoff = now - days_ms(days);
    result.rules.push_back({plans.tenant, {}, days, cutoff, 0});
    for (const auto& stream : streams) {
      int stream_days = 0;
      for (const auto& name : plans.plans)
        stream_days = std::max(stream_days, config.plan(name)->retention_days_of(stream));
      if (stream_days >= days) continue;  // another plan keeps it as long as the rest
      result.rules.push_back(
          {plans.tenant, stream, stream_days, now - days_ms(stream_days), cutoff});
    }
  }
  return result;
}

}  // namespace eventsvc::host
