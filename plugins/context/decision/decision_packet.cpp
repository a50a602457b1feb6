#include "decision_packet.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>

#include "budget_fit.hpp"
#include "decision_mode.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/toolkit/context_pack.hpp"
#include "eventsvc/toolkit/digest.hpp"
#include "eventsvc/toolkit/record_json.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::plugins::context {

namespace {

const std::string kContextIdPlaceholder = "ctx_" + std::string(32, '0');

template <class Strings>
json::array strings(const Strings& values) {
  json::array out;
  out.reserve(values.size());
  for (const auto& value : values)
    out.emplace_back(value);
  return out;
}

// A fact lists this many of its ids: the first and the last half of them. Listing every id would
// make a pack over a long history grow with the budget by ids alone (the rest are the observations
// of the value between first_seen and last_seen, which a query finds).
constexpr std::size_t kListedIds = 4;

std::vector<std::string_view> listed_ids(const std::vector<std::string_view>& ids) {
  if (ids.size() <= kListedIds) return ids;
  std::vector<std::string_view> listed(ids.begin(), ids.begin() + kListedIds / 2);
  listed.insert(listed.end(), ids.end() - kListedIds / 2, ids.end());
  return listed;
}

json::object render(const Fact& fact) {
  json::object out{{"subject", fact.subject},
                   {"attribute", fact.attribute},
                   {"value", *fact.value},
                   {"first_seen", toolkit::format_rfc3339(fact.first_seen)},
                   {"value_since", toolkit::format_rfc3339(fact.value_since)},
                   {"last_seen", toolkit::format_rfc3339(fact.last_seen)},
                   {"observations", fact.observations},
                   {"event_count", fact.event_ids.size()},
                   {"event_ids", strings(listed_ids(fact.event_ids))}};
  if (fact.range) {
    out["range"] = json::object{
        {"min", fact.range->min}, {"max", fact.range->max}, {"readings", fact.range->readings}};
  }
  if (!fact.unit.empty()) out["unit"] = fact.unit;
  return out;
}

json::object render_transition(const Change& transition, const Evidence& evidence) {
  const Observation& to = *transition.after;
  return {{"at", toolkit::format_rfc3339(to.at)},
          {"subject", evidence.subject_of(to)},
          {"attribute", evidence.attribute_of(to)},
          {"from", evidence.value_of(*transition.before)},
          {"to", evidence.value_of(to)},
          {"from_event_id", evidence.event_id_of(*transition.before)},
          {"event_id", evidence.event_id_of(to)}};
}

json::object render(const Observation& observation, const Evidence& evidence) {
  json::object out{{"value", evidence.value_of(observation)},
                   {"at", toolkit::format_rfc3339(observation.at)},
                   {"event_id", evidence.event_id_of(observation)}};
  if (observation.unit != 0) out["unit"] = evidence.unit_of(observation);
  return out;
}

json::object render_contradiction(const Change& contradiction, const Evidence& evidence) {
  const Observation& later = *contradiction.after;
  return {{"subject", evidence.subject_of(later)},
          {"attribute", evidence.attribute_of(later)},
          {"observations",
           json::array{render(*contradiction.before, evidence), render(later, evidence)}},
          {"gap_ms", later.at - contradiction.before->at}};
}

json::object render(const Missing& missing) {
  json::object out{{"subject", missing.subject}};
  if (!missing.attribute.empty()) out["attribute"] = missing.attribute;
  out["reason"] = missing.reason;
  if (missing.reason == "stale") out["last_seen"] = toolkit::format_rfc3339(missing.last_seen);
  return out;
}

double rounded(double value, double scale) {
  return std::round(value * scale) / scale;
}

// Above this share of unverified matched records, readiness says so.
constexpr double kUnverifiedShareLimit = 0.2;

struct Readiness {
  std::string status;
  std::vector<std::string> reasons;
};

struct ReadinessInputs {
  bool facts_found = false;
  bool facts_over_budget = false;
  bool unverified_evidence = false;
  bool scan_complete = true;
  bool proof_complete = true;
};

Readiness readiness_of(const Findings& findings, const ReadinessInputs& in) {
  Readiness readiness;
  if (!in.facts_found) readiness.reasons.emplace_back("no_facts");
  if (in.facts_over_budget) readiness.reasons.emplace_back("facts_over_budget");
  if (findings.contradictions_found > 0) readiness.reasons.emplace_back("contradictions");
  if (findings.stale_subjects > 0) readiness.reasons.emplace_back("stale_evidence");
  if (findings.never_observed > 0) readiness.reasons.emplace_back("missing_evidence");
  if (in.unverified_evidence) readiness.reasons.emplace_back("unverified_evidence");
  if (!in.scan_complete) readiness.reasons.emplace_back("scan_incomplete");
  if (!in.proof_complete) readiness.reasons.emplace_back("proof_incomplete");
  if (!in.facts_found) {
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

// The packet's items, and which of them the budget leaves out. Candidates for dropping are
// numbered in the documented order: documents from the last, the oldest transitions, the oldest
// contradictions, missing evidence from the last, the least recent facts.
class PacketBuilder {
 public:
  PacketBuilder(const sdk::ContextInput& input, const Evidence& evidence, const Findings& findings)
      : input_(input), evidence_(evidence), findings_(findings) {
    if (input.request.include_documents) documents_ = input.load(cited_records());
    freshness_ = toolkit::freshness_of_newest(evidence.newest, input.request.expected_freshness_ms,
                                              input.now);
  }

  std::size_t candidates() const {
    return documents_.size() + findings_.timeline.size() + findings_.contradictions.size() +
           findings_.missing.size() + findings_.facts.size();
  }
  std::size_t documents() const { return documents_.size(); }

  struct Kept {
    std::vector<bool> documents, timeline, contradictions, missing, facts;
  };

  // The packet leaving out `dropped` (budget_fit.hpp). `budget_needed`: the budget that would
  // keep every fact, when some were left out.
  json::object build(const std::vector<bool>& dropped,
                     std::optional<std::size_t> budget_needed) const {
    const Kept kept = kept_of(dropped);
    Items items = items_of(kept);
    // Every kept item cites its sources (a fact of more than four events by its first and last
    // ids and its count); only a cut scan leaves sources out.
    const bool proof_complete = evidence_.scan_complete;
    const std::size_t kept_facts = items.facts.size();
    const std::size_t facts_dropped = findings_.facts.size() - kept_facts;
    const Readiness readiness = readiness_with(facts_dropped, proof_complete);
    Exclusions x = evidence_.exclusions;
    x.over_budget = static_cast<std::uint64_t>(std::count(dropped.begin(), dropped.end(), true));

    json::object packet;
    packet["schema_version"] = sdk::kContextSchemaVersion;
    packet["mode"] = DecisionMode::kName;
    packet["context_id"] = kContextIdPlaceholder;
    json::object readiness_json{{"status", readiness.status},
                                {"reasons", strings(readiness.reasons)}};
    if (facts_dropped > 0 && budget_needed) readiness_json["budget_needed"] = *budget_needed;
    packet["decision_readiness"] = std::move(readiness_json);
    packet["facts"] = std::move(items.facts);
    packet["timeline"] = std::move(items.timeline);
    packet["contradictions"] = std::move(items.contradictions);
    packet["missing_evidence"] = std::move(items.missing);
    packet["freshness"] = freshness_;
    packet["exclusions"] =
        json::object{{"unverified", x.unverified}, {"out_of_scope", x.out_of_scope},
                     {"collapsed", x.collapsed},   {"excluded_by_request", x.excluded_by_request},
                     {"over_limit", x.over_limit}, {"over_budget", x.over_budget}};
    packet["compaction"] =
        json::object{{"source_records", evidence_.admitted + evidence_.unverified},
                     {"source_tokens", evidence_.source_tokens},
                     {"packed_tokens", 0},
                     {"ratio", 0}};
    packet["confidence"] =
        confidence_of(evidence_, findings_, kept_facts, evidence_.scan_complete, proof_complete);
    packet["proof"] = json::object{{"complete", proof_complete},
                                   {"event_count", items.proof_ids.size()},
                                   {"event_ids", strings(items.listed)}};
    if (input_.request.include_documents) {
      json::array records;
      for (std::size_t i = 0; i < documents_.size(); ++i) {
        if (kept.documents[i]) records.emplace_back(toolkit::record_to_json(documents_[i]));
      }
      packet["documents"] = std::move(records);
    }
    settle_compaction(packet);
    return packet;
  }

  // The kept items rendered, with the ids they rest on and the ids they list.
  struct Items {
    json::array facts, timeline, contradictions, missing;
    std::set<std::string_view> proof_ids;  // every id the kept items rest on
    std::set<std::string_view> listed;     // the ids the kept items list
  };

  Items items_of(const Kept& kept) const {
    Items items;
    for (std::size_t i = 0; i < findings_.facts.size(); ++i) {
      if (!kept.facts[i]) continue;
      const Fact& fact = findings_.facts[i];
      items.facts.emplace_back(render(fact));
      items.proof_ids.insert(fact.event_ids.begin(), fact.event_ids.end());
      const auto ids = listed_ids(fact.event_ids);
      items.listed.insert(ids.begin(), ids.end());
    }
    // A transition and a contradiction each cite both of their events.
    auto add_changes = [&](const std::vector<Change>& changes,
                           const std::vector<bool>& kept_changes, json::array& out,
                           auto render_change) {
      for (std::size_t i = 0; i < changes.size(); ++i) {
        if (!kept_changes[i]) continue;
        out.emplace_back(render_change(changes[i], evidence_));
        for (const Observation* cited : {changes[i].before, changes[i].after}) {
          items.proof_ids.insert(evidence_.event_id_of(*cited));
          items.listed.insert(evidence_.event_id_of(*cited));
        }
      }
    };
    add_changes(findings_.timeline, kept.timeline, items.timeline, render_transition);
    add_changes(findings_.contradictions, kept.contradictions, items.contradictions,
                render_contradiction);
    for (std::size_t i = 0; i < findings_.missing.size(); ++i) {
      if (kept.missing[i]) items.missing.emplace_back(render(findings_.missing[i]));
    }
    return items;
  }

  Readiness readiness_with(std::size_t facts_dropped, bool proof_complete) const {
    const std::size_t matched = evidence_.admitted + evidence_.unverified;
    ReadinessInputs inputs;
    inputs.facts_found = !findings_.facts.empty();
    inputs.facts_over_budget = facts_dropped > 0;
    inputs.unverified_evidence =
        matched > 0 && static_cast<double>(evidence_.unverified) >
                           kUnverifiedShareLimit * static_cast<double>(matched);
    inputs.scan_complete = evidence_.scan_complete;
    inputs.proof_complete = proof_complete;
    return readiness_of(findings_, inputs);
  }

  static std::size_t tokens_of(const json::object& packet) {
    return packet.at("compaction").at("packed_tokens").to_number<std::size_t>();
  }

  // Candidate numbers to items: each kind in its dropping order.
  Kept kept_of(const std::vector<bool>& dropped) const {
    Kept kept{std::vector<bool>(documents_.size(), true),
              std::vector<bool>(findings_.timeline.size(), true),
              std::vector<bool>(findings_.contradictions.size(), true),
              std::vector<bool>(findings_.missing.size(), true),
              std::vector<bool>(findings_.facts.size(), true)};
    std::size_t candidate = 0;
    // from_end: the first candidate of the kind is its last item.
    auto assign = [&](std::vector<bool>& items, bool from_end) {
      for (std::size_t i = 0; i < items.size(); ++i, ++candidate) {
        if (dropped[candidate]) items[from_end ? items.size() - 1 - i : i] = false;
      }
    };
    assign(kept.documents, true);
    assign(kept.timeline, false);       // oldest first
    assign(kept.contradictions, true);  // held newest first
    assign(kept.missing, true);
    assign(kept.facts, true);  // held most recent first
    return kept;
  }

  // Facts are the last candidates.
  bool drops_a_fact(const std::vector<bool>& dropped) const {
    return std::any_of(dropped.end() - static_cast<std::ptrdiff_t>(findings_.facts.size()),
                       dropped.end(), [](bool is_dropped) { return is_dropped; });
  }

  // Every candidate dropped but the facts.
  std::vector<bool> only_facts() const {
    std::vector<bool> dropped(candidates(), true);
    std::fill(dropped.end() - static_cast<std::ptrdiff_t>(findings_.facts.size()), dropped.end(),
              false);
    return dropped;
  }

 private:
  // The records the packet's items rest on, newest first (then by id): an order of their own, as
  // cells come in none.
  std::vector<sdk::RecordKey> cited_records() const {
    std::set<std::size_t> records;
    for (const auto& fact : findings_.facts)
      records.insert(fact.source_records.begin(), fact.source_records.end());
    for (const auto& transition : findings_.timeline) {
      records.insert(transition.before->record);
      records.insert(transition.after->record);
    }
    for (const auto& contradiction : findings_.contradictions) {
      records.insert(contradiction.before->record);
      records.insert(contradiction.after->record);
    }
    std::vector<sdk::RecordKey> keys;
    keys.reserve(records.size());
    for (const auto row : records)
      keys.push_back({std::string(evidence_.id_of(row)), evidence_.timestamps[row]});
    std::sort(keys.begin(), keys.end(), [](const sdk::RecordKey& a, const sdk::RecordKey& b) {
      if (a.timestamp != b.timestamp) return a.timestamp > b.timestamp;
      return a.id < b.id;
    });
    return keys;
  }

  void settle_compaction(json::object& packet) const {
    settle_packed_tokens(packet, evidence_.source_tokens);
  }

  const sdk::ContextInput& input_;
  const Evidence& evidence_;
  const Findings& findings_;
  std::vector<sdk::Record> documents_;
  json::object freshness_;  // of every record the pack considered
};

}  // namespace

void settle_packed_tokens(json::object& packet, std::size_t source_tokens) {
  auto& compaction = packet["compaction"].as_object();
  const auto ratio_at = [&](std::size_t tokens, int decimals) {
    return source_tokens == 0
               ? 0.0
               : rounded(static_cast<double>(tokens) / static_cast<double>(source_tokens),
                         std::pow(10.0, decimals));
  };
  // The packet's bytes with both members one character wide; each member's own width is added.
  compaction["packed_tokens"] = 0;
  compaction["ratio"] = 0;
  const std::size_t base = sdk::json_size(packet) - 2;
  // Every count a packet of these bytes can have: both members one character wide, or as wide
  // as a 20-digit count and a 24-character ratio.
  const std::size_t lowest = toolkit::estimate_tokens_of_json_text(base + 2);
  const std::size_t highest = toolkit::estimate_tokens_of_json_text(base + 20 + 24);
  static constexpr int kDecimals[] = {4, 3, 5, 2, 6, 1, 0};
  for (const int decimals : kDecimals) {
    for (std::size_t tokens = lowest; tokens <= highest; ++tokens) {
      const double ratio = ratio_at(tokens, decimals);
      const std::size_t bytes =
          base + sdk::json_size(json::value(tokens)) + sdk::json_size(json::value(ratio));
      if (toolkit::estimate_tokens_of_json_text(bytes) == tokens) {
        compaction["packed_tokens"] = tokens;
        compaction["ratio"] = ratio;
        return;
      }
    }
  }
  // At 0 decimals both widths only grow with the count, by at most two bytes a step, so some
  // count in the range counts itself.
  throw sdk::Error::internal("no token count counts the pack that holds it");
}

double confidence_of(const Evidence& evidence, const Findings& findings, std::size_t facts_kept,
                     bool scan_complete, bool proof_complete) {
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
  const double kept = static_cast<double>(facts_kept) / static_cast<double>(findings.facts.size());
  return rounded(verified_share * agreement * coverage * freshness * completeness * kept, 1000);
}

sdk::ContextOutput assemble_packet(const sdk::ContextInput& input, Evidence& evidence,
                                   Findings& findings) {
  const PacketBuilder builder(input, evidence, findings);
  const std::size_t budget = input.request.token_budget;
  // What an agent should ask for to get every fact, should some not fit: the packet of the facts
  // alone. Packets that leave facts out say so, and are measured saying so; it is worked
  // out once, the first time one does (a pack that keeps every fact never needs it).
  std::optional<std::size_t> needed;
  const auto budget_needed = [&](const std::vector<bool>& dropped) -> std::optional<std::size_t> {
    if (!builder.drops_a_fact(dropped)) return std::nullopt;
    if (!needed) {
      needed = PacketBuilder::tokens_of(builder.build(builder.only_facts(), std::nullopt));
    }
    return needed;
  };
  const BudgetChoice choice = fit_to_budget(
      builder.candidates(), budget, builder.documents(), [&](const std::vector<bool>& dropped) {
        return PacketBuilder::tokens_of(builder.build(dropped, budget_needed(dropped)));
      });
  json::object packet = builder.build(choice.dropped, budget_needed(choice.dropped));

  // context_id: over the canonical packet without itself (and without audit_trace_id).
  json::object identity = packet;
  identity.erase("context_id");
  packet["context_id"] = "ctx_" + toolkit::sha256_hex(sdk::canonical_json(identity)).substr(0, 32);

  // Citations: the records of the items the packet kept.
  sdk::ContextOutput output;
  const auto kept = builder.kept_of(choice.dropped);
  for (std::size_t i = 0; i < findings.facts.size(); ++i) {
    if (!kept.facts[i]) continue;
    for (const auto record : findings.facts[i].source_records)
      output.citations.push_back({record, "fact_source"});
    output.citations.push_back({findings.facts[i].latest_record, "latest_state"});
  }
  // A transition rests on both of its events: the value replaced and the value that replaced it.
  for (std::size_t i = 0; i < findings.timeline.size(); ++i) {
    if (!kept.timeline[i]) continue;
    output.citations.push_back({findings.timeline[i].before->record, "transition"});
    output.citations.push_back({findings.timeline[i].after->record, "transition"});
  }
  for (std::size_t i = 0; i < findings.contradictions.size(); ++i) {
    if (!kept.contradictions[i]) continue;
    output.citations.push_back({findings.contradictions[i].before->record, "contradiction"});
    output.citations.push_back({findings.contradictions[i].after->record, "contradiction"});
  }
  // A record cited twice in one role (the event between two transitions) is named once.
  std::sort(output.citations.begin(), output.citations.end(), [](const auto& a, const auto& b) {
    return std::tie(a.record, a.role) < std::tie(b.record, b.role);
  });
  output.citations.erase(std::unique(output.citations.begin(), output.citations.end(),
                                     [](const auto& a, const auto& b) {
                                       return a.record == b.record && a.role == b.role;
                                     }),
                         output.citations.end());
  output.context = std::move(packet);
  return output;
}

}  // namespace eventsvc::plugins::context
