#include "query/query_engine.hpp"

#include <algorithm>
#include <map>

#include "chunks/text_scorer.hpp"
#include "eventsvc/toolkit/condition.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "store/key_codec.hpp"
#include "store/record_text.hpp"
#include "store/stored_formats.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

struct Ranked {
  double score;
  sdk::Record record;
};

// Whether a condition looks ids up (eq or in on id): the id index serves it in either scope.
bool names_ids(const std::vector<sdk::Condition>& where) {
  return std::any_of(where.begin(), where.end(), [](const sdk::Condition& condition) {
    return condition.field.is_canonical(sdk::CanonicalField::id) &&
           (condition.op == sdk::Op::eq || condition.op == sdk::Op::in);
  });
}

// Whether every condition is a time bound that timestamp_bounds() captures exactly.
bool only_time_bounds(const std::vector<sdk::Condition>& where) {
  return std::all_of(where.begin(), where.end(), [](const sdk::Condition& condition) {
    return condition.field.is_canonical(sdk::CanonicalField::timestamp) &&
           condition.operand.is_int64() &&
           (condition.op == sdk::Op::eq || condition.op == sdk::Op::gt ||
            condition.op == sdk::Op::gte || condition.op == sdk::Op::lt ||
            condition.op == sdk::Op::lte);
  });
}

// Whether every field a query names is one that a match's version names (its id, its timestamp):
// its answer is then given without reading a record, as an index-only scan is (RecordQuery::fields
// lets an engine deliver those alone).
bool versions_answer(const sdk::RecordQuery& query) {
  if (query.fields.empty() || query.with_embeddings) return false;
  return std::all_of(query.fields.begin(), query.fields.end(), [](const sdk::FieldPath& field) {
    return field.root == sdk::FieldPath::Root::canonical &&
           (field.canonical == sdk::CanonicalField::id ||
            field.canonical == sdk::CanonicalField::timestamp);
  });
}

// How a query delivers its matches.
ReadOrder read_order(const sdk::RecordQuery& query) {
  return {query.order, query.rank_by_text && query.text.has_value()};
}

}  // namespace

std::optional<sdk::Record> QueryEngine::load(const std::string& tenant, const VersionRef& ref,
                                             const std::vector<sdk::FieldPath>& fields) {
  const auto value = database_.get(database_.history, version_key(tenant, ref.timestamp, ref.id));
  if (!value) return std::nullopt;
  return decode_record_fields(*value, fields);
}

void QueryEngine::complete(const std::string& tenant, sdk::Record& record,
                           const sdk::RecordQuery& query, const std::string& embedding_model) {
  // A reader naming fields takes none of a record's other parts (RecordQuery::fields).
  if (query.fields.empty()) record.verification = verdicts_.of(tenant, record.receipt_id);
  if (query.with_embeddings && !embedding_model.empty()) {
    if (const auto vector =
            database_.get(database_.vectors, version_key(tenant, record.timestamp, record.id))) {
      record.embedding = decode_embedding(*vector, embedding_model);
    }
  }
}

TextScorer QueryEngine::scorer_for(const std::string& tenant, const sdk::RecordQuery& query,
                                   sdk::ScanStats& stats) {
  if (query.rank_statistics) {
    stats.rank_statistics = query.rank_statistics;
    return TextScorer(from_rank_statistics(*query.rank_statistics));
  }
  if (columns_.chunk_indexed()) {
    auto statistics = columns_.text_statistics(nullptr, tenant, *query.text);
    stats.rank_statistics = to_rank_statistics(*statistics);
    return TextScorer(std::move(statistics));
  }
  return TextScorer(database_, tenant, scope_of(query.source));
}

