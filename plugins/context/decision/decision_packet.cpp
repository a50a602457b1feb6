#include "decision_packet.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "eventsvc/sdk/digest.hpp"

namespace eventsvc::plugins::context {

namespace {

const std::string kContextIdPlaceholder = "ctx_" + std::string(32, '0');

json::array strings(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& value : values)
    out.emplace_back(value);
  return out;
}

json::object render(const Fact& fact) {
  return {{"subject", fact.subject},
          {"attribute", fact.attribute},
          {"value", fact.value},
          {"first_seen", sdk::format_rfc3339(fact.first_seen)},
          {"last_seen", sdk::format_rfc3339(fact.last_seen)},
          {"observations", fact.observations},
          {"event_ids", strings(fact.event_ids)}};
}

json::object render(const Transition& transition) {
  return {{"at", sdk::format_rfc3339(transition.at)},
          {"subject", transition.subject},
          {"attribute", transition.attribute},
          {"from", transition.from},
          {"to", transition.to},
          {"event_id", transition.event_id}};
}

json::object render(const Observation& observation) {
  return {{"value", observation.value},
          {"at", sdk::format_rfc3339(observation.at)},
          {"event_id", observation.event_id}};
}

json::object render(const Contradiction& contradiction) {
  return {
      {"subject", contradiction.subject},
      {"attribute", contradiction.attribute},
      {"observations", json::array{render(*contradiction.earlier), render(*contradiction.later)}},
      {"gap_ms", contradiction.later->at - contradiction.earlier->at}};
}

json::object render(const Missing& missing) {
  json::object out{{"subject", missing.subject}};
  if (!missing.attribute.empty()) out["attribute"] = missing.attribute;
  out["reason"] = missing.reason;
  if (missing.reason == "stale") out["last_seen"] = sdk::format_rfc3339(missing.last_seen);
  return out;
}

double rounded(double value, double scale) {
  return std::round(value * scale) / scale;
}

struct Readiness {
  std::string status;
  std::vector<std::string> reasons;
};

Readiness readiness_of(const Findings& findings, bool scan_complete, bool proof_complete) {
  Readiness readiness;
  if (findings.facts.empty()) readiness.reasons.emplace_back("no_facts");
  if (findings.contradictions_found > 0) readiness.reasons.emplace_back("contradictions");
  if (findings.stale_subjects > 0) readiness.reasons.emplace_back("stale_evidence");
  if (findings.never_observed > 0) readiness.reasons.emplace_back("missing_evidence");
  if (!scan_complete) readiness.reasons.emplace_back("scan_incomplete");
  if (!proof_complete) readiness.reasons.emplace_back("proof_incomplete");
  if (findings.facts.empty()) {
    readiness.status = "insufficient_evidence";
  } else if (findings.contradictions_found > 0) {
    readiness.status = "conflicting";
  } else if (findings.stale_subjects > 0) {
    readiness.status = "stale";
  } else if (!readiness.reasons.empty()) {
    readiness.status = "incomplete";
  } else {
    readiness.status = "ready";
  }
  return readiness;
}

// The records the packet's items rest on, in input order.
std::vector<std::size_t> cited_records(const Findings& findings) {
  std::set<std::size_t> records;
  for (const auto& fact : findings.facts)
    records.insert(fact.source_records.begin(), fact.source_records.end());
  for (const auto& transition : findings.timeline)
    records.insert(transition.record);
  for (const auto& contradiction : findings.contradictions) {
    records.insert(contradiction.earlier->record);
    records.insert(contradiction.later->record);
  }
  return {records.begin(), records.end()};
}

}  // namespace

double confidence_of(const Evidence& evidence, const Findings& findings, bool scan_complete,
                     bool proof_complete) {
  if (findings.facts.empty()) return 0;
  const double verified_share = static_cast<double>(evidence.admitted) /
                                static_cast<double>(evidence.admitted + evidence.unverified);
  const double agreement = 1.0 / (1.0 + static_cast<double>(findings.contradictions_found));
  const double coverage = static_cast<double>(findings.observed_pairs) /
                          static_cast<double>(findings.observed_pairs + findings.never_observed);
  const double freshness = evidence.subjects.empty()
                               ? 1.0
                               : 1.0 - 0.5 * static_cast<double>(findings.stale_subjects) /
                                           static_cast<double>(evidence.subjects.size());
  const double completeness = (scan_complete ? 1.0 : 0.5) * (proof_complete ? 1.0 : 0.8);
  return rounded(verified_share * agreement * coverage * freshness * completeness, 1000);
}

