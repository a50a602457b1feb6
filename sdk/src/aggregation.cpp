#include "eventsvc/sdk/aggregation.hpp"

namespace eventsvc::sdk {

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

void AggregationOperator::add_span(AggregationState& state, const AggregationSpec& spec,
                                   const ColumnSpan& span) const {
  for_each_sample(span, [&](const Sample& sample) { add(state, spec, sample); });
}

void for_each_sample(const ColumnSpan& span, const std::function<void(const Sample&)>& visit) {
  for (std::size_t i = 0; i < span.numbers.size(); ++i) {
    const json::value number(span.numbers[i]);
    std::optional<Millis> time;
    if (i < span.number_times.size() && span.number_times[i] != kNoTime) {
      time = span.number_times[i];
    }
    visit(Sample{&number, time});
  }
  for_each_non_number(span, visit);
}

void for_each_non_number(const ColumnSpan& span, const std::function<void(const Sample&)>& visit) {
  for (const auto& other : span.others)
    visit(Sample{&other, std::nullopt});
  const Sample absent{};
  for (std::uint64_t i = 0; i < span.absent(); ++i)
    visit(absent);
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

// Out-of-line destructors: they anchor each class's vtable and type_info in the SDK library, so
// host and plugins (loaded with RTLD_LOCAL) share one type_info per class and dynamic_cast and
// exception matching work across the boundary.
AggregationState::~AggregationState() = default;
AggregationOperator::~AggregationOperator() = default;

}  // namespace eventsvc::sdk
