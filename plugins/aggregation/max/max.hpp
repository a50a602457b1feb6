// max: the largest numeric value of a field (null when there are none).
#pragma once

#include <functional>

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/toolkit/aggregation_helper.hpp"

namespace eventsvc::plugins::aggregation {

class Max final : public toolkit::ExtremumOperator<std::greater<double>> {
 public:
  static constexpr std::string_view kName = "max";
  static constexpr sdk::PluginInfo kInfo{"1.0.0", "Largest numeric value of a field"};
  explicit Max(const sdk::PluginContext&) {}
  std::string_view op() const override { return kName; }
};

}  // namespace eventsvc::plugins::aggregation
