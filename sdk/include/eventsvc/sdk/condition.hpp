// One `where` condition as the host validated it. What it means is the toolkit's condition.hpp,
// whose evaluator is the definition every backend confirms candidates with.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "eventsvc/sdk/field_path.hpp"
#include "eventsvc/sdk/json.hpp"
#include "eventsvc/sdk/time.hpp"

namespace eventsvc::sdk {

enum class Op : std::uint8_t {
  eq,
  ieq,
  neq,
  in,
  not_in,
  gt,
  gte,
  lt,
  lte,
  exists,
  contains,
  prefix
};

std::string_view op_name(Op op);
std::optional<Op> parse_op(std::string_view name);

struct Condition {
  FieldPath field;
  Op op = Op::eq;
  // The operand as validated by the host. On instant fields (timestamp, ingested_at) the operand of
  // eq/neq/in/not_in/gt/gte/lt/lte is already resolved to epoch milliseconds (an int64, or an
  // array of them for in/not_in).
  json::value operand;
};

}  // namespace eventsvc::sdk
