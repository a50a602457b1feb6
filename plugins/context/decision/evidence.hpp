// Evidence for a decision packet: the observations of in-scope attributes in admitted (verified)
// records, and what was left out on the way.
//
// A pack reads tens of thousands of records with a handful of subjects, attributes and values
// repeated on each: it reads them as cells (sdk/cells.hpp), each field's role decided once per
// block, and an observation holds numbers into tables of the distinct ones, not copies.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/context_mode.hpp"

namespace eventsvc::plugins::context {

namespace json = sdk::json;

// One attribute value seen in one record.
struct Observation {
  std::uint32_t subject = 0;    // index into Evidence::subjects
  std::uint32_t attribute = 0;  // index into Evidence::attributes
  std::uint32_t value = 0;      // index into Evidence::values: equal values, equal index
  std::uint32_t record = 0;     // the record's row (the order cells delivered it)
  sdk::Millis at = 0;
  std::uint32_t unit = 0;  // index into Evidence::units; 0: the reading names no unit
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
  // Sorted by (subject, attribute, at, event id, value).
  std::vector<Observation> observations;
  std::vector<std::string> subjects;    // of admitted records, sorted: index order is name order
  std::vector<std::string> attributes;  // named or observed, sorted
  std::vector<json::value> values;      // the distinct values observed
  std::vector<std::string> units;       // the distinct units of readings; units[0] is "" (none)
  std::vector<std::string> named_attributes;  // the explicit scope; empty: every scalar leaf
  std::vector<std::string> state_attributes;  // sorted: read as states even when all numbers
  // Per row, every matched record's id (ids_text from id_ends[row - 1]) and timestamp.
  std::string ids_text;
  std::vector<std::size_t> id_ends;
  std::vector<sdk::Millis> timestamps;
  std::optional<sdk::Millis> newest;  // of every matched record
  std::size_t source_tokens = 0;      // estimated tokens of every matched record
  bool scan_complete = true;
  std::size_t admitted = 0;
  std::size_t unverified = 0;
  Exclusions exclusions;

  std::string_view subject_of(const Observation& o) const { return subjects[o.subject]; }
  std::string_view attribute_of(const Observation& o) const { return attributes[o.attribute]; }
  const json::value& value_of(const Observation& o) const { return values[o.value]; }
  std::string_view id_of(std::size_t row) const {
    const std::size_t begin = row == 0 ? 0 : id_ends[row - 1];
    return std::string_view(ids_text).substr(begin, id_ends[row] - begin);
  }
  std::string_view event_id_of(const Observation& o) const { return id_of(o.record); }
  std::string_view unit_of(const Observation& o) const { return units[o.unit]; }
  bool is_state(std::string_view attribute) const {
    return std::binary_search(state_attributes.begin(), state_attributes.end(), attribute);
  }
};

// The field that names the unit of a reading at `path` (payload.reading.temp), in the order
// looked for: `temp_unit`, `units.temp`, then `unit` or `units` beside it. Such fields are read as
// units of their siblings, never as attributes of their own (unless the request names them).
std::vector<std::string> unit_fields_of(std::string_view path);
bool is_unit_field(std::string_view path);

// Deepest leaf considered when the request names no attribute: payload.a.b.c.d.
inline constexpr std::size_t kMaxLeafDepth = 4;

// Reads ContextInput::cells.
Evidence gather_evidence(const sdk::ContextInput& input);

}  // namespace eventsvc::plugins::context
