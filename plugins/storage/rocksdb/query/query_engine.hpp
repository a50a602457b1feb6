// Executes reads: plans candidates, reads each candidate record, confirms it against every
// condition and the text query (the SDK's evaluator: the definition of a match), and delivers
// matches in time order or, for ranked text queries, by BM25 score.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "chunks/text_scorer.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "query/column_reader.hpp"
#include "query/query_planner.hpp"
#include "query/read_order.hpp"
#include "store/database.hpp"
#include "write/verdicts.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class QueryEngine {
 public:
  QueryEngine(Database& database, Verdicts& verdicts, ColumnReader& columns,
              std::size_t collect_limit)
      : database_(database),
        verdicts_(verdicts),
        columns_(columns),
        planner_(database, collect_limit, !columns.chunk_indexed()) {}

  // `embedding_model`: the active embedder's model, for with_embeddings ("" when none).
  sdk::ScanStats scan(const sdk::Tenant& tenant, const sdk::RecordQuery& query,
                      const sdk::RecordVisitor& visit, const std::string& embedding_model);

  // scan()'s matches as answer bytes spliced from the stored records (Storage::scan_json); nullopt
  // for what scan() alone answers: text, embeddings, and conditions on ids or, without chunk
  // indexes, on anything but time.
  std::optional<sdk::ScanStats> scan_json(const sdk::Tenant& tenant, const sdk::RecordQuery& query,
                                          const sdk::RecordJsonVisitor& visit);

  // None older than `not_before`.
  sdk::Neighbors neighbors(const sdk::Tenant& tenant, sdk::Source source, const sdk::Record& anchor,
                           std::size_t before, std::size_t after, sdk::Millis not_before);

  // The newest timestamp and ingested_at in the tenant's history.
  std::pair<std::optional<sdk::Millis>, std::optional<sdk::Millis>> newest(
      const sdk::Tenant& tenant);

 private:
  // The version's record; with `fields`, only what they name (decode_record_fields).
  std::optional<sdk::Record> load(const std::string& tenant, const VersionRef& ref,
                                  const std::vector<sdk::FieldPath>& fields = {});
  // Fills what a delivered record carries beyond its stored form.
  void complete(const std::string& tenant, sdk::Record& record, const sdk::RecordQuery& query,
                const std::string& embedding_model);
  // BM25 for a ranked text query: the query's own statistics (a later page), the chunks'
  // statistics, or the counters of a database from before chunk indexes (text_scorer.hpp); states
  // the statistics in `stats` when it has them.
  TextScorer scorer_for(const std::string& tenant, const sdk::RecordQuery& query,
                        sdk::ScanStats& stats);
  // The ScoredWordsPlan path: score every candidate from its postings, read only the best.
  sdk::ScanStats scan_scored_words(const std::string& tenant, const sdk::RecordQuery& query,
                                   ScoredWordsPlan plan, const sdk::RecordVisitor& visit,
                                   const std::string& embedding_model);

  // A query of nothing but time bounds (only_time_bounds()): the versions within them in its
  // order, after its position, to its limit or scan_limit, the bounds checked on their keys.
  // `deliver(plan, candidates)` hands the current one on: nullopt when it is not a match after
  // all, else whether to go on.
  template <typename Deliver>
  sdk::ScanStats walk_time_range(const std::string& tenant, const sdk::RecordQuery& query,
                                 Deliver deliver);

  // Called with each match's stored record (stored_formats.hpp) and score; false stops the read.
  using StoredVisitor = std::function<bool(std::string_view stored, double score)>;
  // Hands scan()'s visitor the decoded, completed record.
  StoredVisitor decoding(const std::string& tenant, const sdk::RecordQuery& query,
                         const sdk::RecordVisitor& visit, const std::string& embedding_model);
  // Hands scan_json()'s visitor the record's answer bytes.
  StoredVisitor splicing(const std::string& tenant, const sdk::RecordJsonVisitor& visit);

  // Conditions that no index narrows, and text queries, answered from the column chunks and their
  // postings; nullopt when the columns cannot answer. With `by_version`, each match is handed to
  // it as a record of its id and timestamp alone, without reading it (versions_answer()).
  std::optional<sdk::ScanStats> scan_columns(const sdk::Tenant& tenant,
                                             const sdk::RecordQuery& query,
                                             const StoredVisitor& deliver,
                                             const sdk::RecordVisitor* by_version = nullptr);

  Database& database_;
  Verdicts& verdicts_;
  ColumnReader& columns_;
  QueryPlanner planner_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
