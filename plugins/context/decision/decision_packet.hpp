// Assembles the decision packet from the findings: readiness, confidence, exclusions,
// compaction, proof and context_id, trimmed to the token budget (docs/context-pack.md).
#pragma once

#include "evidence.hpp"
#include "findings.hpp"

namespace eventsvc::plugins::context {

sdk::ContextOutput assemble_packet(const sdk::ContextInput& input, Evidence& evidence,
                                   Findings& findings);

// confidence = verified share × agreement × coverage × freshness × completeness × kept (each in
// [0, 1]; kept: `facts_kept` of the facts found), 0 without facts, rounded to 3 decimals.
double confidence_of(const Evidence& evidence, const Findings& findings, std::size_t facts_kept,
                     bool scan_complete, bool proof_complete);

// Sets compaction.packed_tokens to the tokens of the packet that contains it (sdk's estimate:
// ceil(bytes / 4)) and compaction.ratio to packed ÷ `source_tokens`. The ratio's printed width can
// shrink as the count grows (1.075, then 1.08), so counting again until the count stands still
// can cycle between two wrong answers; instead the packet takes the smallest count whose packet,
// with the ratio at 4 decimals, is exactly that many tokens; when none is, the same at 3, 5, 2, 6,
// 1 or 0 decimals (at 0 decimals both widths only grow with the count, so some count fits).
void settle_packed_tokens(json::object& packet, std::size_t source_tokens);

}  // namespace eventsvc::plugins::context
