#include "decision_mode.hpp"

#include "decision_packet.hpp"
#include "evidence.hpp"
#include "findings.hpp"

namespace eventsvc::plugins::context {

sdk::ContextOutput DecisionMode::build(const sdk::ContextInput& input) const {
  Evidence evidence = gather_evidence(input);
  Findings findings = find(evidence, input.request, input.now);
  return assemble_packet(input, evidence, findings);
}

}  // namespace eventsvc::plugins::context
