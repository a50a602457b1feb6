#include "analysis/aggregation_set.hpp"

namespace eventsvc::host {

std::optional<sdk::Millis> instant_of(const sdk::Record& record, const sdk::FieldPath& field) {
  const sdk::FieldValue value = sdk::resolve(record, field);
  if (value.kind() == sdk::FieldValue::Kind::instant) return value.instant();
  if (const auto text = value.as_string()) return sdk::parse_rfc3339(*text);
  if (value.kind() == sdk::FieldValue::Kind::json && value.json_value().is_number()) {
    return value.json_value().to_number<sdk::Millis>();
  }
  return std::nullopt;
}

AggregationSet::AggregationSet(const std::vector<BoundAggregation>& aggregations)
    : aggregations_(&aggregations) {
  states_.reserve(aggregations.size());
  for (const auto& aggregation : aggregations) {
    states_.push_back(aggregation.op->call(
        [&](const sdk::AggregationOperator& op) { return op.create_state(aggregation.spec); }));
  }
}

void AggregationSet::add(const sdk::Record& record) {
  for (std::size_t i = 0; i < states_.size(); ++i) {
    const BoundAggregation& aggregation = (*aggregations_)[i];
    // Canonical fields are not JSON in the record: give the operator a JSON copy.
    sdk::json::value converted;
    const sdk::json::value* value = nullptr;
    if (aggregation.spec.field) {
      const sdk::FieldValue field = sdk::resolve(record, *aggregation.spec.field);
      if (field.kind() == sdk::FieldValue::Kind::json) {
        value = &field.json_value();
      } else if (field.present()) {
        converted = field.to_json();
        value = &converted;
      }
    }
    const sdk::Sample sample{value, instant_of(record, aggregation.spec.time_field)};
    aggregation.op->call(
        [&](const sdk::AggregationOperator& op) { op.add(*states_[i], aggregation.spec, sample); });
  }
}

sdk::json::object AggregationSet::results() const {
  sdk::json::object out;
  for (std::size_t i = 0; i < states_.size(); ++i) {
    const BoundAggregation& aggregation = (*aggregations_)[i];
    out[aggregation.spec.name] = aggregation.op->call([&](const sdk::AggregationOperator& op) {
      return op.finalize(*states_[i], aggregation.spec);
    });
  }
  return out;
}

}  // namespace eventsvc::host
