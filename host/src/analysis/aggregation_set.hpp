// The aggregations of one request (or of one group) over a stream of records: one state per spec,
// fed record by record, finalised into {name: result}.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "eventsvc/sdk/aggregation.hpp"
#include "eventsvc/sdk/record.hpp"
#include "modules/module.hpp"

namespace eventsvc::host {

struct BoundAggregation {
  sdk::AggregationSpec spec;
  const Module<const sdk::AggregationOperator>* op = nullptr;
};

class AggregationSet {
 public:
  explicit AggregationSet(const std::vector<BoundAggregation>& aggregations);

  void add(const sdk::Record& record);
  sdk::json::object results() const;

 private:
  const std::vector<BoundAggregation>* aggregations_;
  std::vector<std::unique_ptr<sdk::AggregationState>> states_;
};

// The instant a record holds in `field`: timestamp and ingested_at as they are; other fields when
// they hold an RFC 3339 string or epoch milliseconds.
std::optional<sdk::Millis> instant_of(const sdk::Record& record, const sdk::FieldPath& field);

}  // namespace eventsvc::host