sdk::ScanStats QueryEngine::scan_scored_words(const std::string& tenant,
                                              const sdk::RecordQuery& query, ScoredWordsPlan plan,
                                              const sdk::RecordVisitor& visit,
                                              const std::string& embedding_model) {
  sdk::ScanStats stats;
  TextScorer scorer = scorer_for(tenant, query, stats);
  struct Candidate {
    double score;
    VersionRef ref;
  };
  const ReadOrder order{query.order, true};
  const auto after = PagePosition::of(query);
  auto better = [&order](const Candidate& a, const Candidate& b) {
    return order.before(a.score, a.ref, b.score, b.ref);
  };
  // A heap whose top is the worst of the best `limit` so far.
  std::vector<Candidate> best;
  stats.indexed = true;
  for (CandidateStream& candidates = *plan.candidates; candidates.valid(); candidates.next()) {
    if (stats.scanned >= query.scan_limit) {
      stats.complete = false;
      break;
    }
    ++stats.scanned;
    ++stats.matched;
    double score = 0;
    for (std::size_t i = 0; i < plan.words.size(); ++i) {
      const auto [frequency, length] = decode_posting(plan.words[i]->value());
      score += scorer.term(query.text->words[i], frequency, length);
    }
    Candidate candidate{score, candidates.current()};
    if (after && !after->admits(order, candidate.score, candidate.ref)) continue;
    if (best.size() < query.limit) {
      best.push_back(std::move(candidate));
      std::push_heap(best.begin(), best.end(), better);
    } else if (better(candidate, best.front())) {
      std::pop_heap(best.begin(), best.end(), better);
      best.back() = std::move(candidate);
      std::push_heap(best.begin(), best.end(), better);
    }
  }
  std::sort_heap(best.begin(), best.end(), better);
  for (const auto& candidate : best) {
    auto record = load(tenant, candidate.ref, query.fields);
    if (!record) continue;
    complete(tenant, *record, query, embedding_model);
    if (!visit(*record, candidate.score)) break;
  }
  return stats;
}

template <typename Deliver>
sdk::ScanStats QueryEngine::walk_time_range(const std::string& tenant,
                                            const sdk::RecordQuery& query, Deliver deliver) {
  const ReadOrder order = read_order(query);
  const auto after = PagePosition::of(query);
  const toolkit::TimeBounds asked = toolkit::timestamp_bounds(query.where);
  toolkit::TimeBounds bounds = asked;
  if (after) after->narrow(order, bounds);
  const QueryPlan plan = planner_.plan(tenant, query, bounds);
  sdk::ScanStats stats;
  stats.indexed = plan.indexed;
  for (CandidateStream& candidates = *plan.candidates; candidates.valid(); candidates.next()) {
    if (stats.scanned >= query.scan_limit) {
      stats.complete = false;
      break;
    }
    ++stats.scanned;
    const VersionRef& ref = candidates.current();
    if (ref.timestamp < asked.lower || ref.timestamp > asked.upper) continue;
    if (after && !after->admits(order, 0, ref)) continue;
    const std::optional<bool> go_on = deliver(plan, candidates);
    if (!go_on) continue;
    ++stats.matched;
    if (!*go_on) return stats;
    if (query.limit > 0 && stats.matched >= query.limit) return stats;
  }
  return stats;
}

