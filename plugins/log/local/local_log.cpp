#include "local_log.hpp"

#include <algorithm>
#include <chrono>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/metrics.hpp"
#include "eventsvc/toolkit/rocksdb_checkpoint.hpp"
#include "log_entries.hpp"

namespace eventsvc::plugins::log {

namespace {

const std::string kTrimmedKey = "trimmed";  // meta: the last position trimmed

constexpr sdk::ConfigKey kConfig[] = {
    sdk::ConfigKey::string("path",
                           "The log's database directory, relative to the instance's data "
                           "directory; not the storage's")
        .defaults_to(R"("db")"),
};

}  // namespace

const sdk::PluginInfo LocalLog::kInfo{
    "1.0.0",
    "The durable log of one server, in a RocksDB database of its own: writes are made durable "
    "here before their 202, then copied into the storage engine",
    kConfig};

LocalLog::LocalLog(const sdk::PluginContext& context)
    : data_dir_(context.data_dir), path_key_("plugins." + context.instance + ".config.path") {
  const std::filesystem::path path(context.config.get_string("path"));
  if (path.empty()) context.config.fail("path", "name the directory of the log's database");
  path_ = path.is_absolute() ? path : context.data_dir / path;
  try {
    database_ = std::make_unique<LogDatabase>(path_, context.logger);
  } catch (const sdk::Error& error) {
    context.config.fail("path", error.message());
  }
  resume();
  gate_ = std::make_unique<toolkit::AppendGate>(*sequence_);
}

LocalLog::~LocalLog() = default;

void LocalLog::resume() {
  if (const auto trimmed = database_->get(database_->meta, kTrimmedKey)) {
    trimmed_below_ = sequence_of(*trimmed) + 1;
  }
  std::uint64_t next = trimmed_below_;
  auto it = database_->iterator(database_->entries);
  it->SeekToLast();
  if (it->Valid()) next = std::max(next, sequence_of({it->key().data(), it->key().size()}) + 1);
  check(it->status(), "read");
  sequence_ = std::make_unique<toolkit::AppendSequence>(next);
}

sdk::AcceptResult LocalLog::append(const sdk::LogAppend& append) {
  const std::string key = tenant_key(append.tenant, append.idempotency_key);
  // However the append ends, once its sequence number is given back: a reader held below that
  // number may go on (an append that failed frees it as one that succeeded does).
  struct Announce {
    LocalLog& log;
    ~Announce() {
      {
        const std::lock_guard lock(log.announced_mutex_);
        ++log.announced_;
      }
      log.announced_cv_.notify_all();
    }
  } announce{*this};
  std::string body;
  {
    auto entered = gate_->enter({
        .key = key,
        .claims = append.claims,
        .stored_answer = [&]() -> std::optional<std::string> {
          const auto answer = database_->get(database_->answers, key);
          const sdk::Millis after =
              std::max(append.replay_after, database_->answer_expiry.before.load());
          if (!answer || created_at_of_answer(*answer) <= after) return std::nullopt;
          return std::string(body_of_answer(*answer));
        },
        .claimed_before =
            [&](const std::string& claim) { return database_->exists(database_->claims, claim); },
        .admit = [] {},
    });
    if (auto* replay = std::get_if<std::string>(&entered)) return {std::move(*replay), true};
    const auto& pass = std::get<toolkit::AppendGate::Pass>(entered);
    body = write_entry(append, key, pass);
  }  // the pass is given back before `announce` wakes the reader
  return {std::move(body), false};
}

std::string LocalLog::write_entry(const sdk::LogAppend& append, const std::string& key,
                                  const toolkit::AppendGate::Pass& pass) {
  sdk::LogRecord record = append.record(pass.duplicate);
  const sdk::LogPosition position = position_of(pass.sequence);
  rocksdb::WriteBatch batch;
  batch.Put(database_->entries, position,
            encode_entry(append.tenant, append.receipt_id, record.receipt, record.write));
  batch.Put(database_->answers, key, encode_answer(append.received_at, record.body));
  for (const auto& claim : pass.claimed)
    batch.Put(database_->claims, claim, rocksdb::Slice());
  batch.Put(database_->receipts, tenant_key(append.tenant, append.receipt_id), position);
  database_->write(batch, true, "append");
  ++appended_;
  return std::move(record.body);
}

void LocalLog::check_issued(const sdk::LogPosition& position) const {
  if (position.empty()) return;
  if (position.size() == position_size() && sequence_of(position) < sequence_->safe_upper()) return;
  // The storage copied a log that is not this one (the log's directory was replaced or emptied,
  // or another log plugin was loaded before): going on would skip or trim writes it acknowledged.
  throw sdk::Error::internal(
      "the storage has copied the durable log up to a position this local log never issued: its "
      "directory was replaced or emptied, or another log plugin was used before; put the log's "
      "directory back (plugins.<name>.config.path) or load the log the storage copied");
}

std::vector<sdk::LogEntry> LocalLog::read_after(const sdk::LogPosition& after, std::size_t limit) {
  read_at_ = announced_.load();
  check_issued(after);
  // Below the first append still in flight: no entry can appear there later.
  const std::string upper = position_of(sequence_->safe_upper());
  const rocksdb::Slice upper_slice(upper);
  std::vector<sdk::LogEntry> entries;
  auto it = database_->iterator(database_->entries, &upper_slice);
  it->Seek(after.empty() ? position_of(0) : position_of(sequence_of(after) + 1));
  for (; it->Valid() && entries.size() < limit; it->Next()) {
    entries.push_back(decode_entry({it->key().data(), it->key().size()},
                                   {it->value().data(), it->value().size()}, true));
  }
  check(it->status(), "read");
  return entries;
}

bool LocalLog::wait_for_appends(int timeout_ms) {
  std::unique_lock lock(announced_mutex_);
  return announced_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                                [&] { return announced_.load() != read_at_.load(); });
}

