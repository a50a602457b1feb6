// The aggregate stage of an analyze request (DESIGN §5): aggregations, group_by and time buckets
// are pushed down to the storage engine, which computes them over every match, exactly; this
// stage builds that request and renders the partial states the engine answers with.
#pragma once

#include <optional>
#include <vector>

#include "analysis/analyze_request.hpp"
#include "eventsvc/sdk/aggregate_pushdown.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "modules/module_registry.hpp"

namespace eventsvc::host {

struct AggregateAnswer {
  sdk::AggregateResult result;
  std::vector<const Module<const sdk::AggregationOperator>*> operators;  // per aggregation
};

// Whether the request asks for anything the engine aggregates.
bool aggregates(const AnalyzeRequest& request);

// Runs the pushed-down aggregation over `where` (the request's conditions plus its retention
// bound).
AggregateAnswer run_aggregate_stage(const AnalyzeRequest& request,
                                    const std::vector<sdk::Condition>& where,
                                    const ModuleRegistry& modules, const sdk::Tenant& tenant);

// {name: {op, field, value, count, skipped}} of one group's states.
sdk::json::object render_aggregations(const AnalyzeRequest& request, const AggregateAnswer& answer,
                                      const sdk::AggregateGroup& group);

// Largest count first (ties: bucket per order, then key); with only a time bucket, by time per
// `order`. At most group_limit.
sdk::json::array render_groups(const AnalyzeRequest& request, const AggregateAnswer& answer);

}  // namespace eventsvc::host
