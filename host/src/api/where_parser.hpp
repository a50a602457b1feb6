// The `where` object of query and analyze (API-SPEC 4.4, DESIGN §5): field names, operators and
// operand shapes, with instants resolved from time expressions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "api/validation.hpp"
#include "eventsvc/sdk/condition.hpp"

namespace eventsvc::host {

inline constexpr std::size_t kMaxWhereProperties = 32;
inline constexpr std::size_t kMaxInOperands = 1000;

struct ParsedWhere {
  std::vector<sdk::Condition> conditions;
  // where.timestamp.gte / where.timestamp.gt, the lower bound history reads require.
  std::optional<sdk::Millis> lower_bound;
};

// Problems go to `errors` with their paths below `path` (e.g. /where/payload.temp/gt).
ParsedWhere parse_where(const json::value& where, const std::string& path, sdk::Millis now,
                        ValidationErrors& errors);

// A field name as requests write it, or an error naming it.
std::optional<sdk::FieldPath> parse_field(const json::value& name, const std::string& path,
                                          ValidationErrors& errors);

// The message for an unknown field name.
std::string unknown_field_message();

// History reads need a lower time bound within retention (API-SPEC 4.4 rule 2): 400 without one,
// 403 beyond retention.
void require_history_bound(const ParsedWhere& where, sdk::Millis horizon, int retention_days);

}  // namespace eventsvc::host
