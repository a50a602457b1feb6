#include "analysis/aggregate_stage.hpp"

#include <algorithm>

namespace eventsvc::host {

bool aggregates(const AnalyzeRequest& request) {
  return !request.aggregations.empty() || !request.group_by.empty() ||
         request.time_bucket.has_value();
}

AggregateAnswer run_aggregate_stage(const AnalyzeRequest& request,
                                    const std::vector<sdk::Condition>& where,
                                    const ModuleRegistry& modules, const sdk::Tenant& tenant) {
  AggregateAnswer answer;
  sdk::AggregateRequest pushed;
  pushed.source = request.source;
  pushed.where = where;
  pushed.text = request.text;
  pushed.group_by = request.group_by;
  pushed.time_bucket = request.time_bucket;
  for (const auto& spec : request.aggregations) {
    const auto* module = modules.aggregation(spec.op);  // require_modules checked it is enabled
    answer.operators.push_back(module);
    pushed.aggregations.push_back({spec, module->plugin});
  }
  answer.result = modules.storage().call(
      [&](sdk::Storage& storage) { return storage.aggregate(tenant, pushed); });
  return answer;
}

sdk::json::object render_aggregations(const AnalyzeRequest& request, const AggregateAnswer& answer,
                                      const sdk::AggregateGroup& group) {
  sdk::json::object out;
  for (std::size_t i = 0; i < request.aggregations.size(); ++i) {
    const sdk::AggregationSpec& spec = request.aggregations[i];
    out[spec.name] = answer.operators[i]->call(
        [&](const sdk::AggregationOperator& op) { return op.finalize(*group.states[i], spec); });
  }
  return out;
}

sdk::json::array render_groups(const AnalyzeRequest& request, const AggregateAnswer& answer) {
  const auto& groups = answer.result.groups;
  std::vector<std::size_t> ordered(groups.size());
  for (std::size_t i = 0; i < ordered.size(); ++i)
    ordered[i] = i;
  // The engine delivers groups by the canonical JSON of their key: the last tie-break.
  const bool by_count = !request.group_by.empty();
  const bool ascending = request.order == sdk::Order::asc;
  std::stable_sort(ordered.begin(), ordered.end(), [&](std::size_t a, std::size_t b) {
    const sdk::AggregateGroup& x = groups[a];
    const sdk::AggregateGroup& y = groups[b];
    if (by_count && x.count != y.count) return x.count > y.count;
    if (x.bucket != y.bucket) return ascending ? x.bucket < y.bucket : x.bucket > y.bucket;
    return false;
  });
  if (ordered.size() > request.group_limit) ordered.resize(request.group_limit);
  sdk::json::array out;
  for (const auto index : ordered) {
    const sdk::AggregateGroup& group = groups[index];
    sdk::json::object rendered{{"key", group.key}, {"count", group.count}};
    if (!request.aggregations.empty()) {
      rendered["aggregations"] = render_aggregations(request, answer, group);
    }
    out.emplace_back(std::move(rendered));
  }
  return out;
}

}  // namespace eventsvc::host
