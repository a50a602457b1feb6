#include "analysis/match_stage.hpp"

#include <algorithm>

namespace eventsvc::host {

namespace {

// Similarity order: the closer first; ties newer first, then by id.
bool closer(double score_a, sdk::Millis at_a, std::string_view id_a, double score_b,
            sdk::Millis at_b, std::string_view id_b) {
  if (score_a != score_b) return score_a > score_b;
  if (at_a != at_b) return at_a > at_b;
  return id_a < id_b;
}

// Orders by similarity to the request's vector text (ties: newer, then id).
void rank_semantically(const AnalyzeRequest& request, const ModuleRegistry& modules,
                       Matches& matches) {
  const auto target = modules.embedder().call(
      [&](const sdk::Embedder& embedder) { return embedder.embed(*request.vector_text); });
  const auto& records = matches.records;
  for (std::size_t i = 0; i < records.size(); ++i) {
    matches.scores[i] = sdk::cosine_similarity(target, records[i].embedding);
  }
  const auto& scores = matches.scores;
  std::stable_sort(matches.order.begin(), matches.order.end(), [&](std::size_t a, std::size_t b) {
    return closer(scores[a], records[a].timestamp, records[a].id, scores[b], records[b].timestamp,
                  records[b].id);
  });
}

}  // namespace

sdk::RecordQuery match_query(const AnalyzeRequest& request,
                             const std::vector<sdk::Condition>& where) {
  const bool semantic = request.vector_text.has_value();
  sdk::RecordQuery query;
  query.source = request.source;
  query.where = where;
  query.text = request.text;
  query.rank_by_text = request.text.has_value() && !semantic;
  query.order = request.order;
  query.limit = 0;
  query.scan_limit = request.scan_limit;
  query.with_embeddings = semantic;
  // Semantic order is the host's: a later page is cut from it after ranking.
  if (!semantic) query.after = request.after;
  query.rank_statistics = request.rank_statistics;
  return query;
}

Matches run_match_stage(const AnalyzeRequest& request, const std::vector<sdk::Condition>& where,
                        bool aggregated, bool pack_reads_cells, const ModuleRegistry& modules,
                        const sdk::Tenant& tenant) {
  Matches matches;
  matches.semantic = request.vector_text.has_value();
  sdk::RecordQuery query = match_query(request, where);
  matches.ranked = matches.semantic || query.rank_by_text;

  const bool counted_elsewhere = aggregated || pack_reads_cells;
  const bool every_match = !counted_elsewhere ||
                           (request.context.has_value() && !pack_reads_cells) ||
                           !request.relationship_fields.empty() || matches.semantic;
  if (every_match) {
    query.limit = 0;  // every match up to scan_limit
  } else {
    const bool shows_results = request.include_results || request.temporal.has_value();
    if (!shows_results) return matches;  // aggregates only: nothing to materialise
    // Excluded ids can hide any number of versions: then read on until `limit` are kept. One
    // more tells whether a next page exists (read even when scan_limit is `limit`).
    query.limit = request.excluded_ids.empty() ? request.limit + 1 : 0;
    query.scan_limit = std::max(query.scan_limit, request.limit + 1);
  }

  matches.read = true;
  std::size_t kept = 0;
  matches.stats = modules.storage().call([&](sdk::Storage& storage) {
    return storage.scan(tenant, query, [&](sdk::Record& record, double score) {
      if (!request.excluded_ids.contains(record.id)) ++kept;
      matches.records.push_back(std::move(record));
      matches.scores.push_back(score);
      return every_match || kept <= request.limit;
    });
  });
  matches.order.resize(matches.records.size());
  for (std::size_t i = 0; i < matches.order.size(); ++i)
    matches.order[i] = i;
  if (matches.semantic) rank_semantically(request, modules, matches);
  if (matches.semantic && request.after) {
    const sdk::ReadPosition& after = *request.after;
    // What the previous page showed: everything not after its last record.
    std::erase_if(matches.order, [&](std::size_t i) {
      const sdk::Record& record = matches.records[i];
      return !closer(after.score, after.timestamp, after.id, matches.scores[i], record.timestamp,
                     record.id);
    });
  }
  return matches;
}

}  // namespace eventsvc::host
