// min: the smallest numeric value of a field (null when there are none).
#pragma once

#include <functional>

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/toolkit/aggregation_helper.hpp"

namespace eventsvc::plugins::aggregation {

class Min final : public toolkit::ExtremumOperator<std::less<double>> {
 public:
  static constexpr std::string_view kName = "min";
  static constexpr sdk::PluginInfo kInfo{"1.0.0", "Smallest numeric value of a field"};
  explicit Min(const sdk::PluginContext&) {}
  std::string_view op() const override { return kName; }
};

}  // namespace eventsvc::plugins::aggregation
