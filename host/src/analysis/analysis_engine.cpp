#include "analysis/analysis_engine.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <unordered_map>

#include "analysis/aggregation_set.hpp"
#include "analysis/group_builder.hpp"
#include "analysis/relationship_builder.hpp"
#include "api/endpoint_base.hpp"
#include "eventsvc/sdk/error.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

// Temporal windows are computed for at most this many leading results.
constexpr std::size_t kMaxTemporalAnchors = 20;

std::vector<BoundAggregation> bind(const AnalyzeRequest& request, const ModuleRegistry& modules) {
  std::vector<BoundAggregation> bound;
  for (const auto& spec : request.aggregations)
    bound.push_back({spec, modules.aggregation(spec.op)});
  return bound;
}

double rounded(double value, double scale = 1e6) {
  return std::round(value * scale) / scale;
}

// Payload and metrics paths the request names: the attributes a decision packet is about.
std::vector<sdk::FieldPath> named_attributes(const AnalyzeRequest& request) {
  std::vector<sdk::FieldPath> named;
  auto add = [&](const sdk::FieldPath& field) {
    if (field.root == sdk::FieldPath::Root::canonical || field.segments.empty()) return;
    if (std::find(named.begin(), named.end(), field) == named.end()) named.push_back(field);
  };
  for (const auto& condition : request.where.conditions)
    add(condition.field);
  for (const auto& field : request.group_by)
    add(field);
  for (const auto& spec : request.aggregations) {
    if (spec.field) add(*spec.field);
  }
  for (const auto& field : request.relationship_fields)
    add(field);
  return named;
}

}  // namespace

void AnalysisEngine::require_modules(const AnalyzeRequest& request) const {
  ValidationErrors errors;
  for (const auto& spec : request.aggregations) {
    const std::string path = sdk::pointer_append("/aggregations", spec.name);
    const auto* op = modules_.aggregation(spec.op);
    if (op == nullptr) {
      errors.add(path + "/op", "aggregation op '" + spec.op + "' is not enabled");
    } else if (!spec.field &&
               op->call([](const sdk::AggregationOperator& o) { return o.requires_field(); })) {
      errors.add(path + "/field", "is required for op " + spec.op);
    }
  }
  if (request.vector_text && !modules_.embedder()) {
    errors.add("/vector", "semantic ranking needs an embedder plugin; none is enabled");
  }
  if (request.context && modules_.context_mode(request.context->mode) == nullptr) {
    errors.add("/context/mode", "context mode '" + request.context->mode + "' is not enabled");
  }
  errors.throw_if_any();
}

