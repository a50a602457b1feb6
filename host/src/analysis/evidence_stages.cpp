#include "analysis/evidence_stages.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "eventsvc/toolkit/context_pack.hpp"
#include "eventsvc/toolkit/time.hpp"

namespace eventsvc::host {

namespace json = sdk::json;

namespace {

// Temporal windows are computed for at most this many leading results.
constexpr std::size_t kMaxTemporalAnchors = 20;

// Adds `field` to `attributes` once, when it is a payload or metrics path.
void add_attribute(std::vector<sdk::FieldPath>& attributes, const sdk::FieldPath& field) {
  if (field.root == sdk::FieldPath::Root::canonical || field.segments.empty()) return;
  if (std::find(attributes.begin(), attributes.end(), field) == attributes.end())
    attributes.push_back(field);
}

// Payload and metrics paths the request names: the attributes a decision packet is about.
std::vector<sdk::FieldPath> named_attributes(const AnalyzeRequest& request) {
  std::vector<sdk::FieldPath> named;
  auto add = [&](const sdk::FieldPath& field) { add_attribute(named, field); };
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

// Of those, the ones the request treats as categories: a number there is a code, not a reading.
std::vector<sdk::FieldPath> state_attributes(const AnalyzeRequest& request) {
  std::vector<sdk::FieldPath> states;
  auto add = [&](const sdk::FieldPath& field) { add_attribute(states, field); };
  for (const auto& condition : request.where) {
    if (condition.op == sdk::Op::eq || condition.op == sdk::Op::in) add(condition.field);
  }
  for (const auto& spec : request.aggregations) {
    if (spec.field && spec.op == "distinct") add(*spec.field);
  }
  for (const auto& field : request.relationship_fields)
    add(field);
  return states;
}

json::value optional_instant(const std::optional<sdk::Millis>& instant) {
  return instant ? json::value(toolkit::format_rfc3339(*instant)) : json::value(nullptr);
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
                             const sdk::Tenant& tenant, sdk::Millis horizon) {
  json::array windows;
  std::unordered_map<std::string, std::vector<std::size_t>> shown_by_id;
  for (std::size_t i = 0; i < selection.shown; ++i) {
    shown_by_id[matches.records[selection.kept[i]].id].push_back(selection.kept[i]);
  }
  for (std::size_t i = 0; i < std::min(selection.shown, kMaxTemporalAnchors); ++i) {
    const sdk::Record& anchor = matches.records[selection.kept[i]];
    const auto neighbors = modules.storage().call([&](sdk::Storage& s) {
      return s.neighbors(tenant, request.source, anchor, request.temporal->before,
                         request.temporal->after, horizon);
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
  if (matched != nullptr) out["matched"] = toolkit::records_freshness(*matched, expected, now);
  return out;
}

bool pack_reads_storage_cells(const AnalyzeRequest& request, const ModuleRegistry& modules) {
  if (!request.context || request.text || request.vector_text ||
      !request.relationship_fields.empty()) {
    return false;
  }
  const auto* mode = modules.context_mode(request.context->mode);
  return mode->call([](const sdk::ContextMode& m) { return m.reads_every_match(); });
}

namespace {

// The records of `keys` from storage, in the order asked.
std::vector<sdk::Record> load_records(const AnalyzeRequest& request,
                                      const std::vector<sdk::RecordKey>& keys,
                                      const ModuleRegistry& modules, const sdk::Tenant& tenant) {
  json::array ids;
  for (const auto& key : keys)
    ids.emplace_back(key.id);
  sdk::RecordQuery query;
  query.source = request.source;
  query.where.push_back({*sdk::FieldPath::parse("id"), sdk::Op::in, std::move(ids)});
  query.limit = 0;
  query.scan_limit = std::numeric_limits<std::size_t>::max();
  std::map<std::pair<std::string, sdk::Millis>, sdk::Record> found;
  modules.storage().call([&](sdk::Storage& storage) {
    return storage.scan(tenant, query, [&](sdk::Record& record, double) {
      found.emplace(std::pair(record.id, record.timestamp), std::move(record));
      return true;
    });
  });
  std::vector<sdk::Record> records;
  for (const auto& key : keys) {
    const auto it = found.find({key.id, key.timestamp});
    if (it != found.end()) records.push_back(it->second);
  }
  return records;
}

// `block` without the rows `dropped` marks, into `out` (values stay where they are).
void keep_rows(const sdk::CellBlock& block, const std::vector<bool>& dropped, sdk::CellBlock& out) {
  out.clear(0);
  out.fields.resize(block.fields.size());
  for (std::size_t f = 0; f < block.fields.size(); ++f) {
    out.fields[f].path = block.fields[f].path;
    out.fields[f].values = block.fields[f].values;
  }
  for (std::size_t row = 0; row < block.rows(); ++row) {
    if (dropped[row]) continue;
    out.ids.push_back(block.ids[row]);
    out.timestamps.push_back(block.timestamps[row]);
    out.verifications.push_back(block.verifications[row]);
    out.json_sizes.push_back(block.json_sizes[row]);
    for (std::size_t f = 0; f < block.fields.size(); ++f)
      out.fields[f].rows.push_back(block.fields[f].rows[row]);
  }
}

// Serves the pack's cells from storage, without the excluded records, and finds the rows of the
// shown results among them.
class StorageCells {
 public:
  StorageCells(const AnalyzeRequest& request, const std::vector<sdk::Condition>& where,
               const Matches& matches, const Selection& selection, const ModuleRegistry& modules,
               const sdk::Tenant& tenant)
      : query_{match_query(request, where), {}},
        excluded_ids_(request.excluded_ids),
        modules_(modules),
        tenant_(tenant) {
    for (std::size_t i = 0; i < selection.shown; ++i) {
      const sdk::Record& record = matches.records[selection.kept[i]];
      shown_.emplace(std::pair(record.id, record.timestamp), selection.kept[i]);
      earliest_shown_ = std::min(earliest_shown_, record.timestamp);
      latest_shown_ = std::max(latest_shown_, record.timestamp);
    }
  }

  bool read(const sdk::CellFields& fields, const sdk::CellVisitor& visit) {
    query_.fields = fields;
    stats_ = modules_.storage().call([&](sdk::Storage& storage) {
      return storage.scan_cells(tenant_, query_, [&](const sdk::CellBlock& all) {
        const sdk::CellBlock& block = without_excluded(all);
        for (std::size_t row = 0; row < block.rows(); ++row) {
          const sdk::Millis at = block.timestamps[row];
          if (!newest_ || at > *newest_) newest_ = at;
          if (shown_.empty() || at < earliest_shown_ || at > latest_shown_) continue;
          const auto it = shown_.find({std::string(block.ids[row]), at});
          if (it != shown_.end()) shown_rows_.emplace(rows_ + row, it->second);
        }
        rows_ += block.rows();
        return visit(block);
      });
    });
    return stats_.complete;
  }

  // The shown match at a row, if the row is one.
  std::optional<std::size_t> shown_at(std::size_t row) const {
    const auto it = shown_rows_.find(row);
    if (it == shown_rows_.end()) return std::nullopt;
    return it->second;
  }
  const sdk::ScanStats& stats() const { return stats_; }
  std::optional<sdk::Millis> newest() const { return newest_; }
  std::size_t excluded() const { return excluded_; }

 private:
  // The block as it is, or a copy without the rows the request excludes.
  const sdk::CellBlock& without_excluded(const sdk::CellBlock& block) {
    if (excluded_ids_.empty()) return block;
    dropped_.assign(block.rows(), false);
    std::size_t dropped = 0;
    for (std::size_t row = 0; row < block.rows(); ++row) {
      // Ids are matched as the request's strings; a view is looked up by copying it.
      if (excluded_ids_.contains(std::string(block.ids[row]))) {
        dropped_[row] = true;
        ++dropped;
      }
    }
    if (dropped == 0) return block;
    excluded_ += dropped;
    keep_rows(block, dropped_, kept_);
    return kept_;
  }

  sdk::CellQuery query_;
  const std::unordered_set<std::string>& excluded_ids_;
  std::vector<bool> dropped_;
  sdk::CellBlock kept_;
  std::size_t excluded_ = 0;
  const ModuleRegistry& modules_;
  const sdk::Tenant& tenant_;
  std::map<std::pair<std::string, sdk::Millis>, std::size_t> shown_;  // -> index into matches
  sdk::Millis earliest_shown_ = std::numeric_limits<sdk::Millis>::max();
  sdk::Millis latest_shown_ = std::numeric_limits<sdk::Millis>::min();
  std::unordered_map<std::size_t, std::size_t> shown_rows_;  // row -> index into matches
  std::size_t rows_ = 0;
  sdk::ScanStats stats_;
  std::optional<sdk::Millis> newest_;
};

}  // namespace

Pack context_pack(const AnalyzeRequest& request, const std::vector<sdk::Condition>& where,
                  const Matches& matches, Selection& selection, bool complete,
                  bool from_storage_cells, const ModuleRegistry& modules, const sdk::Tenant& tenant,
                  sdk::Millis now) {
  sdk::ContextInput input;
  input.request = *request.context;
  input.subject_fields = request.group_by;
  input.attributes = named_attributes(request);
  input.state_attributes = state_attributes(request);
  input.now = now;
  const auto* mode = modules.context_mode(request.context->mode);
  std::optional<StorageCells> cells;
  if (from_storage_cells) {
    cells.emplace(request, where, matches, selection, modules, tenant);
    input.cells = [&](const sdk::CellFields& fields, const sdk::CellVisitor& visit) {
      const bool complete = cells->read(fields, visit);
      input.excluded_by_request = cells->excluded();
      return complete;
    };
    input.load = [&](const std::vector<sdk::RecordKey>& keys) {
      return load_records(request, keys, modules, tenant);
    };
  } else {
    std::vector<const sdk::Record*> kept;
    kept.reserve(selection.kept.size());
    for (const auto index : selection.kept)
      kept.push_back(&matches.records[index]);
    input.excluded_by_request = selection.excluded;
    input.scan_complete = complete;
    toolkit::serve_cells_from_records(input, std::move(kept));
  }
  for (std::size_t i = 0; i < selection.shown && i < selection.kept.size(); ++i)
    input.results.push_back(&matches.records[selection.kept[i]]);
  sdk::ContextOutput output = mode->call([&](const sdk::ContextMode& m) { return m.build(input); });
  for (const auto& citation : output.citations) {
    if (cells) {
      if (const auto shown = cells->shown_at(citation.record))
        selection.roles[*shown].insert(citation.role);
    } else if (citation.record < selection.kept.size()) {
      selection.roles[selection.kept[citation.record]].insert(citation.role);
    }
  }
  Pack pack{std::move(output.context), std::nullopt, std::nullopt};
  if (cells) {
    pack.read = cells->stats();
    pack.newest = cells->newest();
  }
  return pack;
}

}  // namespace eventsvc::host
