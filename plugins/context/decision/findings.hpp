// What the evidence says (DESIGN §6): facts (the latest value per subject and attribute, repeated
// observations collapsed), the timeline of value changes, contradictions (different values from
// different events within contradiction_window_ms) and missing evidence.
//
// A measurement (an attribute whose every observation is a number) changes with every reading:
// its changes are neither transitions nor contradictions, its fact carries their range, and only
// two events reading different values at the same instant contradict each other. A reading may
// name its unit (evidence.hpp): the fact carries the latest one, its range spans the readings in
// that unit, and readings in another unit are a contradiction, not part of the range.
//
// Names, values and event ids are views into the Evidence, which outlives the Findings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "evidence.hpp"

namespace eventsvc::plugins::context {

// Every reading of a numeric attribute: what the latest value alone does not say.
struct Range {
  json::value min;
  json::value max;
  std::size_t readings = 0;
};

struct Fact {
  std::string_view subject;
  std::string_view attribute;
  const json::value* value = nullptr;
  sdk::Millis first_seen = 0;
  // Start of the current unbroken run of the value: after the last observation of another value.
  sdk::Millis value_since = 0;
  sdk::Millis last_seen = 0;
  std::size_t observations = 0;
  std::vector<std::string_view> event_ids;    // distinct, in time order
  std::vector<std::uint32_t> source_records;  // every observation's record
  std::size_t latest_record = 0;              // the record of the latest observation
  std::optional<Range> range;                 // when every observation is a number
  std::string_view unit;                      // the latest reading's unit, if it names one
};

// Two consecutive observations of a (subject, attribute) with different values: a transition
// (the value replaced, then the new one) or a contradiction (two events disagreeing).
struct Change {
  const Observation* before = nullptr;
  const Observation* after = nullptr;
};

struct Missing {
  std::string_view subject;
  std::string_view attribute;  // empty for stale subjects
  std::string_view reason;     // never_observed | stale
  sdk::Millis last_seen = 0;
};

struct Findings {
  std::vector<Fact> facts;             // newest first (last_seen), then subject, attribute
  std::vector<Change> timeline;        // transitions, oldest first
  std::vector<Change> contradictions;  // newest first
  std::vector<Missing> missing;        // by subject, then attribute
  std::size_t observed_pairs = 0;      // (subject, attribute) pairs with any observation
  std::size_t never_observed = 0;
  std::size_t stale_subjects = 0;
  std::size_t contradictions_found = 0;  // before max_contradictions
};

// Applies the max_* caps (counting what they leave out in evidence.exclusions.over_limit) and
// counts collapsed observations.
Findings find(Evidence& evidence, const sdk::ContextRequest& request, sdk::Millis now);

}  // namespace eventsvc::plugins::context