sdk::ContextOutput assemble_packet(const sdk::ContextInput& input, Evidence& evidence,
                                   Findings& findings) {
  const auto& request = input.request;
  std::size_t source_tokens = 0;
  for (const auto* record : input.records)
    source_tokens += sdk::estimate_tokens(sdk::record_to_json(*record));
  std::vector<std::size_t> documents;
  if (request.include_documents) documents = cited_records(findings);

  auto build = [&]() {
    const bool proof_complete = input.scan_complete && evidence.exclusions.over_budget == 0;
    const Readiness readiness = readiness_of(findings, input.scan_complete, proof_complete);
    json::array facts;
    json::array timeline;
    json::array contradictions;
    json::array missing;
    std::set<std::string> proof_ids;
    for (const auto& fact : findings.facts) {
      facts.emplace_back(render(fact));
      proof_ids.insert(fact.event_ids.begin(), fact.event_ids.end());
    }
    for (const auto& transition : findings.timeline) {
      timeline.emplace_back(render(transition));
      proof_ids.insert(transition.event_id);
    }
    for (const auto& contradiction : findings.contradictions) {
      contradictions.emplace_back(render(contradiction));
      proof_ids.insert(contradiction.earlier->event_id);
      proof_ids.insert(contradiction.later->event_id);
    }
    for (const auto& entry : findings.missing)
      missing.emplace_back(render(entry));
    const Exclusions& x = evidence.exclusions;
    json::object packet;
    packet["schema_version"] = sdk::kContextSchemaVersion;
    packet["mode"] = "decision";
    packet["context_id"] = kContextIdPlaceholder;
    packet["decision_readiness"] =
        json::object{{"status", readiness.status}, {"reasons", strings(readiness.reasons)}};
    packet["facts"] = std::move(facts);
    packet["timeline"] = std::move(timeline);
    packet["contradictions"] = std::move(contradictions);
    packet["missing_evidence"] = std::move(missing);
    packet["exclusions"] =
        json::object{{"unverified", x.unverified}, {"out_of_scope", x.out_of_scope},
                     {"collapsed", x.collapsed},   {"excluded_by_request", x.excluded_by_request},
                     {"over_limit", x.over_limit}, {"over_budget", x.over_budget}};
    packet["compaction"] = json::object{{"source_records", evidence.admitted + evidence.unverified},
                                        {"source_tokens", source_tokens},
                                        {"packed_tokens", 0},
                                        {"ratio", 0}};
    packet["confidence"] = confidence_of(evidence, findings, input.scan_complete, proof_complete);
    packet["proof"] = json::object{{"complete", proof_complete},
                                   {"event_ids", strings({proof_ids.begin(), proof_ids.end()})}};
    if (request.include_documents) {
      json::array records;
      for (const auto index : documents)
        records.emplace_back(sdk::record_to_json(*input.records[index]));
      packet["documents"] = std::move(records);
    }
    // packed_tokens counts the packet it is part of: settle it (and the ratio) together.
    auto& compaction = packet["compaction"].as_object();
    for (int round = 0; round < 8; ++round) {
      const std::size_t tokens = sdk::estimate_tokens(packet);
      if (compaction["packed_tokens"] == tokens) break;
      compaction["packed_tokens"] = tokens;
      compaction["ratio"] =
          source_tokens == 0
              ? 0.0
              : rounded(static_cast<double>(tokens) / static_cast<double>(source_tokens), 1e4);
    }
    return packet;
  };

  // Trim to the budget: documents first, then the oldest transitions, the oldest
  // contradictions, missing evidence, and finally the least recent facts.
  json::object packet = build();
  while (true) {
    const std::size_t tokens = packet.at("compaction").at("packed_tokens").to_number<std::size_t>();
    if (tokens <= request.token_budget) break;
    // Item sizes leave out what an item also adds elsewhere (its ids in proof), so aim a little
    // short and measure again rather than drop too much.
    const std::size_t target_bytes = (tokens - request.token_budget) * 4 * 9 / 10;
    std::size_t freed = 0;
    std::size_t dropped = 0;
    auto drop_until = [&](auto& items, auto size_of, bool from_front) {
      while (!items.empty() && (dropped == 0 || freed < target_bytes)) {
        auto it = from_front ? items.begin() : std::prev(items.end());
        freed += size_of(*it) + 1;
        items.erase(it);
        ++dropped;
      }
    };
    auto rendered_size = [](const auto& item) { return sdk::to_json(render(item)).size(); };
    if (!documents.empty()) {
      drop_until(
          documents,
          [&](std::size_t index) {
            return sdk::to_json(sdk::record_to_json(*input.records[index])).size();
          },
          false);
    } else if (!findings.timeline.empty()) {
      drop_until(findings.timeline, rendered_size, true);
    } else if (!findings.contradictions.empty()) {
      drop_until(findings.contradictions, rendered_size, false);
    } else if (!findings.missing.empty()) {
      drop_until(findings.missing, rendered_size, false);
    } else if (!findings.facts.empty()) {
      drop_until(findings.facts, rendered_size, false);
    } else {
      break;  // nothing left to drop: the empty packet is far below the smallest budget
    }
    evidence.exclusions.over_budget += dropped;
    packet = build();
  }

  // context_id: over the canonical packet without itself (and without audit_trace_id).
  json::object identity = packet;
  identity.erase("context_id");
  packet["context_id"] = "ctx_" + sdk::sha256_hex(sdk::canonical_json(identity)).substr(0, 32);

  sdk::ContextOutput output;
  output.context = std::move(packet);
  for (const auto& fact : findings.facts) {
    for (const auto record : fact.source_records)
      output.citations.push_back({record, "fact_source"});
    output.citations.push_back({fact.latest_record, "latest_state"});
  }
  for (const auto& transition : findings.timeline)
    output.citations.push_back({transition.record, "transition"});
  for (const auto& contradiction : findings.contradictions) {
    output.citations.push_back({contradiction.earlier->record, "contradiction"});
    output.citations.push_back({contradiction.later->record, "contradiction"});
  }
  return output;
}

}  // namespace eventsvc::plugins::context
