// The storage's series on the operator's /metrics page: the projector's progress (what ingest
// accepted and what projection and verification have done with it) and RocksDB's own figures
// (space, memory, compaction debt, stalls).
#include <chrono>
#include <cstdint>

#include "rocksdb_storage.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

double as_double(std::uint64_t value) {
  return static_cast<double>(value);
}

// The lag bound's side of projection: how far search trails, and the bound's answers to it.
struct LagFigures {
  std::chrono::milliseconds lag;
  const LagBound& bound;
};

void report_projection(sdk::MetricsSink& sink, const ProjectorStats& stats, bool available,
                       std::size_t backlog, const LagFigures& lag, std::uint64_t write_failures,
                       const MergeThread& merges) {
  sink.counter("storage_chunk_merges_total", "Merges of column chunks committed",
               as_double(merges.merges()));
  sink.counter("storage_chunk_merge_failures_total",
               "Merges of column chunks that failed (logged, retried with backoff)",
               as_double(merges.failures()));
  sink.counter("storage_erasures_total",
               "Erasures carried out (hidden) or failed by the projector since the start",
               as_double(stats.erasures.load()));
  sink.counter("storage_chunk_purges_total",
               "Column chunks rebuilt without their erased rows since the start",
               as_double(merges.purges()));
  sink.gauge("storage_projection_backlog_writes",
             "Accepted writes not yet projected into search and query (every workspace)",
             as_double(backlog));
  sink.gauge("storage_projection_lag_seconds",
             "How long the oldest accepted write not yet searchable has waited (0: none waits)",
             static_cast<double>(lag.lag.count()) / 1000.0);
  sink.gauge("storage_projection_max_lag_seconds",
             "projector.max_lag_ms: writes are refused past this lag (0: never)",
             static_cast<double>(lag.bound.max_lag().count()) / 1000.0);
  sink.counter("storage_ingest_refused_total",
               "Writes answered 503 because search trailed acceptance by more than "
               "projector.max_lag_ms",
               as_double(lag.bound.refused()), {{"reason", "projection_lag"}});
  sink.counter("storage_ingest_held_total",
               "Writes whose 202 was held because search trailed acceptance by more than "
               "projector.pace_from_ms",
               as_double(lag.bound.held()));
  sink.counter("storage_ingest_held_seconds_total", "How long those 202s were held, in all",
               static_cast<double>(lag.bound.held_for().count()) / 1000.0);
  sink.gauge("storage_projector_up",
             "1 while the projector runs and its last round succeeded, else 0", available ? 1 : 0);
  sink.counter("storage_projected_writes_total", "Accepted writes projected",
               as_double(stats.writes.load()));
  sink.counter("storage_projected_events_total", "Events projected",
               as_double(stats.events.load()));
  sink.counter("storage_projection_rounds_total", "Projection rounds that committed",
               as_double(stats.rounds.load()));
  sink.counter("storage_projection_failures_total",
               "Projection or verification rounds that failed (retried with backoff)",
               as_double(stats.failed_rounds.load()));
  constexpr std::string_view kReceipts = "Receipts that reached their final state, by state";
  sink.counter("storage_receipts_final_total", kReceipts, as_double(stats.verified.load()),
               {{"state", "verified"}});
  sink.counter("storage_receipts_final_total", kReceipts, as_double(stats.conflicts.load()),
               {{"state", "conflict"}});
  sink.histogram("storage_verification_lag_seconds",
                 "From a write's acceptance (202) to its receipt's final state",
                 stats.verification_lag.snapshot());
  sink.counter("storage_write_failures_total", "Writes to RocksDB that failed (answered 503)",
               as_double(write_failures));
}

// RocksDB's integer properties as series: summed over every column family, or (for the shared
// block cache and the write controller) read from one, which answers for all.
struct PropertySeries {
  const char* name;
  const char* help;
  const char* property;
  bool counter;
  bool whole_database;
};

