// distinct: the number of different values of a field (compared by canonical JSON, so 1 and 1.0
// are one value).
#pragma once

#include <set>
#include <string>

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/toolkit/aggregation_helper.hpp"
#include "eventsvc/toolkit/state_bytes.hpp"

namespace eventsvc::plugins::aggregation {

struct DistinctState {
  toolkit::SampleCounts counts;
  std::set<std::string> values;  // canonical JSON of each value seen
};

class Distinct final : public toolkit::AggregationOperatorHelper<DistinctState> {
 public:
  static constexpr std::string_view kName = "distinct";
  static constexpr sdk::PluginInfo kInfo{"1.0.0", "Number of different values of a field"};
  explicit Distinct(const sdk::PluginContext&) {}
  std::string_view op() const override { return kName; }
  bool requires_field() const override { return true; }

 protected:
  void accumulate(DistinctState& state, const sdk::AggregationSpec& spec,
                  const sdk::Sample& sample) const override;
  void combine(DistinctState& into, const DistinctState& from) const override;
  sdk::json::value value(const DistinctState& state,
                         const sdk::AggregationSpec& spec) const override;
  void save(const DistinctState& state, toolkit::StateWriter& out) const override;
  void load(DistinctState& state, toolkit::StateReader& in) const override;
};

}  // namespace eventsvc::plugins::aggregation
