// The durable log of one server, in a RocksDB database of its own beside the storage engine's
// (sdk/durable_log.hpp says what a log guarantees). An append is one fsync'd RocksDB batch holding
// the entry, the idempotency answer, the claims of its events and the receipt's place; concurrent
// appends share syncs (RocksDB commits a group of pending writes with one fsync) and are admitted
// by toolkit::AppendGate, so a key in flight gets 409 and a claim in flight is a duplicate.
//
// Log order is the order of sequence numbers taken at admission, and a reader sees an entry only
// once every smaller number is durable or abandoned (toolkit::AppendSequence). One server reads the
// log; once it has published an entry as verified (its own copy made durable, sdk::DurableLog::
// publish) the entry is trimmed, so the log holds what the server has not verified yet, its
// idempotency answers for a day and its claims.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>

#include "eventsvc/sdk/durable_log.hpp"
#include "eventsvc/toolkit/append_gate.hpp"
#include "eventsvc/toolkit/append_sequence.hpp"
#include "log_database.hpp"

namespace eventsvc::plugins::log {

class LocalLog final : public sdk::DurableLog {
 public:
  static constexpr std::string_view kName = "local";
  static const sdk::PluginInfo kInfo;  // with its config table, in local_log.cpp
  explicit LocalLog(const sdk::PluginContext& context);
  ~LocalLog() override;

  std::size_t position_size() const override { return 8; }
  sdk::AcceptResult append(const sdk::LogAppend& append) override;
  std::vector<sdk::LogEntry> read_after(const sdk::LogPosition& after, std::size_t limit) override;
  bool wait_for_appends(int timeout_ms) override;
  std::optional<sdk::LogEntry> find_receipt(std::string_view tenant,
                                            std::string_view receipt_id) override;
  // Trims every entry up to `verified`, but not while a backup is taken.
  void publish(const sdk::LogPosition& verified) override;
  // Never: the one server that reads this log is the one that verified what it publishes.
  bool held_back(const sdk::LogPosition& position) override;
  // Answers created before `before` are dropped by compaction from now on.
  void expire_answers(sdk::Millis before) override;
  void release_claims(const std::vector<std::string>& claims) override;
  // A full compaction of the log's database; false while a backup holds trimming back.
  bool purge_deleted() override;
  // The last write's failure while no write has succeeded since.
  std::string problem() override;
  // Appends and trims since the start; whether appends are failing.
  void report_metrics(sdk::MetricsSink& sink) override;
  // A backup holds trimming from its start to its end: the storage's copy, taken before this
  // log's, may need entries the storage verifies meanwhile. The copy is a RocksDB checkpoint.
  void begin_backup() override;
  bool back_up(const std::filesystem::path& into) override;
  void end_backup() override;

 private:
  // The first sequence number of an entry not trimmed yet, and the next one to take.
  void resume();
  // One durable batch: the entry, the key's answer, the claims, the receipt's place. Returns the
  // 202.
  std::string write_entry(const sdk::LogAppend& append, const std::string& key,
                          const toolkit::AppendGate::Pass& pass);
  // Throws Error 500 for a position this log never gave a reader.
  void check_issued(const sdk::LogPosition& position) const;

  std::unique_ptr<LogDatabase> database_;
  std::filesystem::path data_dir_;
  std::string path_key_;  // for messages: plugins.<instance>.config.path
  std::filesystem::path path_;
  std::uint64_t trimmed_below_ = 0;  // guarded by trim_mutex_
  bool trim_held_ = false;           // guarded by trim_mutex_: a backup is under way
  std::mutex trim_mutex_;
  std::unique_ptr<toolkit::AppendSequence> sequence_;
  std::unique_ptr<toolkit::AppendGate> gate_;

  // Appends that ended (durable, replayed or failed: each gives its sequence number back), counted,
  // and the count a reader last read after: a reader waits only while none ended since its read.
  std::mutex announced_mutex_;
  std::condition_variable announced_cv_;
  std::atomic<std::uint64_t> announced_{0};
  std::atomic<std::uint64_t> read_at_{0};
  std::atomic<std::uint64_t> appended_{0};  // made durable, for /metrics
  std::atomic<std::uint64_t> trimmed_{0};
};

}  // namespace eventsvc::plugins::log
