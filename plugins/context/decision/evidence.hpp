// Evidence for a decision packet: the observations of in-scope attributes in admitted (verified)
// records, and what was left out on the way.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "eventsvc/sdk/context_mode.hpp"

namespace eventsvc::plugins::context {

namespace json = sdk::json;

// One attribute value seen in one record.
struct Observation {
  std::string subject;
  std::string attribute;
  json::value value;
  std::string value_key;  // canonical JSON: what "the same value" means
  sdk::Millis at = 0;
  std::string event_id;
  std::size_t record = 0;  // index into ContextInput::records
};

struct Exclusions {
  std::uint64_t unverified = 0;           // records whose write is not verified
  std::uint64_t out_of_scope = 0;         // values of attributes outside the scope
  std::uint64_t collapsed = 0;            // repeated observations folded into one
  std::uint64_t excluded_by_request = 0;  // records removed by excluded_document_ids
  std::uint64_t over_limit = 0;           // items beyond max_facts / max_timeline / ...
  std::uint64_t over_budget = 0;          // items dropped to fit token_budget
};

struct Evidence {
  // Sorted by (subject, attribute, at, event_id).
  std::vector<Observation> observations;
  std::vector<std::string> subjects;          // of admitted records, sorted
  std::vector<std::string> named_attributes;  // the explicit scope; empty: every scalar leaf
  std::size_t admitted = 0;
  std::size_t unverified = 0;
  Exclusions exclusions;
};

// Deepest leaf considered when the request names no attribute: payload.a.b.c.d.
inline constexpr std::size_t kMaxLeafDepth = 4;

Evidence gather_evidence(const sdk::ContextInput& input);

// The subject of a record: its group_by values (joined by " / "), else its id.
std::string subject_of(const sdk::Record& record, const std::vector<sdk::FieldPath>& fields);

}  // namespace eventsvc::plugins::context