json::object AnalysisEngine::run(const AnalyzeRequest& request, const json::value& body,
                                 const ApiRequest& http) const {
  const auto started = std::chrono::steady_clock::now();
  const auto& storage = modules_.storage();
  const sdk::Tenant& tenant = http.principal.tenant;

  sdk::RecordQuery query;
  query.source = request.source;
  query.where = request.where.conditions;
  query.where.push_back({*sdk::FieldPath::parse("timestamp"), sdk::Op::gte,
                         json::value(retention_horizon(http.plan, http.now))});
  query.text = request.text;
  query.rank_by_text = request.text.has_value() && !request.vector_text;
  query.order = request.order;
  query.limit = 0;  // every match up to scan_limit: aggregations see them all
  query.scan_limit = request.scan_limit;
  query.with_embeddings = request.vector_text.has_value();

  std::vector<sdk::Record> records;
  std::vector<double> scores;
  const sdk::ScanStats stats = storage.call([&](sdk::Storage& s) {
    return s.scan(tenant, query, [&](const sdk::Record& record, double score) {
      records.push_back(record);
      scores.push_back(score);
      return true;
    });
  });

  // Authoritative order: semantic similarity, else BM25 (as storage delivered it), else time.
  std::vector<std::size_t> order(records.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    order[i] = i;
  const bool semantic = request.vector_text.has_value();
  const bool ranked = semantic || query.rank_by_text;
  if (semantic) {
    const auto target = modules_.embedder().call(
        [&](const sdk::Embedder& embedder) { return embedder.embed(*request.vector_text); });
    for (std::size_t i = 0; i < records.size(); ++i) {
      scores[i] = sdk::cosine_similarity(target, records[i].embedding);
    }
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      if (scores[a] != scores[b]) return scores[a] > scores[b];
      if (records[a].timestamp != records[b].timestamp)
        return records[a].timestamp > records[b].timestamp;
      return records[a].id < records[b].id;
    });
  }

  // Aggregations, groups and relationships see every match, excluded ids included.
  const auto bound = bind(request, modules_);
  AggregationSet aggregations(bound);
  GroupBuilder groups(request, bound);
  RelationshipBuilder relationships(request.relationship_fields, request.relationship_limit);
  const bool grouping = !request.group_by.empty() || request.time_bucket;
  for (const auto& record : records) {
    if (!bound.empty()) aggregations.add(record);
    if (grouping) groups.add(record);
    if (!request.relationship_fields.empty()) relationships.add(record);
  }

  // Results and the Context Pack see the matches not excluded by the request.
  std::vector<std::size_t> kept;
  std::size_t excluded = 0;
  for (const auto index : order) {
    if (request.excluded_ids.contains(records[index].id)) {
      ++excluded;
    } else {
      kept.push_back(index);
    }
  }
  const std::size_t shown = std::min(kept.size(), request.limit);
  std::vector<std::set<std::string>> roles(records.size());
  for (std::size_t i = 0; i < shown; ++i)
    roles[kept[i]].insert("match");

  json::array temporal_windows;
  if (request.temporal) {
    std::unordered_map<std::string, std::vector<std::size_t>> shown_by_id;
    for (std::size_t i = 0; i < shown; ++i)
      shown_by_id[records[kept[i]].id].push_back(kept[i]);
    for (std::size_t i = 0; i < std::min(shown, kMaxTemporalAnchors); ++i) {
      const sdk::Record& anchor = records[kept[i]];
      const auto neighbors = storage.call([&](sdk::Storage& s) {
        return s.neighbors(tenant, request.source, anchor, request.temporal->before,
                           request.temporal->after);
      });
      roles[kept[i]].insert("anchor");
      json::array before;
      json::array after;
      for (const auto& id : neighbors.before)
        before.emplace_back(id);
      for (const auto& id : neighbors.after)
        after.emplace_back(id);
      for (const auto* list : {&neighbors.before, &neighbors.after}) {
        for (const auto& id : *list) {
          if (const auto it = shown_by_id.find(id); it != shown_by_id.end()) {
            for (const auto index : it->second)
              roles[index].insert("temporal_neighbor");
          }
        }
      }
      temporal_windows.emplace_back(json::object{
          {"anchor_id", anchor.id}, {"before", std::move(before)}, {"after", std::move(after)}});
    }
  }

  const auto status = storage.call([&](sdk::Storage& s) { return s.status(tenant); });
  const sdk::Millis expected_freshness =
      request.context ? request.context->expected_freshness_ms : 900000;
  json::object freshness;
  freshness["newest_timestamp"] = status.newest_timestamp
                                      ? json::value(sdk::format_rfc3339(*status.newest_timestamp))
                                      : json::value(nullptr);
  freshness["newest_ingested_at"] =
      status.newest_ingested_at ? json::value(sdk::format_rfc3339(*status.newest_ingested_at))
                                : json::value(nullptr);
  if (status.newest_timestamp) {
    const sdk::Millis lag = http.now - *status.newest_timestamp;
    freshness["lag_ms"] = lag;
    freshness["stale"] = lag > expected_freshness;
  } else {
    freshness["lag_ms"] = nullptr;
    freshness["stale"] = true;
  }
  freshness["projection_backlog"] = status.projection_backlog;

  json::object context;
  if (request.context) {
    sdk::ContextInput input;
    for (const auto index : kept)
      input.records.push_back(&records[index]);
    input.result_limit = shown;
    input.request = *request.context;
    input.subject_fields = request.group_by;
    input.attributes = named_attributes(request);
    input.excluded_by_request = excluded;
    input.scan_complete = stats.complete;
    input.now = http.now;
    const auto* mode = modules_.context_mode(request.context->mode);
    sdk::ContextOutput output =
        mode->call([&](const sdk::ContextMode& m) { return m.build(input); });
    for (const auto& citation : output.citations) {
      if (citation.record < kept.size()) roles[kept[citation.record]].insert(citation.role);
    }
    context = std::move(output.context);
    if (const auto& audit = modules_.audit()) {
      const auto trace = audit.call([&](sdk::AuditSink& sink) {
        return sink.record({http.principal, "analyze", body, context, http.now});
      });
      if (trace) context["audit_trace_id"] = *trace;
    }
  }

  json::object answer;
  answer["success"] = true;
  answer["execution_mode"] = semantic ? "semantic" : (stats.indexed ? "optimized" : "bounded");
  answer["complete"] = stats.complete;
  answer["scanned"] = stats.scanned;
  answer["elapsed_ms"] = 0;  // set last
  answer["source"] = sdk::source_name(request.source);
  answer["filtered"] = stats.scanned - stats.matched;
  answer["matched"] = stats.matched;
  answer["freshness"] = std::move(freshness);
  if (!bound.empty()) answer["aggregations"] = aggregations.results();
  if (grouping) answer["groups"] = groups.results();
  if (!request.relationship_fields.empty()) answer["relationships"] = relationships.results();
  if (request.temporal) answer["temporal_windows"] = std::move(temporal_windows);
  if (request.context) answer["context"] = std::move(context);
  if (request.include_results) {
    json::array results;
    for (std::size_t i = 0; i < shown; ++i) {
      const std::size_t index = kept[i];
      json::object result = sdk::record_to_json(records[index]);
      result["evidence_rank"] = i + 1;
      json::array role_list;
      for (const auto& role : roles[index])
        role_list.emplace_back(role);
      result["source_roles"] = std::move(role_list);
      if (ranked) result["relevance"] = json::object{{"score", rounded(scores[index])}};
      results.emplace_back(std::move(result));
    }
    answer["results"] = std::move(results);
  }
  answer["elapsed_ms"] = elapsed_ms_since(started);
  return answer;
}

}  // namespace eventsvc::host
