// min: the smallest numeric value of a field (null when there are none).
#pragma once

#include <functional>

#include "eventsvc/sdk/aggregation.hpp"

namespace eventsvc::plugins::aggregation {

class Min final : public sdk::ExtremumOperator<std::less<double>> {
 public:
  static sdk::Manifest manifest();
  explicit Min(const sdk::PluginContext&) {}
  std::string_view op() const override { return "min"; }
};

}  // namespace eventsvc::plugins::aggregation
