// What a `where` condition (sdk/condition.hpp) means, evaluated on a record. This evaluator is the
// definition of what a condition means: storage backends may use indexes to find candidates, but
// every candidate is confirmed with matches(), so all backends answer alike.
//
// Semantics (docs/api.md, "Conditions"):
//   eq, in        the field is present and equal to the operand (to one of them); numbers compare
//                 by value, so 1 equals 1.0; instants compare as instants
//   neq, not_in   the negation of eq / in: an absent field matches
//   ieq           a string field equal to the operand ignoring case
//   gt gte lt lte the field and the operand are both numbers, both strings (bytewise), or both
//                 instants; anything else does not match
//   exists        true: the field is present (null counts); false: it is absent
//   contains      a string field containing the operand as a substring, or an array field with an
//                 element equal to the operand
//   prefix        a string field (or an instant's RFC 3339 form) starting with the operand
#pragma once

#include <cstdint>
#include <vector>

#include "eventsvc/sdk/condition.hpp"
#include "eventsvc/sdk/record.hpp"
#include "eventsvc/toolkit/field_value.hpp"
#include "eventsvc/toolkit/vocabulary.hpp"

namespace eventsvc::toolkit {

using sdk::Condition;
using sdk::Op;

bool matches(const Record& record, const Condition& condition);
// The same for a value already resolved from condition.field (a column store's cell).
bool matches(const FieldValue& value, const Condition& condition);
bool matches_all(const Record& record, const std::vector<Condition>& conditions);

// Inclusive bounds on `timestamp` implied by the conditions (eq, gt, gte, lt, lte on timestamp).
struct TimeBounds {
  Millis lower = INT64_MIN;
  Millis upper = INT64_MAX;
  bool has_lower = false;
  bool has_upper = false;
  bool empty() const { return lower > upper; }
};

TimeBounds timestamp_bounds(const std::vector<Condition>& conditions);

}  // namespace eventsvc::toolkit
