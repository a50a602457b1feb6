// `range`: the difference between the largest and the smallest numeric value of a field.
#pragma once

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/toolkit/aggregation_helper.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace example {

struct RangeState {
  eventsvc::toolkit::SampleCounts counts;
  bool any = false;
  double min = 0;
  double max = 0;
};

class Range final : public eventsvc::toolkit::AggregationOperatorHelper<RangeState> {
 public:
  static constexpr std::string_view kName = "range";
  static constexpr eventsvc::sdk::PluginInfo kInfo{
      "1.0.0", "Largest minus smallest numeric value of a field"};
  explicit Range(const eventsvc::sdk::PluginContext&) {}

  std::string_view op() const override { return kName; }
  bool requires_field() const override { return true; }

 protected:
  void accumulate(RangeState& state, const eventsvc::sdk::AggregationSpec& spec,
                  const eventsvc::sdk::Sample& sample) const override;
  void combine(RangeState& into, const RangeState& from) const override;
  eventsvc::sdk::json::value value(const RangeState& state,
                                   const eventsvc::sdk::AggregationSpec& spec) const override;
  void save(const RangeState& state, eventsvc::toolkit::StateWriter& out) const override;
  void load(RangeState& state, eventsvc::toolkit::StateReader& in) const override;
};

}  // namespace example