constexpr PropertySeries kPropertySeries[] = {
    {"rocksdb_memtable_bytes", "Memory held by memtables, every column family",
     "rocksdb.cur-size-all-mem-tables", false, true},
    {"rocksdb_pending_compaction_bytes",
     "Bytes compaction estimates it must rewrite to bring every level under its target",
     "rocksdb.estimate-pending-compaction-bytes", false, true},
    {"rocksdb_running_compactions", "Compactions running", "rocksdb.num-running-compactions", false,
     true},
    {"rocksdb_running_flushes", "Memtable flushes running", "rocksdb.num-running-flushes", false,
     true},
    {"rocksdb_level0_files", "Table files in level 0, every column family",
     "rocksdb.num-files-at-level0", false, true},
    {"rocksdb_estimated_keys", "Keys RocksDB estimates it holds, every column family",
     "rocksdb.estimate-num-keys", false, true},
    {"rocksdb_background_errors_total",
     "Errors of flushes and compactions (RocksDB stops writes after one)",
     "rocksdb.background-errors", true, true},
    {"rocksdb_block_cache_usage_bytes", "Bytes in the block cache", "rocksdb.block-cache-usage",
     false, false},
    {"rocksdb_block_cache_capacity_bytes", "The block cache's capacity",
     "rocksdb.block-cache-capacity", false, false},
    {"rocksdb_write_stopped", "1 while RocksDB stops writes (too much compaction debt)",
     "rocksdb.is-write-stopped", false, false},
    {"rocksdb_delayed_write_rate_bytes_per_second",
     "The rate RocksDB slows writes to while compaction catches up; 0: not slowed",
     "rocksdb.actual-delayed-write-rate", false, false},
};

void report_rocksdb(sdk::MetricsSink& sink, Database& database) {
  for (const auto& series : kPropertySeries) {
    const double value =
        as_double(series.whole_database ? database.int_property(series.property)
                                        : database.int_property(database.meta, series.property));
    if (series.counter) {
      sink.counter(series.name, series.help, value);
    } else {
      sink.gauge(series.name, series.help, value);
    }
  }
  const TermFilterCache& filters = database.term_filters();
  sink.counter("storage_term_filter_skips_total",
               "Lookups of a word or value in a column chunk that the chunk's term filter answered "
               "\"not here\" without reading the chunk",
               as_double(filters.skips()));
  sink.counter("storage_term_filter_passes_total",
               "Lookups of a word or value in a column chunk that its term filter let through",
               as_double(filters.passes()));
  sink.gauge("storage_term_filter_cache_bytes", "Bytes of term filters kept (filter_cache_mb)",
             as_double(filters.bytes()));
  const RowSetCache& value_rows = database.value_rows();
  sink.counter("storage_value_rows_cache_hits_total",
               "Rows of a value in a column chunk found decoded in memory (value_cache_mb)",
               as_double(value_rows.hits()));
  sink.counter("storage_value_rows_cache_misses_total",
               "Rows of a value in a column chunk read from its postings",
               as_double(value_rows.misses()));
  sink.gauge("storage_value_rows_cache_bytes", "Bytes of decoded value rows kept (value_cache_mb)",
             as_double(value_rows.bytes()));
  const PageCache& pages = database.pages();
  sink.counter("storage_page_cache_hits_total",
               "Pages of column chunks' columns found parsed in memory (page_cache_mb)",
               as_double(pages.hits()));
  sink.counter("storage_page_cache_misses_total",
               "Pages of column chunks' columns read from the database", as_double(pages.misses()));
  sink.gauge("storage_page_cache_bytes", "Bytes of parsed pages kept (page_cache_mb)",
             as_double(pages.bytes()));
  for (auto* family : database.families()) {
    sink.gauge("rocksdb_sst_files_bytes", "Bytes of live table files, by column family",
               as_double(database.int_property(family, "rocksdb.live-sst-files-size")),
               {{"family", family->GetName()}});
  }
}

}  // namespace

void RocksdbStorage::report_metrics(sdk::MetricsSink& sink) {
  report_projection(sink, projector_->stats(), projector_->available(), backlog_.total(),
                    {backlog_.lag(), *lag_bound_}, database_->write_failures(),
                    projector_->merges());
  report_rocksdb(sink, *database_);
  if (follower_) {
    sink.gauge("storage_log_following_up",
               "Shared durable log: 1 while it can be read and copied here, else 0",
               follower_->problem().empty() ? 1 : 0);
    sink.gauge("storage_log_caught_up", "Shared durable log: 1 once the copy here has caught up",
               caught_up_.load() ? 1 : 0);
    sink.counter(
        "storage_log_entries_copied_total",
        "Durable log: entries copied from the log into this server's engine since the start",
        static_cast<double>(follower_->copied()));
  }
}

}  // namespace eventsvc::plugins::rocksdb_storage