sdk::ScanStats QueryEngine::scan(const sdk::Tenant& tenant_id, const sdk::RecordQuery& query,
                                 const sdk::RecordVisitor& visit,
                                 const std::string& embedding_model) {
  const std::string tenant = tenant_prefix(tenant_id);
  const ReadOrder order = read_order(query);
  const auto after = PagePosition::of(query);
  toolkit::TimeBounds bounds = toolkit::timestamp_bounds(query.where);
  if (after) after->narrow(order, bounds);
  // Values and words are indexed in the chunks: conditions and text are answered there, unless
  // an id is looked up (the id index) or nothing but time bounds is asked (records read in time
  // order is the plan).
  const auto conditions = std::count_if(query.where.begin(), query.where.end(), [](const auto& c) {
    return !c.field.is_canonical(sdk::CanonicalField::timestamp);
  });
  const sdk::RecordVisitor* by_version = versions_answer(query) ? &visit : nullptr;
  // Nothing but time bounds asked, nothing but ids and timestamps wanted: a version's key holds
  // both, so no record is read or decoded (an index-only scan; decoding each record's JSON was
  // most of a page of ids).
  if (by_version != nullptr && !query.text && only_time_bounds(query.where)) {
    sdk::Record record;
    return walk_time_range(tenant, query, [&](const QueryPlan&, const CandidateStream& candidates) {
      // Assigned in place: the id's buffer is reused from version to version.
      record.id.assign(candidates.current().id);
      record.timestamp = candidates.current().timestamp;
      return std::optional(visit(record, 0.0));
    });
  }
  if (columns_.chunk_indexed() && (query.text || (conditions > 0 && !names_ids(query.where)))) {
    if (auto answered = scan_columns(tenant_id, query,
                                     decoding(tenant, query, visit, embedding_model), by_version))
      return *answered;
  }
  if (query.limit > 0) {
    if (auto scored = planner_.plan_scored_words(tenant, query, bounds)) {
      return scan_scored_words(tenant, query, std::move(*scored), visit, embedding_model);
    }
  }
  QueryPlan plan = planner_.plan(tenant, query, bounds);
  // Several conditions and no selective index stream: intersecting long streams seek by seek, or
  // reading records in time order, costs more than evaluating the named columns.
  if (!query.text && !plan.selective && conditions >= 2) {
    if (auto answered = scan_columns(tenant_id, query,
                                     decoding(tenant, query, visit, embedding_model), by_version))
      return *answered;
  }
  sdk::ScanStats stats;
  stats.indexed = plan.indexed;

  std::optional<TextScorer> scorer;
  if (query.rank_by_text && query.text) scorer.emplace(scorer_for(tenant, query, stats));
  std::vector<Ranked> ranked;
  auto ranked_first = [&order](const Ranked& a, const Ranked& b) {
    return order.before(a.score, {a.record.timestamp, a.record.id}, b.score,
                        {b.record.timestamp, b.record.id});
  };

  CandidateStream& candidates = *plan.candidates;
  for (; candidates.valid(); candidates.next()) {
    if (stats.scanned >= query.scan_limit) {
      stats.complete = false;
      break;
    }
    ++stats.scanned;
    // Unranked, what the previous page delivered is passed over before any record is read.
    if (after && !scorer && !after->admits(order, 0, candidates.current())) continue;
    // A walk of history stands on the record's bytes: no second read.
    auto record = plan.walks_records ? std::optional(decode_record(candidates.value()))
                                     : load(tenant, candidates.current());
    if (!record || !toolkit::matches_all(*record, query.where)) continue;
    std::vector<std::string> tokens;
    if (query.text) {
      tokens = toolkit::record_tokens(*record);
      if (!toolkit::text_matches(*query.text, tokens)) continue;
    }
    const double score = scorer ? scorer->score(*query.text, tokens) : 0;
    if (scorer && after && !after->admits(order, score, {record->timestamp, record->id})) continue;
    ++stats.matched;
    complete(tenant, *record, query, embedding_model);
    if (scorer) {
      ranked.push_back({score, std::move(*record)});
      // Keep memory bounded by the answer size: trim to the best `limit` now and then.
      if (query.limit > 0 && ranked.size() >= query.limit * 2 + 64) {
        std::nth_element(ranked.begin(), ranked.begin() + static_cast<std::ptrdiff_t>(query.limit),
                         ranked.end(), ranked_first);
        ranked.resize(query.limit);
      }
      continue;
    }
    if (!visit(*record, 0.0)) return stats;
    if (query.limit > 0 && stats.matched >= query.limit) return stats;
  }
  if (scorer) {
    std::sort(ranked.begin(), ranked.end(), ranked_first);
    if (query.limit > 0 && ranked.size() > query.limit) ranked.resize(query.limit);
    for (auto& entry : ranked) {
      if (!visit(entry.record, entry.score)) break;
    }
  }
  return stats;
}

