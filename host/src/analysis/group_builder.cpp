#include "analysis/group_builder.hpp"

#include <algorithm>

#include "eventsvc/sdk/digest.hpp"

namespace eventsvc::host {

GroupBuilder::GroupBuilder(const AnalyzeRequest& request,
                           const std::vector<BoundAggregation>& aggregations)
    : request_(request), aggregations_(aggregations) {}

void GroupBuilder::add(const sdk::Record& record) {
  sdk::json::object key;
  for (const auto& field : request_.group_by) {
    key[field.text] = sdk::resolve(record, field).to_json();
  }
  std::optional<sdk::Millis> bucket;
  if (request_.time_bucket) {
    const auto instant = instant_of(record, request_.time_bucket->field);
    if (!instant) return;  // no time to place it by
    const sdk::Millis interval = request_.time_bucket->interval;
    sdk::Millis start = *instant / interval * interval;
    if (start > *instant) start -= interval;  // floor for instants before 1970
    bucket = start;
    key["bucket"] = sdk::format_rfc3339(start);
  }
  const std::string id = sdk::canonical_json(key);
  auto it = groups_.find(id);
  if (it == groups_.end()) {
    it = groups_.emplace(id, Group{std::move(key), bucket, 0, AggregationSet(aggregations_)}).first;
  }
  ++it->second.count;
  it->second.aggregations.add(record);
}

sdk::json::array GroupBuilder::results() const {
  std::vector<const std::pair<const std::string, Group>*> ordered;
  ordered.reserve(groups_.size());
  for (const auto& entry : groups_)
    ordered.push_back(&entry);
  const bool by_count = !request_.group_by.empty();
  const bool ascending = request_.order == sdk::Order::asc;
  auto by_time = [&](const Group& a, const Group& b) {
    return ascending ? a.bucket < b.bucket : a.bucket > b.bucket;
  };
  std::sort(ordered.begin(), ordered.end(), [&](const auto* a, const auto* b) {
    if (by_count && a->second.count != b->second.count) return a->second.count > b->second.count;
    if (a->second.bucket != b->second.bucket) return by_time(a->second, b->second);
    return a->first < b->first;
  });
  if (ordered.size() > request_.group_limit) ordered.resize(request_.group_limit);
  sdk::json::array out;
  for (const auto* entry : ordered) {
    sdk::json::object group{{"key", entry->second.key}, {"count", entry->second.count}};
    if (!aggregations_.empty()) group["aggregations"] = entry->second.aggregations.results();
    out.emplace_back(std::move(group));
  }
  return out;
}

}  // namespace eventsvc::host
