// The RocksDB storage plugin: durable ingest with group-committed fsyncs, an asynchronous
// crash-safe projector, verified receipts, and indexed reads over current state and history.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "eventsvc/sdk/durable_log.hpp"
#include "eventsvc/sdk/storage.hpp"
#include "eventsvc/toolkit/append_sequence.hpp"
#include "feed/change_feed.hpp"
#include "log/log_follower.hpp"
#include "projection/projector.hpp"
#include "query/column_reader.hpp"
#include "query/query_engine.hpp"
#include "store/database.hpp"
#include "write/backlog.hpp"
#include "write/ingest_writer.hpp"
#include "write/lag_bound.hpp"
#include "write/verdicts.hpp"

namespace eventsvc::plugins::rocksdb_storage {

class RocksdbStorage final : public sdk::Storage {
 public:
  static constexpr std::string_view kName = "rocksdb";
  static const sdk::PluginInfo kInfo;  // with its config table, in rocksdb_storage.cpp
  explicit RocksdbStorage(const sdk::PluginContext& context);
  ~RocksdbStorage() override;

  void use_embedder(const sdk::Embedder* embedder) override;
  void use_log(sdk::DurableLog* log) override;
  void start() override;
  void stop() override;
  // A RocksDB checkpoint of the database with its catalogue.
  bool back_up(const std::filesystem::path& into) override;

  sdk::AcceptResult accept(const sdk::IncomingWrite& write,
                           const sdk::ReceiptRenderer& render) override;
  std::optional<sdk::Receipt> receipt(const sdk::Tenant& tenant,
                                      std::string_view receipt_id) override;
  sdk::ScanStats scan(const sdk::Tenant& tenant, const sdk::RecordQuery& query,
                      const sdk::RecordVisitor& visit) override;
  std::optional<sdk::ScanStats> scan_json(const sdk::Tenant& tenant, const sdk::RecordQuery& query,
                                          const sdk::RecordJsonVisitor& visit) override;
  sdk::AggregateResult aggregate(const sdk::Tenant& tenant,
                                 const sdk::AggregateRequest& request) override;
  sdk::ScanStats scan_cells(const sdk::Tenant& tenant, const sdk::CellQuery& query,
                            const sdk::CellVisitor& visit) override;
  sdk::Neighbors neighbors(const sdk::Tenant& tenant, sdk::Source source, const sdk::Record& anchor,
                           std::size_t before, std::size_t after, sdk::Millis not_before) override;
  sdk::StorageStatus status(const sdk::Tenant& tenant) override;
  sdk::StorageHealth health() override;
  sdk::AcceptResult erase(const sdk::ErasureRequest& request,
                          const sdk::ErasureRenderer& render) override;
  std::optional<sdk::ErasureStatus> erasure(const sdk::Tenant& tenant,
                                            std::string_view erasure_id) override;
  sdk::ChangePosition change_head(const sdk::Tenant& tenant) override;
  sdk::ChangeScan changes(const sdk::Tenant& tenant, const sdk::ChangeQuery& query,
                          const sdk::ChangeVisitor& visit) override;
  void watch_changes(std::function<void()> changed) override;
  // The projector's progress and RocksDB's own figures (storage_metrics.cpp).
  void report_metrics(sdk::MetricsSink& sink) override;

  // For tests: the projector, to drive it by hand when the config disables its thread.
  Projector& projector() { return *projector_; }
  // For tests: the column path of aggregate(), without the record-wise fallback.
  ColumnReader& column_reader() { return *columns_; }
  Database& database() { return *database_; }

 private:
  std::shared_ptr<sdk::Logger> logger_;
  // With a shared durable log: a receipt this server has not copied yet, as the log holds it
  // (503 while the log is out of reach); and whether every live server has verified a receipt
  // this one has (false while the log is out of reach).
  std::optional<std::string> receipt_from_log(const std::string& tenant_key,
                                              std::string_view receipt_id);
  bool verified_everywhere(const std::string& tenant_key, std::string_view receipt_id);

  // Throws 503 with Retry-After while search trails acceptance by more than the bound: the lag
  // stays bounded under any offered load instead of growing until /readyz gives up on the server.
  void admit_while_search_keeps_up();
  // How far search trails acceptance, seen ahead: how long the oldest write not yet searchable
  // has waited, or how long the projector needs at its recent pace for every write waiting,
  // whichever is longer. The first trails a backlog that builds up; the second sees it coming.
  std::chrono::milliseconds lag_ahead() const;
  // accept() before its 202 is paced (LagBound::hold).
  sdk::AcceptResult accept_write(const sdk::IncomingWrite& write,
                                 const sdk::ReceiptRenderer& render);

  // Resumes after a restart: the backlog is what the inbox still holds past the projector's
  // cursor; returns the sequence number the next accepted write takes.
  std::uint64_t resume_backlog();

  // The catalogue of the database as it is now (data_catalogue.hpp): at start, every ten seconds
  // of projection, at stop.
  void record_catalogue();

  std::filesystem::path data_dir_;
  std::string path_key_;  // for messages: plugins.<instance>.config.path
  std::filesystem::path path_;
  std::unique_ptr<Database> database_;
  Backlog backlog_;
  std::unique_ptr<LagBound> lag_bound_;  // projector.pace_from_ms and max_lag_ms
  std::unique_ptr<toolkit::AppendSequence> sequence_;
  std::unique_ptr<Verdicts> verdicts_;
  std::unique_ptr<ChangeFeed> feed_;
  std::mutex changed_mutex_;
  std::shared_ptr<const std::function<void()>> changed_;  // watch_changes()
  std::unique_ptr<Projector> projector_;
  std::unique_ptr<IngestWriter> ingest_;
  // With a durable log plugin (scale-out): accepted there, copied here.
  sdk::DurableLog* log_ = nullptr;
  std::size_t follow_batch_ = 0;  // durable_log.follow_batch
  std::unique_ptr<LogFollower> follower_;
  // This database accepted writes itself before it had a log plugin: their idempotency answers and
  // claims, kept here, are honoured beside the log's.
  bool accepted_here_before_ = false;
  std::atomic<bool> caught_up_{false};
  std::unique_ptr<QueryEngine> queries_;
  std::unique_ptr<ColumnReader> columns_;
  std::string embedding_model_;
};

}  // namespace eventsvc::plugins::rocksdb_storage
