#include "eventsvc/sdk/condition.hpp"

namespace eventsvc::sdk {

namespace {

struct OpName {
  Op op;
  std::string_view name;
};

constexpr OpName kOps[] = {
    {Op::eq, "eq"},
    {Op::ieq, "ieq"},
    {Op::neq, "neq"},
    {Op::in, "in"},
    {Op::not_in, "not_in"},
    {Op::gt, "gt"},
    {Op::gte, "gte"},
    {Op::lt, "lt"},
    {Op::lte, "lte"},
    {Op::exists, "exists"},
    {Op::contains, "contains"},
    {Op::prefix, "prefix"},
};

}  // namespace

std::string_view op_name(Op op) {
  for (const auto& entry : kOps) {
    if (entry.op == op) return entry.name;
  }
  return "";
}

std::optional<Op> parse_op(std::string_view name) {
  for (const auto& entry : kOps) {
    if (entry.name == name) return entry.op;
  }
  return std::nullopt;
}

}  // namespace eventsvc::sdk
