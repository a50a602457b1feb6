#include "api/where_parser.hpp"

#include "api/retention_bound.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace {

bool is_scalar(const json::value& value) {
  return value.is_string() || value.is_number() || value.is_bool() || value.is_null();
}

std::string op_list() {
  return "eq, ieq, neq, in, not_in, gt, gte, lt, lte, exists, contains, prefix";
}

// An instant operand: an RFC 3339 date-time, a time expression, or epoch milliseconds.
std::optional<json::value> instant_operand(const json::value& operand, sdk::Millis now,
                                           const std::string& path, ValidationErrors& errors) {
  if (operand.is_string()) {
    if (const auto instant = toolkit::parse_time_expression(operand.get_string(), now)) {
      return json::value(*instant);
    }
  } else if (operand.is_int64() || operand.is_uint64()) {
    if (operand.is_int64()) return operand;
  }
  errors.add(path,
             "must be an RFC 3339 date-time, a time expression (now, now-15m, now+1h; units ms s m "
             "h d w) or epoch milliseconds");
  return std::nullopt;
}

// Checks one operator's operand and appends the condition.
void add_condition(const sdk::FieldPath& field, sdk::Op op, const json::value& operand,
                   const std::string& path, sdk::Millis now, ValidationErrors& errors,
                   ParsedWhere& out) {
  json::value value = operand;
  const bool instant = field.is_instant();
  switch (op) {
    case sdk::Op::eq:
    case sdk::Op::neq:
      if (!is_scalar(operand)) {
        errors.add(path, "must be a string, number, boolean or null");
        return;
      }
      if (instant && !operand.is_null()) {
        const auto resolved = instant_operand(operand, now, path, errors);
        if (!resolved) return;
        value = *resolved;
      }
      break;
    case sdk::Op::in:
    case sdk::Op::not_in: {
      if (!operand.is_array() || operand.get_array().empty() ||
          operand.get_array().size() > kMaxInOperands) {
        errors.add(path, "must be an array of 1 to " + std::to_string(kMaxInOperands) +
                             " strings, numbers, booleans or nulls");
        return;
      }
      json::array resolved;
      std::size_t index = 0;
      for (const auto& element : operand.get_array()) {
        const std::string element_path = sdk::pointer_append(path, index++);
        if (!is_scalar(element)) {
          errors.add(element_path, "must be a string, number, boolean or null");
          continue;
        }
        if (instant) {
          if (const auto at = instant_operand(element, now, element_path, errors)) {
            resolved.push_back(*at);
          }
        } else {
          resolved.push_back(element);
        }
      }
      value = std::move(resolved);
      break;
    }
    case sdk::Op::gt:
    case sdk::Op::gte:
    case sdk::Op::lt:
    case sdk::Op::lte:
      if (instant) {
        const auto resolved = instant_operand(operand, now, path, errors);
        if (!resolved) return;
        value = *resolved;
      } else if (!operand.is_number() && !operand.is_string()) {
        errors.add(path, "must be a number or a string");
        return;
      }
      if ((op == sdk::Op::gt || op == sdk::Op::gte) &&
          field.is_canonical(sdk::CanonicalField::timestamp)) {
        out.lower_bound = value.get_int64();
      }
      break;
    case sdk::Op::exists:
      if (!operand.is_bool()) {
        errors.add(path, "must be true or false");
        return;
      }
      break;
    case sdk::Op::ieq:
    case sdk::Op::contains:
    case sdk::Op::prefix:
      if (!operand.is_string()) {
        errors.add(path, "must be a string");
        return;
      }
      break;
  }
  out.conditions.push_back(sdk::Condition{field, op, std::move(value)});
}

bool is_lower(sdk::Op op) {
  return op == sdk::Op::gt || op == sdk::Op::gte;
}
bool is_upper(sdk::Op op) {
  return op == sdk::Op::lt || op == sdk::Op::lte;
}

}  // namespace

std::string unknown_field_message() {
  return "is not a field: use id, type, stream, namespace, site_id, source_id, timestamp, "
         "ingested_at, receipt_id, payload.<path> or metrics.<path>";
}

std::optional<sdk::FieldPath> parse_field(const json::value& name, const std::string& path,
                                          ValidationErrors& errors) {
  if (!name.is_string()) {
    errors.add(path, "must be a string");
    return std::nullopt;
  }
  auto field = sdk::FieldPath::parse(name.get_string());
  if (!field)
    errors.add(path, "'" + std::string(name.get_string()) + "' " + unknown_field_message());
  return field;
}

ParsedWhere parse_where(const json::value& where, const std::string& path, sdk::Millis now,
                        ValidationErrors& errors) {
  ParsedWhere out;
  if (!where.is_object()) {
    errors.add(path, "must be an object");
    return out;
  }
  const auto& object = where.get_object();
  if (object.size() > kMaxWhereProperties) {
    errors.add(path, "must have at most " + std::to_string(kMaxWhereProperties) + " properties");
    return out;
  }
  for (const auto& member : object) {
    const std::string field_path = sdk::pointer_append(path, member.key());
    const auto field = sdk::FieldPath::parse(member.key());
    if (!field) {
      errors.add(field_path, unknown_field_message());
      continue;
    }
    const json::value& condition = member.value();
    if (is_scalar(condition)) {
      add_condition(*field, sdk::Op::eq, condition, field_path, now, errors, out);
      continue;
    }
    if (!condition.is_object()) {
      errors.add(field_path, "must be a scalar (equality) or an object holding one operator");
      continue;
    }
    const auto& operators = condition.get_object();
    if (operators.empty()) {
      errors.add(field_path, "needs an operator: " + op_list());
      continue;
    }
    int lowers = 0;
    int uppers = 0;
    bool valid = true;
    std::vector<std::pair<sdk::Op, const json::key_value_pair*>> parsed;
    for (const auto& entry : operators) {
      const auto op = sdk::parse_op(entry.key());
      if (!op) {
        errors.add(sdk::pointer_append(field_path, entry.key()),
                   "is not an operator; operators: " + op_list());
        valid = false;
        continue;
      }
      lowers += is_lower(*op) ? 1 : 0;
      uppers += is_upper(*op) ? 1 : 0;
      parsed.emplace_back(*op, &entry);
    }
    if (!valid) continue;
    const bool range_pair = operators.size() == 2 && lowers == 1 && uppers == 1;
    if (operators.size() > 1 && !range_pair) {
      errors.add(field_path,
                 "must hold one operator, or one lower (gt, gte) and one upper (lt, lte) bound");
      continue;
    }
    for (const auto& [op, entry] : parsed) {
      add_condition(*field, op, entry->value(), sdk::pointer_append(field_path, entry->key()), now,
                    errors, out);
    }
  }
  return out;
}

void require_history_bound(const ParsedWhere& where, sdk::Millis horizon, int retention_days) {
  if (!where.lower_bound) {
    throw sdk::Error::bad_request(
        "history reads need a lower time bound: set where.timestamp.gte or where.timestamp.gt",
        {{"errors", json::array{json::object{{"path", "/where/timestamp"},
                                             {"message", "needs gte or gt for source history"}}}}});
  }
  check_retention("where.timestamp lower bound", *where.lower_bound, horizon, retention_days);
}

}  // namespace eventsvc::host
