// One pass of retention (retention_rules.hpp): for every rule, the versions it lets go are counted
// and, unless it is a dry run, erased through the storage's erasure (docs/api.md#erasure), so they
// leave every read at once and every file at the purge after, as a client's erasure does. Expired
// events are removed like erased ones, by the same code, and each removal is an erasure one can
// poll (its key_id "retention"). Retention erasures are not written to the erasure ledger: a
// restored backup's expired events go at its first sweep.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "config/host_config.hpp"
#include "logging/log_sink.hpp"
#include "modules/module_registry.hpp"
#include "retention/retention_rules.hpp"

namespace eventsvc::host {

inline constexpr std::string_view kRetentionKeyId = "retention";

struct SweptRule {
  RetentionRule rule;
  std::uint64_t versions = 0;  // versions the rule lets go
  std::string erasure_id;      // the erasure removing them, when one was made
  std::string error;           // why the rule could not be swept
};

struct RetentionSweep {
  bool dry_run = true;
  std::vector<SweptRule> rules;
  std::vector<LeftAlone> left_alone;

  std::uint64_t versions() const;
  sdk::json::object to_json() const;
};

// Rules are cut off at the start of the sweep period `now` falls in (retention.sweep_every). A rule
// the storage cannot count or erase (a plugin that cannot erase: 501) gets its `error`; the others
// are swept. `stopping`, when given, is asked between rules.
RetentionSweep sweep_retention(const HostConfig& config, const ModuleRegistry& modules,
                               LogSink& log, sdk::Millis now, bool dry_run,
                               const std::function<bool()>& stopping = {});

}  // namespace eventsvc::host
