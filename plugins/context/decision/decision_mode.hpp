// `decision` Context Pack mode (API-SPEC 2.8, 4.5 rule 3, DESIGN §6): a compact, deterministic
// packet of admitted facts, state transitions, contradictions, missing evidence, decision
// readiness, compaction metrics, confidence and proof references. docs/context-pack.md describes
// every member.
#pragma once

#include "eventsvc/sdk/context_mode.hpp"

namespace eventsvc::plugins::context {

class DecisionMode final : public sdk::ContextMode {
 public:
  static constexpr std::string_view kName = "decision";
  static constexpr sdk::PluginInfo kInfo{"1.0.0",
                                         "Verified facts, transitions, contradictions, missing "
                                         "evidence and readiness within a token budget"};
  explicit DecisionMode(const sdk::PluginContext&) {}

  std::string_view mode() const override { return kName; }
  sdk::ContextOutput build(const sdk::ContextInput& input) const override;
  // Every match is read, field by field.
  bool reads_every_match() const override { return true; }
};

}  // namespace eventsvc::plugins::context
