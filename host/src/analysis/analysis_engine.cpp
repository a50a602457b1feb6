#include "analysis/analysis_engine.hpp"

#include <cmath>
#include <optional>

#include "analysis/aggregate_stage.hpp"
#include "analysis/evidence_stages.hpp"
#include "analysis/match_stage.hpp"
#include "analysis/relationship_builder.hpp"
#include "eventsvc/toolkit/context_pack.hpp"
#include "eventsvc/toolkit/record_json.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

double rounded(double value, double scale = 1e6) {
  return std::round(value * scale) / scale;
}

// plan: the request's conditions and the plan's retention bound.
std::vector<sdk::Condition> plan_conditions(const AnalyzeRequest& request,
                                            const AnalysisContext& caller) {
  std::vector<sdk::Condition> where = request.where;
  where.push_back(
      {*sdk::FieldPath::parse("timestamp"), sdk::Op::gte, json::value(caller.retention_horizon)});
  return where;
}

// What was read of every match, by the match stage or by a pack reading cells, and what the
// aggregate stage examined.
struct ReadSummary {
  sdk::ScanStats read;
  bool read_any = false;
  std::optional<sdk::Millis> newest;  // of the matches a pack read as cells
};

// The counts and freshness of API-SPEC 2.7 (everything but the parts the request asked for).
json::object render_summary(const AnalyzeRequest& request, const AnalysisContext& caller,
                            const Matches& matches, const Selection& selection,
                            const std::optional<AggregateAnswer>& aggregated,
                            const ReadSummary& summary, bool pack_reads_cells,
                            const sdk::StorageStatus& status) {
  std::uint64_t scanned = summary.read.scanned;
  std::uint64_t matched = summary.read.matched;
  bool indexed = !summary.read_any || summary.read.indexed;
  if (aggregated) {
    // The aggregate stage examined every candidate; the match stage re-read some of them.
    scanned = aggregated->result.stats.scanned;
    matched = aggregated->result.stats.matched;
    indexed = indexed && aggregated->result.stats.indexed;
  }
  json::object answer;
  answer["success"] = true;
  answer["execution_mode"] = matches.semantic ? "semantic" : (indexed ? "optimized" : "bounded");
  answer["complete"] = !summary.read_any || summary.read.complete;
  answer["scanned"] = scanned;
  answer["elapsed_ms"] = 0;  // the endpoint sets it when the answer is complete
  answer["source"] = sdk::source_name(request.source);
  answer["filtered"] = scanned - matched;
  answer["matched"] = matched;
  std::vector<const sdk::Record*> kept;
  for (const auto index : selection.kept)
    kept.push_back(&matches.records[index]);
  answer["freshness"] = freshness(request, status, matches.read ? &kept : nullptr, caller.now);
  if (pack_reads_cells) {  // every match was read by the pack, not by the match stage
    const sdk::Millis expected = request.context->expected_freshness_ms;
    answer["freshness"].as_object()["matched"] =
        toolkit::freshness_of_newest(summary.newest, expected, caller.now);
  }
  return answer;
}

// The shown results, in evidence order, with their roles and (when ranked) relevance.
json::array render_results(const Matches& matches, const Selection& selection) {
  json::array results;
  for (std::size_t i = 0; i < selection.shown; ++i) {
    const std::size_t index = selection.kept[i];
    json::object result = toolkit::record_to_json(matches.records[index]);
    result["evidence_rank"] = i + 1;
    json::array role_list;
    for (const auto& role : selection.roles[index])
      role_list.emplace_back(role);
    result["source_roles"] = std::move(role_list);
    if (matches.ranked)
      result["relevance"] = json::object{{"score", rounded(matches.scores[index])}};
    results.emplace_back(std::move(result));
  }
  return results;
}

}  // namespace

json::object AnalysisEngine::run(const AnalyzeRequest& request,
                                 const AnalysisContext& caller) const {
  const sdk::Tenant& tenant = caller.principal.tenant;
  const std::vector<sdk::Condition> where = plan_conditions(request, caller);

  // aggregate: every match, exact
  std::optional<AggregateAnswer> aggregated;
  if (aggregates(request)) aggregated = run_aggregate_stage(request, where, modules_, tenant);

  // match, select, relate
  const bool pack_reads_cells = pack_reads_storage_cells(request, modules_);
  const Matches matches =
      run_match_stage(request, where, aggregated.has_value(), pack_reads_cells, modules_, tenant);
  Selection selection = select_results(request, matches);
  // Only the materialised parts can be cut; aggregations never are.
  const bool complete = !matches.read || matches.stats.complete;
  if (caller.page_end != nullptr && request.include_results && !request.context &&
      selection.shown > 0 && (selection.kept.size() > selection.shown || !complete)) {
    const std::size_t index = selection.kept[selection.shown - 1];
    const sdk::Record& last = matches.records[index];
    *caller.page_end =
        PageEnd{{matches.ranked ? matches.scores[index] : 0, last.timestamp, last.id},
                matches.stats.rank_statistics};
  }

  // windows, context
  json::array windows;
  if (request.temporal) {
    windows =
        temporal_windows(request, matches, selection, modules_, tenant, caller.retention_horizon);
  }
  const auto status = modules_.storage().call([&](sdk::Storage& s) { return s.status(tenant); });
  ReadSummary summary{matches.stats, matches.read, std::nullopt};
  json::object context;
  if (request.context) {
    Pack pack = context_pack(request, where, matches, selection, complete, pack_reads_cells,
                             modules_, tenant, caller.now);
    context = std::move(pack.context);
    if (pack.read) summary = {*pack.read, true, pack.newest};
    audit(caller, context);
  }

  // render: exactly the properties of API-SPEC 2.7
  json::object answer = render_summary(request, caller, matches, selection, aggregated, summary,
                                       pack_reads_cells, status);
  if (!request.aggregations.empty()) {
    answer["aggregations"] = render_aggregations(request, *aggregated, aggregated->result.total);
  }
  if (!request.group_by.empty() || request.time_bucket) {
    answer["groups"] = render_groups(request, *aggregated);
  }
  if (!request.relationship_fields.empty()) {
    RelationshipBuilder relationships(request.relationship_fields, request.relationship_limit);
    for (const auto& record : matches.records)
      relationships.add(record);
    answer["relationships"] = relationships.results();
  }
  if (request.temporal) answer["temporal_windows"] = std::move(windows);
  if (request.context) answer["context"] = std::move(context);
  if (request.include_results) answer["results"] = render_results(matches, selection);
  return answer;
}

void AnalysisEngine::audit(const AnalysisContext& caller, json::object& context) const {
  const auto& sink = modules_.audit();
  if (!sink) return;
  const auto trace = sink.call([&](sdk::AuditSink& audit_sink) {
    return audit_sink.record(
        {caller.principal, "analyze", caller.body, context, caller.now, false});
  });
  if (trace) context["audit_trace_id"] = *trace;
}

}  // namespace eventsvc::host