std::optional<sdk::LogEntry> LocalLog::find_receipt(std::string_view tenant,
                                                    std::string_view receipt_id) {
  const auto position = database_->get(database_->receipts, tenant_key(tenant, receipt_id));
  if (!position) return std::nullopt;
  const auto value = database_->get(database_->entries, *position);
  if (!value) return std::nullopt;  // trimmed meanwhile
  return decode_entry(*position, *value, false);
}

void LocalLog::publish(const sdk::LogPosition& verified) {
  if (verified.empty()) return;
  check_issued(verified);
  const std::uint64_t last = sequence_of(verified);
  const std::lock_guard lock(trim_mutex_);
  // Trimmed at the next publish after the backup.
  if (trim_held_ || last < trimmed_below_) return;
  const std::string upper = position_of(last + 1);
  const rocksdb::Slice upper_slice(upper);
  rocksdb::WriteBatch batch;
  std::uint64_t trimmed = 0;
  auto it = database_->iterator(database_->entries, &upper_slice);
  for (it->Seek(position_of(trimmed_below_)); it->Valid(); it->Next()) {
    const auto entry = decode_entry({it->key().data(), it->key().size()},
                                    {it->value().data(), it->value().size()}, false);
    batch.Delete(database_->receipts, tenant_key(entry.tenant, entry.receipt_id));
    batch.Delete(database_->entries, it->key());
    ++trimmed;
  }
  check(it->status(), "read");
  batch.Put(database_->meta, kTrimmedKey, verified);
  // Not synced: a trim lost in a crash is made again at the next publish.
  database_->write(batch, false, "trim");
  trimmed_below_ = last + 1;
  trimmed_ += trimmed;
}

void LocalLog::begin_backup() {
  const std::lock_guard lock(trim_mutex_);
  trim_held_ = true;
}

bool LocalLog::back_up(const std::filesystem::path& into) {
  const auto place = toolkit::backup_place(path_, data_dir_, into, path_key_);
  std::filesystem::create_directories(place.parent_path());
  toolkit::checkpoint_rocksdb(database_->db(), place, "the local log");
  return true;
}

void LocalLog::end_backup() {
  const std::lock_guard lock(trim_mutex_);
  trim_held_ = false;
}

std::string LocalLog::problem() {
  return database_->write_problem();
}

bool LocalLog::held_back(const sdk::LogPosition& /*position*/) {
  return false;
}

void LocalLog::expire_answers(sdk::Millis before) {
  // Not replayed from now on, and dropped by compaction (AnswerExpiry).
  database_->answer_expiry.before = before;
}

void LocalLog::release_claims(const std::vector<std::string>& claims) {
  if (claims.empty()) return;
  rocksdb::WriteBatch batch;
  for (const auto& claim : claims)
    batch.Delete(database_->claims, claim);
  database_->write(batch, true, "release claims");
}

bool LocalLog::purge_deleted() {
  const std::lock_guard lock(trim_mutex_);
  if (trim_held_) return false;  // a backup keeps what it copies: asked again after it
  database_->compact_everything();
  return true;
}

void LocalLog::report_metrics(sdk::MetricsSink& sink) {
  sink.counter("log_appends_total", "Writes made durable in the local log since the start",
               static_cast<double>(appended_.load()));
  sink.counter("log_trimmed_total",
               "Entries of the local log trimmed since the start, once the storage engine had "
               "verified its copy",
               static_cast<double>(trimmed_.load()));
  sink.gauge("log_append_failing",
             "1 while the local log's last write failed (a full or failing disk): writes are "
             "answered 503 until one succeeds, which after a failed write needs a restart",
             database_->write_problem().empty() ? 0 : 1);
}

}  // namespace eventsvc::plugins::log
