#include "eventsvc/sdk/aggregation.hpp"

namespace eventsvc::sdk {

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

// Out-of-line destructors: they anchor each class's vtable and type_info in the SDK library, so
// host and plugins (loaded with RTLD_LOCAL) share one type_info per class and dynamic_cast and
// exception matching work across the boundary.
AggregationState::~AggregationState() = default;
AggregationOperator::~AggregationOperator() = default;

}  // namespace eventsvc::sdk
