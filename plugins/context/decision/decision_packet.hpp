// Assembles the decision packet from the findings: readiness, confidence, exclusions,
// compaction, proof and context_id, trimmed to the token budget (docs/context-pack.md).
#pragma once

#include "evidence.hpp"
#include "findings.hpp"

namespace eventsvc::plugins::context {

sdk::ContextOutput assemble_packet(const sdk::ContextInput& input, Evidence& evidence,
                                   Findings& findings);

// confidence = verified share × agreement × coverage × freshness × completeness (each in [0, 1]),
// 0 without facts, rounded to 3 decimals.
double confidence_of(const Evidence& evidence, const Findings& findings, bool scan_complete,
                     bool proof_complete);

}  // namespace eventsvc::plugins::context
