// `group_by` and `time_bucket` (DESIGN §5): records partitioned by the values of up to 8 fields
// and/or a time bucket aligned to UTC epoch multiples of the interval, each group with its count
// and its own aggregations.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "analysis/aggregation_set.hpp"
#include "analysis/analyze_request.hpp"

namespace eventsvc::host {

class GroupBuilder {
 public:
  GroupBuilder(const AnalyzeRequest& request, const std::vector<BoundAggregation>& aggregations);

  void add(const sdk::Record& record);
  // Largest count first (ties: earlier bucket per order, then key); with only a time bucket, by
  // time per `order`. At most group_limit.
  sdk::json::array results() const;

 private:
  struct Group {
    sdk::json::object key;
    std::optional<sdk::Millis> bucket;
    std::uint64_t count = 0;
    AggregationSet aggregations;
  };

  const AnalyzeRequest& request_;
  const std::vector<BoundAggregation>& aggregations_;
  std::map<std::string, Group> groups_;  // by canonical JSON of the key
};

}  // namespace eventsvc::host
