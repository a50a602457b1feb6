// Reads current state and history from the column chunks (column_chunk.hpp), through a snapshot
// (chunk_merger.hpp may rewrite chunks meanwhile), for aggregation pushdown and for queries whose
// conditions no index narrows: chunks outside the time
// bounds are skipped from their headers; in the others only the columns the request names are
// read, conditions are evaluated per cell with the SDK's evaluator (once per dictionary string),
// and the operators are fed column spans. A chunk where a named field holds an object or array
// is read record by record instead, so answers are always those of the record-wise definition.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "chunks/column_chunk.hpp"
#include "chunks/text_scorer.hpp"
#include "eventsvc/sdk/aggregate_pushdown.hpp"
#include "eventsvc/sdk/principal.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/condition.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "query/candidate_stream.hpp"
#include "query/chunk_scanner.hpp"
#include "query/helper_thread.hpp"
#include "query/read_order.hpp"
#include "store/database.hpp"

namespace eventsvc::plugins::rocksdb_storage {

// What matches() looks for.
struct MatchQuery {
  sdk::Source source = sdk::Source::current;
  const std::vector<sdk::Condition>* where = nullptr;
  const sdk::TextQuery* text = nullptr;  // must match too, when set
  const PagePosition* after = nullptr;   // only versions after this one in delivery order
  bool rank = false;  // keep the best `keep` by BM25 score instead of the first by time
  // Ranked: score with these instead of the tenant's statistics now (a later page of a read).
  std::shared_ptr<const TextStatistics> statistics;
  sdk::Order order = sdk::Order::desc;
  std::size_t keep = 0;
  // Only the first `keep` matter (not ranked): chunks that cannot hold one are not read, and
  // `matched` counts the matches of the chunks read.
  bool first_only = false;

  // What a record query asks, keeping `keep` matches.
  static MatchQuery of(const sdk::RecordQuery& query, std::size_t keep) {
    MatchQuery match;
    match.source = query.source;
    match.where = &query.where;
    match.text = query.text ? &*query.text : nullptr;
    match.rank = query.rank_by_text;
    match.order = query.order;
    match.keep = keep;
    return match;
  }
};

struct ColumnMatches {
  std::vector<VersionRef> versions;  // the first `keep` matches, in order (or best first)
  std::vector<double> scores;        // per version: its BM25 score when ranked, else 0
  std::uint64_t scanned = 0;         // rows examined
  std::uint64_t matched = 0;         // rows that matched, all of them (after `after`, when set)
  std::shared_ptr<const TextStatistics> statistics;  // ranked: what the scores were computed with
};

class ColumnReader {
 public:
  // Columns answer only when every version in history is in a chunk: true for a database
  // created by this version (the mark is set while history is still empty).
  // From `parallel_rows` rows in the time bounds on, two threads share the chunks.
  explicit ColumnReader(Database& database, std::uint64_t parallel_rows = 32768);

  // nullopt when the columns cannot answer: a field that is a whole payload or metrics object,
  // buckets or a time-weighted op on a non-canonical time field, history older than the columns,
  // or a text query on history older than the chunk postings. The caller then aggregates record
  // by record.
  std::optional<sdk::AggregateResult> aggregate(const sdk::Tenant& tenant,
                                                const sdk::AggregateRequest& request);

  // The versions of current state or history matching every condition (and the text query), in
  // (timestamp, id) order per `order` or best BM25 score first, the first `keep` of them;
  // nullopt as for aggregate().
  std::optional<ColumnMatches> matches(const sdk::Tenant& tenant, const MatchQuery& query);

  // Every match of `query` up to its scan_limit as cells (sdk/cells.hpp), one block per chunk; the
  // named fields from their columns, the leaves from every payload and metrics column, each
  // record's size from `#bytes`. A chunk where a named field holds an object or array, or without
  // `#bytes`, is read record by record. `verification` gives the state of a receipt's writes.
  // nullopt as for aggregate(), and for text queries.
  std::optional<sdk::ScanStats> cells(
      const sdk::Tenant& tenant, const sdk::CellQuery& query, const sdk::CellVisitor& visit,
      const std::function<sdk::Verification(std::string_view receipt_id)>& verification);

  bool covered() const { return covered_; }
  // The newest ingested_at of the tenant's history, from the last chunk's header; nullopt when
  // it has none (or its chunks are older than that header field).
  std::optional<sdk::Millis> newest_ingested_at(const sdk::Tenant& tenant);
  // Every chunk carries its word postings, and history has no key per (value or token, version):
  // text queries and history's conditions are answered from the chunks.
  bool chunk_indexed() const { return chunk_indexed_; }
  // Where chunk_indexed(): what BM25 needs to rank `query`'s matches, over the whole history of
  // the tenant (text_scorer.hpp), read at `snapshot` (null: now).
  std::shared_ptr<const TextStatistics> text_statistics(const rocksdb::Snapshot* snapshot,
                                                        const std::string& tenant,
                                                        const sdk::TextQuery& query);

 private:
  // text_statistics() over `every_chunk`, the tenant's chunks listed already.
  std::shared_ptr<const TextStatistics> text_statistics(const rocksdb::Snapshot* snapshot,
                                                        const std::string& tenant,
                                                        const std::vector<ChunkRef>& every_chunk,
                                                        const sdk::TextQuery& query);
  // The chunks whose time range meets `bounds`, as `snapshot` shows them; `rows` is their total.
  std::vector<ChunkRef> chunks_in(const Snapshot& snapshot, const std::string& tenant,
                                  const toolkit::TimeBounds& bounds, std::uint64_t& rows);
  // Every chunk of the tenant's catalogue at `snapshot`: the list kept for the columns family's
  // count of writes it shows when it has one, else read.
  std::shared_ptr<const std::vector<ChunkRef>> catalogue(
      const rocksdb::Snapshot* snapshot, std::optional<std::uint64_t> columns_writes,
      const std::string& tenant);
  // Runs work(0) here and, with two threads, work(1) beside it on the helper when it is free
  // (helper_thread.hpp), else here after work(0); rethrows what either threw.
  void on_threads(std::size_t threads, const std::function<void(std::size_t)>& work);

  Database& database_;
  std::uint64_t parallel_rows_;
  bool covered_ = false;
  bool chunk_indexed_ = false;
  HelperThread helper_;
  // Some 60,000 chunks' counts of a word (text_scorer.hpp).
  ChunkWordCounts word_counts_{std::size_t{8} << 20};
  // Each tenant's catalogue as last listed, under the count of columns-family writes it was read
  // at: listing it with an iterator was a sixth of the server's CPU for a question that matches
  // nothing (at 1,000,000 events).
  struct ListedCatalogue {
    std::uint64_t columns_writes = 0;
    std::shared_ptr<const std::vector<ChunkRef>> chunks;
  };
  std::mutex listed_mutex_;
  std::unordered_map<std::string, ListedCatalogue> listed_;  // guarded by listed_mutex_
};

}  // namespace eventsvc::plugins::rocksdb_storage