std::optional<sdk::ScanStats> QueryEngine::scan_columns(const sdk::Tenant& tenant_id,
                                                        const sdk::RecordQuery& query,
                                                        const StoredVisitor& deliver,
                                                        const sdk::RecordVisitor* by_version) {
  const std::size_t keep = query.limit > 0 ? query.limit : query.scan_limit;
  MatchQuery match = MatchQuery::of(query, keep);
  match.first_only = query.limit > 0;
  const auto after = PagePosition::of(query);
  if (after) match.after = &*after;
  if (query.rank_statistics) match.statistics = from_rank_statistics(*query.rank_statistics);
  auto found = columns_.matches(tenant_id, match);
  if (!found) return std::nullopt;
  sdk::ScanStats stats;
  stats.indexed = true;
  // A later page's statistics go back as they came; the first page's are stated once.
  if (query.rank_statistics) {
    stats.rank_statistics = query.rank_statistics;
  } else if (found->statistics) {
    stats.rank_statistics = to_rank_statistics(*found->statistics);
  }
  stats.scanned = found->scanned;
  stats.matched = found->matched;
  // Every row was examined; only a read bounded by scan_limit can leave matches out.
  stats.complete = query.limit > 0 || found->matched <= keep;
  if (by_version != nullptr) {
    for (std::size_t i = 0; i < found->versions.size(); ++i) {
      sdk::Record record;
      record.id = std::move(found->versions[i].id);
      record.timestamp = found->versions[i].timestamp;
      if (!(*by_version)(record, found->scores[i])) break;
    }
    return stats;
  }
  const std::string tenant = tenant_prefix(tenant_id);
  // Versions are read in batches: one MultiGet per batch finds neighbouring keys in the same
  // blocks instead of searching the index for each (a batch is at most read in vain when the
  // visitor stops early).
  constexpr std::size_t kBatch = 64;
  std::vector<std::string> keys;
  std::vector<rocksdb::PinnableSlice> values;
  std::vector<bool> present;
  for (std::size_t first = 0; first < found->versions.size(); first += kBatch) {
    const std::size_t last = std::min(found->versions.size(), first + kBatch);
    keys.clear();
    for (std::size_t i = first; i < last; ++i)
      keys.push_back(version_key(tenant, found->versions[i].timestamp, found->versions[i].id));
    database_.get_many(database_.history, keys, values, present);
    for (std::size_t i = first; i < last; ++i) {
      if (!present[i - first]) continue;
      if (!deliver(values[i - first].ToStringView(), found->scores[i])) return stats;
    }
  }
  return stats;
}

QueryEngine::StoredVisitor QueryEngine::decoding(const std::string& tenant,
                                                 const sdk::RecordQuery& query,
                                                 const sdk::RecordVisitor& visit,
                                                 const std::string& embedding_model) {
  return [this, &tenant, &query, &visit, &embedding_model](std::string_view stored, double score) {
    sdk::Record record = decode_record_fields(stored, query.fields);
    complete(tenant, record, query, embedding_model);
    return visit(record, score);
  };
}

QueryEngine::StoredVisitor QueryEngine::splicing(const std::string& tenant,
                                                 const sdk::RecordJsonVisitor& visit) {
  // A write's records lie side by side in time, so the last final verdict is kept: most records
  // are answered without a look-up (a pending one is asked again, since it may have changed).
  return [this, &tenant, &visit, json = std::string(), escaped_id = std::string(),
          receipt = std::string(),
          verdict = sdk::Verification::pending](std::string_view stored, double) mutable {
    const StoredRecordText record = read_record_text(stored);
    // The id's text without its quotes, unless an escape must be undone (or it is damaged).
    std::string_view id = record.id;
    if (id.size() >= 2 && id.front() == '"' && id.find('\\') == std::string_view::npos) {
      id = id.substr(1, id.size() - 2);
    } else {
      escaped_id = json_string_value(record.id);
      id = escaped_id;
    }
    if (verdict == sdk::Verification::pending || record.receipt_id != receipt) {
      receipt = record.receipt_id;
      verdict = verdicts_.of(tenant, json_string_value(record.receipt_id));
    }
    json.clear();
    append_record_answer_json(json, record, verdict);
    return visit({id, record.timestamp, json});
  };
}

std::optional<sdk::ScanStats> QueryEngine::scan_json(const sdk::Tenant& tenant_id,
                                                     const sdk::RecordQuery& query,
                                                     const sdk::RecordJsonVisitor& visit) {
  if (query.text || query.rank_by_text || query.with_embeddings) return std::nullopt;
  const std::string tenant = tenant_prefix(tenant_id);
  const StoredVisitor deliver = splicing(tenant, visit);
  if (!only_time_bounds(query.where)) {
    // Other conditions are answered by the chunks' columns, which confirm every one of them.
    if (!columns_.chunk_indexed() || names_ids(query.where)) return std::nullopt;
    return scan_columns(tenant_id, query, deliver);
  }
  // Nothing but time bounds: versions in time order, the bounds checked on their keys.
  return walk_time_range(
      tenant, query,
      [&](const QueryPlan& plan, const CandidateStream& candidates) -> std::optional<bool> {
        if (plan.walks_records) return deliver(candidates.value(), 0.0);
        const VersionRef& ref = candidates.current();
        const auto loaded =
            database_.get(database_.history, version_key(tenant, ref.timestamp, ref.id));
        if (!loaded) return std::nullopt;
        return deliver(*loaded, 0.0);
      });
}

