#include "eventsvc/toolkit/condition.hpp"

#include <algorithm>

#include "eventsvc/toolkit/text.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::toolkit {

namespace {

int three_way(auto a, auto b) {
  return a < b ? -1 : (a > b ? 1 : 0);
}

// Order of a field value and a scalar operand; nullopt when they are not comparable (different
// types, or a non-scalar field).
std::optional<int> compare(const FieldValue& value, const json::value& operand) {
  switch (value.kind()) {
    case FieldValue::Kind::absent:
      return std::nullopt;
    case FieldValue::Kind::instant:
      if (!operand.is_int64()) return std::nullopt;
      return three_way(value.instant(), operand.get_int64());
    case FieldValue::Kind::string:
      if (!operand.is_string()) return std::nullopt;
      return three_way(value.string().compare(std::string_view(operand.get_string())), 0);
    case FieldValue::Kind::json: {
      const json::value& field = value.json_value();
      if (field.is_number() && operand.is_number()) return sdk::compare_numbers(field, operand);
      if (field.is_string() && operand.is_string()) {
        return three_way(std::string_view(field.get_string()).compare(operand.get_string()), 0);
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

bool equals(const FieldValue& value, const json::value& operand) {
  if (value.kind() == FieldValue::Kind::json) return sdk::json_equal(value.json_value(), operand);
  const auto order = compare(value, operand);
  return order && *order == 0;
}

bool equals_any(const FieldValue& value, const json::value& operands) {
  if (!operands.is_array()) return false;
  const auto& list = operands.get_array();
  return std::any_of(list.begin(), list.end(),
                     [&](const json::value& operand) { return equals(value, operand); });
}

// The text form used by prefix and contains; instants in RFC 3339.
std::optional<std::string> text_form(const FieldValue& value) {
  if (value.kind() == FieldValue::Kind::instant) return format_rfc3339(value.instant());
  if (const auto text = value.as_string()) return std::string(*text);
  return std::nullopt;
}

bool ordered(const FieldValue& value, const json::value& operand, Op op) {
  const auto order = compare(value, operand);
  if (!order) return false;
  switch (op) {
    case Op::gt:
      return *order > 0;
    case Op::gte:
      return *order >= 0;
    case Op::lt:
      return *order < 0;
    case Op::lte:
      return *order <= 0;
    default:
      return false;
  }
}

}  // namespace

bool matches(const Record& record, const Condition& condition) {
  return matches(resolve(record, condition.field), condition);
}

bool matches(const FieldValue& value, const Condition& condition) {
  const json::value& operand = condition.operand;
  switch (condition.op) {
    case Op::eq:
      return equals(value, operand);
    case Op::neq:
      return !equals(value, operand);
    case Op::in:
      return equals_any(value, operand);
    case Op::not_in:
      return !equals_any(value, operand);
    case Op::ieq: {
      const auto text = value.as_string();
      return text && operand.is_string() && fold_case(*text) == fold_case(operand.get_string());
    }
    case Op::gt:
    case Op::gte:
    case Op::lt:
    case Op::lte:
      return ordered(value, operand, condition.op);
    case Op::exists:
      return operand.is_bool() && value.present() == operand.get_bool();
    case Op::contains: {
      if (!operand.is_string()) return false;
      if (value.kind() == FieldValue::Kind::json && value.json_value().is_array()) {
        const auto& list = value.json_value().get_array();
        return std::any_of(list.begin(), list.end(), [&](const json::value& element) {
          return sdk::json_equal(element, operand);
        });
      }
      const auto text = text_form(value);
      return text && text->find(operand.get_string()) != std::string::npos;
    }
    case Op::prefix: {
      if (!operand.is_string()) return false;
      const auto text = text_form(value);
      return text && std::string_view(*text).starts_with(operand.get_string());
    }
  }
  return false;
}

bool matches_all(const Record& record, const std::vector<Condition>& conditions) {
  return std::all_of(conditions.begin(), conditions.end(),
                     [&](const Condition& condition) { return matches(record, condition); });
}

TimeBounds timestamp_bounds(const std::vector<Condition>& conditions) {
  TimeBounds bounds;
  auto raise = [&](Millis lower) {
    bounds.lower = std::max(bounds.lower, lower);
    bounds.has_lower = true;
  };
  auto cap = [&](Millis upper) {
    bounds.upper = std::min(bounds.upper, upper);
    bounds.has_upper = true;
  };
  for (const auto& condition : conditions) {
    if (!condition.field.is_canonical(sdk::CanonicalField::timestamp)) continue;
    const json::value& operand = condition.operand;
    switch (condition.op) {
      case Op::eq:
        if (operand.is_int64()) {
          raise(operand.get_int64());
          cap(operand.get_int64());
        }
        break;
      case Op::gt:
        if (operand.is_int64() && operand.get_int64() < INT64_MAX) raise(operand.get_int64() + 1);
        break;
      case Op::gte:
        if (operand.is_int64()) raise(operand.get_int64());
        break;
      case Op::lt:
        if (operand.is_int64() && operand.get_int64() > INT64_MIN) cap(operand.get_int64() - 1);
        break;
      case Op::lte:
        if (operand.is_int64()) cap(operand.get_int64());
        break;
      case Op::in:
        if (operand.is_array() && !operand.get_array().empty()) {
          const auto& list = operand.get_array();
          if (!std::all_of(list.begin(), list.end(), [](const auto& e) { return e.is_int64(); })) {
            break;
          }
          const auto [lowest, highest] = std::minmax_element(
              list.begin(), list.end(),
              [](const auto& a, const auto& b) { return a.get_int64() < b.get_int64(); });
          raise(lowest->get_int64());
          cap(highest->get_int64());
        }
        break;
      default:
        break;
    }
  }
  return bounds;
}

}  // namespace eventsvc::toolkit
