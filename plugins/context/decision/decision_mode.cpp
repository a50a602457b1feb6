#include "decision_mode.hpp"

#include "decision_packet.hpp"
#include "evidence.hpp"
#include "findings.hpp"

namespace eventsvc::plugins::context {

sdk::Manifest DecisionMode::manifest() {
  return {"decision",
          sdk::PluginKind::context_mode,
          "1.0.0",
          "Verified facts, transitions, contradictions, missing evidence and readiness within a "
          "token budget",
          {}};
}

sdk::ContextOutput DecisionMode::build(const sdk::ContextInput& input) const {
  Evidence evidence = gather_evidence(input);
  Findings findings = find(evidence, input.request, input.now);
  return assemble_packet(input, evidence, findings);
}

}  // namespace eventsvc::plugins::context
