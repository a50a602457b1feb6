#include "eventsvc/toolkit/aggregation_helper.hpp"

namespace eventsvc::toolkit {

Millis unit_millis(std::string_view unit) {
  if (unit == "ms") return 1;
  if (unit == "s") return 1000;
  if (unit == "m") return 60000;
  if (unit == "h") return 3600000;
  return 0;
}

json::object aggregation_result(const AggregationSpec& spec, json::value value,
                                const SampleCounts& counts) {
  json::object result;
  result["op"] = spec.op;
  result["field"] = spec.field ? json::value(spec.field->text) : json::value(nullptr);
  result["value"] = std::move(value);
  result["count"] = counts.count;
  result["skipped"] = counts.skipped;
  return result;
}

std::optional<double> numeric_value(const Sample& sample) {
  if (sample.value == nullptr || !sample.value->is_number()) return std::nullopt;
  return sample.value->to_number<double>();
}

std::optional<double> take_number(SampleCounts& counts, const Sample& sample) {
  if (sample.value == nullptr) return std::nullopt;
  ++counts.count;
  auto number = numeric_value(sample);
  if (!number) ++counts.skipped;
  return number;
}

}  // namespace eventsvc::toolkit