sdk::Neighbors QueryEngine::neighbors(const sdk::Tenant& tenant_id, sdk::Source source,
                                      const sdk::Record& anchor, std::size_t before,
                                      std::size_t after, sdk::Millis not_before) {
  const std::string tenant = tenant_prefix(tenant_id);
  const Scope scope = scope_of(source);
  const auto stream_field = *sdk::FieldPath::parse("stream");
  const VersionRef anchor_ref{anchor.timestamp, anchor.id};
  const PagePosition anchor_position{anchor_ref, 0};
  sdk::Neighbors neighbors;
  auto walk = [&](sdk::Order order, std::size_t count, std::vector<std::string>& out) {
    if (count == 0) return;
    if (columns_.chunk_indexed()) {
      // Streams are indexed in the chunks: the nearest versions after the anchor, in order.
      const auto timestamp = *sdk::FieldPath::parse("timestamp");
      const std::vector<sdk::Condition> where{
          {stream_field, sdk::Op::eq, sdk::json::string(anchor.stream)},
          {timestamp, order == sdk::Order::asc ? sdk::Op::gte : sdk::Op::lte,
           sdk::json::value(anchor.timestamp)},
          {timestamp, sdk::Op::gte, sdk::json::value(not_before)}};
      MatchQuery match;
      match.source = source;
      match.where = &where;
      match.after = &anchor_position;
      match.order = order;
      match.keep = count;
      if (const auto found = columns_.matches(tenant_id, match)) {
        for (const auto& ref : found->versions)
          out.push_back(ref.id);
        return;
      }
    }
    toolkit::TimeBounds bounds;
    (order == sdk::Order::asc ? bounds.lower : bounds.upper) = anchor.timestamp;
    if (order == sdk::Order::desc) bounds.lower = not_before;
    auto stream = planner_.field_equals(tenant, scope, stream_field,
                                        sdk::json::string(anchor.stream), bounds, order);
    stream->seek(anchor_ref);
    for (; stream->valid() && out.size() < count; stream->next()) {
      if (compare(stream->current(), anchor_ref, order) == 0) continue;
      out.push_back(stream->current().id);
    }
  };
  walk(sdk::Order::desc, before, neighbors.before);
  std::reverse(neighbors.before.begin(), neighbors.before.end());
  walk(sdk::Order::asc, after, neighbors.after);
  return neighbors;
}

std::pair<std::optional<sdk::Millis>, std::optional<sdk::Millis>> QueryEngine::newest(
    const sdk::Tenant& tenant_id) {
  const std::string tenant = tenant_prefix(tenant_id);
  auto last_key = [&](rocksdb::ColumnFamilyHandle* family,
                      const std::string& prefix) -> std::optional<std::string> {
    const std::string upper = prefix_successor(prefix);
    const rocksdb::Slice upper_slice(upper);
    const rocksdb::Slice lower_slice(prefix);
    auto it = database_.iterator(family, &upper_slice, &lower_slice);
    it->SeekToLast();
    if (!it->Valid()) return std::nullopt;
    return std::string(it->key().data() + prefix.size(), it->key().size() - prefix.size());
  };
  std::pair<std::optional<sdk::Millis>, std::optional<sdk::Millis>> result;
  if (const auto key = last_key(database_.history, tenant); key && key->size() >= 8) {
    result.first = read_instant(*key);
  }
  if (columns_.chunk_indexed()) {
    result.second = columns_.newest_ingested_at(tenant_id);
  } else if (const auto key =
                 last_key(database_.indexes, field_prefix(tenant, Scope::history, "ingested_at"));
             key && key->size() >= 9) {
    result.second = static_cast<sdk::Millis>(decode_number(*key));
  }
  return result;
}

}  // namespace eventsvc::plugins::rocksdb_storage
