// max: the largest numeric value of a field (null when there are none).
#pragma once

#include <functional>

#include "eventsvc/sdk/aggregation.hpp"

namespace eventsvc::plugins::aggregation {

class Max final : public sdk::ExtremumOperator<std::greater<double>> {
 public:
  static sdk::Manifest manifest();
  explicit Max(const sdk::PluginContext&) {}
  std::string_view op() const override { return "max"; }
};

}  // namespace eventsvc::plugins::aggregation
