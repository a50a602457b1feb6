#include "retention/retention_sweep.hpp"

#include "api/erasure_endpoint.hpp"
#include "eventsvc/sdk/aggregate_pushdown.hpp"
#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace {

std::string tenant_name(const sdk::Tenant& tenant) {
  return tenant.workspace + "/" + std::string(sdk::environment_name(tenant.environment));
}

// One rule's erasure: the same sweep of the same rule (a retry after a crash) is one erasure.
sdk::ErasureRequest erasure_of(const RetentionRule& rule, sdk::Millis now) {
  sdk::ErasureRequest request = erasure_request_of(rule.erasure_body(), rule.tenant, now);
  request.idempotency_key = "retention " + rule.stream + " " + std::to_string(rule.cutoff);
  request.erasure_id = new_erasure_id();
  request.key_id = std::string(kRetentionKeyId);
  return request;
}

}  // namespace

std::uint64_t RetentionSweep::versions() const {
  std::uint64_t total = 0;
  for (const auto& swept : rules)
    total += swept.versions;
  return total;
}

sdk::json::object RetentionSweep::to_json() const {
  sdk::json::array listed;
  for (const auto& swept : rules) {
    auto rule = swept.rule.to_json();
    rule["versions"] = swept.versions;
    if (!swept.erasure_id.empty()) rule["erasure_id"] = swept.erasure_id;
    if (!swept.error.empty()) rule["error"] = swept.error;
    listed.push_back(std::move(rule));
  }
  sdk::json::array alone;
  for (const auto& [tenant, reason] : left_alone) {
    alone.push_back({{"workspace", tenant.workspace},
                     {"environment", sdk::environment_name(tenant.environment)},
                     {"reason", reason}});
  }
  return {{"dry_run", dry_run},
          {"versions", versions()},
          {"rules", std::move(listed)},
          {"left_alone", std::move(alone)}};
}

RetentionSweep sweep_retention(const HostConfig& config, const ModuleRegistry& modules,
                               LogSink& log, sdk::Millis now, bool dry_run,
                               const std::function<bool()>& stopping) {
  const auto keys = modules.auth().call([](sdk::AuthProvider& auth) { return auth.list_keys(); });
  // Cutoffs move once per sweep period: the servers of a cluster sweeping in the same period
  // make the same erasures, under the same idempotency keys, so the first is the only one.
  const sdk::Millis period = config.retention.sweep_every;
  RetentionRules rules = retention_rules(config, keys, now - now % period);
  RetentionSweep sweep;
  sweep.dry_run = dry_run;
  sweep.left_alone = std::move(rules.left_alone);
  const auto& storage = modules.storage();
  const sdk::ErasureRenderer render = [&](const sdk::ErasureStatus& status) {
    return erasure_receipt_body(config, status);
  };
  for (auto& rule : rules.rules) {
    if (stopping && stopping()) break;
    SweptRule& swept = sweep.rules.emplace_back();
    swept.rule = std::move(rule);
    // A rule that fails is reported and the others still swept.
    try {
      sdk::ErasureRequest erasure = erasure_of(swept.rule, now);
      sdk::AggregateRequest count;
      count.source = sdk::Source::history;
      count.where = erasure.where;
      swept.versions = storage.call(
          [&](sdk::Storage& s) { return s.aggregate(swept.rule.tenant, count).total.count; });
      if (dry_run || swept.versions == 0) continue;
      const auto accepted = storage.call([&](sdk::Storage& s) { return s.erase(erasure, render); });
      // A replay (another server's sweep of this period) names the erasure it made.
      swept.erasure_id =
          accepted.replayed
              ? std::string(sdk::parse_json(accepted.body).as_object().at("erasure_id").as_string())
              : erasure.erasure_id;
      log.log(sdk::LogLevel::info, "host",
              "retention: erasing the versions older than " + std::to_string(swept.rule.days) +
                  " days of " + tenant_name(swept.rule.tenant) +
                  (swept.rule.stream.empty() ? "" : ", stream " + swept.rule.stream),
              {{"erasure_id", swept.erasure_id}, {"versions", swept.versions}});
    } catch (const std::exception& error) {
      swept.error = error.what();
      log.log(sdk::LogLevel::warning, "host",
              "retention: sweeping " + tenant_name(swept.rule.tenant) + " failed: " + swept.error);
    }
  }
  for (const auto& [tenant, reason] : sweep.left_alone) {
    log.log(sdk::LogLevel::warning, "host",
            "retention: leaving " + tenant_name(tenant) + " alone: " + reason);
  }
  return sweep;
}

}  // namespace eventsvc::host
