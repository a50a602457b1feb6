#include "analysis/evidence_stages.hpp"

#include <algorithm>
#include <unordered_map>

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

// Temporal windows are computed for at most this many leading results.
constexpr std::size_t kMaxTemporalAnchors = 20;

// Payload and metrics paths the request names: the attributes a decision packet is about.
std::vector<sdk::FieldPath> named_attributes(const AnalyzeRequest& request) {
  std::vector<sdk::FieldPath> named;
  auto add = [&](const sdk::FieldPath& field) {
    if (field.root == sdk::FieldPath::Root::canonical || field.segments.empty()) return;
    if (std::find(named.begin(), named.end(), field) == named.end()) named.push_back(field);
  };
  for (const auto& condition : request.where)
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

json::value optional_instant(const std::optional<sdk::Millis>& instant) {
  return instant ? json::value(sdk::format_rfc3339(*instant)) : json::value(nullptr);
}

}  // namespace

Selection select_results(const AnalyzeRequest& request, const Matches& matches) {
  Selection selection;
  for (const auto index : matches.order) {
    if (request.excluded_ids.contains(matches.records[index].id)) {
      ++selection.excluded;
    } else {
      selection.kept.push_back(index);
    }
  }
  selection.shown = std::min(selection.kept.size(), request.limit);
  selection.roles.resize(matches.records.size());
  for (std::size_t i = 0; i < selection.shown; ++i)
    selection.roles[selection.kept[i]].insert("match");
  return selection;
}

json::array temporal_windows(const AnalyzeRequest& request, const Matches& matches,
                             Selection& selection, const ModuleRegistry& modules,
                             const sdk::Tenant& tenant) {
  json::array windows;
  std::unordered_map<std::string, std::vector<std::size_t>> shown_by_id;
  for (std::size_t i = 0; i < selection.shown; ++i) {
    shown_by_id[matches.records[selection.kept[i]].id].push_back(selection.kept[i]);
  }
  for (std::size_t i = 0; i < std::min(selection.shown, kMaxTemporalAnchors); ++i) {
    const sdk::Record& anchor = matches.records[selection.kept[i]];
    const auto neighbors = modules.storage().call([&](sdk::Storage& s) {
      return s.neighbors(tenant, request.source, anchor, request.temporal->before,
                         request.temporal->after);
    });
    selection.roles[selection.kept[i]].insert("anchor");
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
            selection.roles[index].insert("temporal_neighbor");
        }
      }
    }
    windows.emplace_back(json::object{
        {"anchor_id", anchor.id}, {"before", std::move(before)}, {"after", std::move(after)}});
  }
  return windows;
}

json::object freshness(const AnalyzeRequest& request, const sdk::StorageStatus& status,
                       const std::vector<const sdk::Record*>* matched, sdk::Millis now) {
  const sdk::Millis expected = request.context ? request.context->expected_freshness_ms : 900000;
  json::object out;
  out["newest_timestamp"] = optional_instant(status.newest_timestamp);
  out["newest_ingested_at"] = optional_instant(status.newest_ingested_at);
  if (status.newest_timestamp) {
    const sdk::Millis lag = now - *status.newest_timestamp;
    out["lag_ms"] = lag;
    out["stale"] = lag > expected;
  } else {
    out["lag_ms"] = nullptr;
    out["stale"] = true;
  }
  out["projection_backlog"] = status.projection_backlog;
  // The records this answer is about, as a context pack sees them (its own `freshness`), when they
  // were read (an answer of aggregations alone reads none).
  if (matched != nullptr) out["matched"] = sdk::records_freshness(*matched, expected, now);
  return out;
}

json::object context_pack(const AnalyzeRequest& request, const Matches& matches,
                          Selection& selection, bool complete, const ModuleRegistry& modules,
                          sdk::Millis now) {
  sdk::ContextInput input;
  for (const auto index : selection.kept)
    input.records.push_back(&matches.records[index]);
  input.result_limit = selection.shown;
  input.request = *request.context;
  input.subject_fields = request.group_by;
  input.attributes = named_attributes(request);
  input.excluded_by_request = selection.excluded;
  input.scan_complete = complete;
  input.now = now;
  const auto* mode = modules.context_mode(request.context->mode);
  sdk::ContextOutput output = mode->call([&](const sdk::ContextMode& m) { return m.build(input); });
  for (const auto& citation : output.citations) {
    if (citation.record < selection.kept.size()) {
      selection.roles[selection.kept[citation.record]].insert(citation.role);
    }
  }
  return std::move(output.context);
}

}  // namespace eventsvc::host
