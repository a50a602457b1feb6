#include "log/log_follower.hpp"

#include <rocksdb/write_batch.h>

#include <chrono>

#include "eventsvc/sdk/error.hpp"
#include "eventsvc/sdk/time.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "store/key_codec.hpp"
#include "store/stored_formats.hpp"
#include "write/prepared_write.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

// Keys of the meta family.
const std::string kAppliedKey = "log/applied";      // the position of the last entry copied
const std::string kVerifiedKey = "log/verified";    // every entry up to it is final here
const std::string kPendingPrefix = "log/pending/";  // + sequence: an entry not final yet

constexpr auto kPublishEvery = std::chrono::milliseconds(100);
constexpr auto kRetryEvery = std::chrono::milliseconds(500);
constexpr auto kExpireEvery = std::chrono::minutes(10);

std::string pending_key(std::uint64_t sequence) {
  std::string key = kPendingPrefix;
  append_u64(key, sequence);
  return key;
}

bool is_final(sdk::ReceiptState state) {
  return state == sdk::ReceiptState::verified || state == sdk::ReceiptState::conflict;
}

}  // namespace

LogFollower::LogFollower(sdk::DurableLog& log, Database& database,
                         toolkit::AppendSequence& sequence, Backlog& backlog,
                         std::function<void()> wake_projector, std::function<bool()> projecting,
                         std::shared_ptr<sdk::Logger> logger, std::size_t batch)
    : log_(log),
      database_(database),
      sequence_(sequence),
      backlog_(backlog),
      wake_projector_(std::move(wake_projector)),
      projecting_(std::move(projecting)),
      logger_(std::move(logger)),
      batch_(batch) {
  applied_ = database_.get(database_.meta, kAppliedKey).value_or("");
  verified_ = database_.get(database_.meta, kVerifiedKey).value_or("");
}

bool LogFollower::followed_a_log(Database& database) {
  return database.get(database.meta, kAppliedKey).has_value();
}

LogFollower::~LogFollower() {
  stop();
}

void LogFollower::start() {
  thread_ = std::thread([this] { run(); });
}

void LogFollower::stop() {
  {
    const std::lock_guard lock(mutex_);  // a waiter of await_published() sees it
    stopping_ = true;
  }
  wakeup_.notify_all();
  handed_over_.notify_all();
  if (thread_.joinable()) thread_.join();
}

std::string LogFollower::problem() const {
  const std::lock_guard lock(mutex_);
  return problem_;
}

sdk::LogPosition LogFollower::applied() const {
  const std::lock_guard lock(mutex_);
  return applied_;
}

void LogFollower::set_problem(const std::string& problem) {
  std::string before;
  {
    const std::lock_guard lock(mutex_);
    before = std::exchange(problem_, problem);
  }
  if (before.empty() && !problem.empty()) {
    logger_->warning("cannot follow the durable log: " + problem);
  } else if (!before.empty() && problem.empty()) {
    logger_->info("following the durable log again");
  }
}

std::optional<sdk::LogPosition> LogFollower::position_of(Database& database, std::uint64_t sequence,
                                                         std::string_view tenant,
                                                         std::string_view receipt_id) {
  const auto marker = database.get(database.meta, pending_key(sequence));
  const std::size_t suffix = tenant.size() + receipt_id.size();
  if (!marker || marker->size() <= suffix) return std::nullopt;
  return marker->substr(0, marker->size() - suffix);
}

std::size_t LogFollower::follow_once() {
  const sdk::LogPosition from = applied();
  const auto entries = log_.read_after(from, batch_);
  if (entries.empty()) return 0;
  rocksdb::WriteBatch batch;
  // Numbers taken for the entries are handed back however the write ends.
  struct Sequences {
    toolkit::AppendSequence& source;
    std::vector<std::uint64_t> taken;
    ~Sequences() {
      for (const auto sequence : taken)
        source.end(sequence);
    }
  } sequences{sequence_, {}};
  sequences.taken.reserve(entries.size());
  for (const auto& entry : entries) {
    const std::uint64_t sequence = sequence_.begin();
    sequences.taken.push_back(sequence);
    put_in_inbox(batch, database_, sequence, entry.tenant, entry.receipt_id, entry.write,
                 entry.receipt);
    // The marker: the entry's position (position_size() bytes), then the key of its receipt.
    batch.Put(database_.meta, pending_key(sequence),
              entry.position + entry.tenant + entry.receipt_id);
  }
  batch.Put(database_.meta, kAppliedKey, entries.back().position);
  // Not synced: a crash that loses this batch loses the cursor with it, and the entries are read
  // again from the log, which is the durable copy.
  database_.write(batch, false);
  for (std::size_t i = 0; i < entries.size(); ++i)
    backlog_.accepted(entries[i].tenant, sequences.taken[i]);
  {
    const std::lock_guard lock(mutex_);
    applied_ = entries.back().position;
  }
  copied_ += entries.size();
  wake_projector_();
  return entries.size();
}

void LogFollower::publish_progress() {
  const std::size_t position_size = log_.position_size();
  rocksdb::WriteBatch batch;
  bool popped = false;
  bool pending_left = false;
  {
    const std::string upper = kPendingPrefix + std::string(8, '\xff');
    const rocksdb::Slice upper_slice(upper);
    auto it = database_.iterator(database_.meta, &upper_slice);
    for (it->Seek(kPendingPrefix); it->Valid(); it->Next()) {
      const std::string_view marker(it->value().data(), it->value().size());
      const auto receipt = database_.get(database_.receipts, marker.substr(position_size));
      if (receipt && !is_final(decode_receipt(*receipt).receipt.state)) {
        pending_left = true;
        break;
      }
      // Final, or gone (expired): nothing more to wait for.
      batch.Delete(database_.meta, it->key());
      verified_ = std::string(marker.substr(0, position_size));
      popped = true;
    }
    check(it->status(), "log marker scan");
  }
  if (popped) {
    batch.Put(database_.meta, kVerifiedKey, verified_);
    database_.write(batch, false);
  }
  // No marker left: everything copied here is final.
  const sdk::LogPosition verified = pending_left ? verified_ : applied();
  if (verified != published_) {
    // A log may forget what every server has verified (the local log does): this copy and what was
    // projected from it must survive a power cut first, not only a crash of the process.
    database_.sync();
    published_ = verified;
  }
  log_.publish(verified);
  {
    const std::lock_guard lock(mutex_);
    handed_ = verified;
  }
  handed_over_.notify_all();
}

bool LogFollower::await_published(std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  const sdk::LogPosition target = applied_;
  handed_over_.wait_for(lock, timeout, [&] { return handed_ >= target || stopping_; });
  return handed_ >= target;
}

void LogFollower::run() {
  auto last_publish = std::chrono::steady_clock::time_point{};
  auto last_expiry = std::chrono::steady_clock::now();
  while (!stopping_) {
    try {
      const std::size_t copied = follow_once();
      const auto now = std::chrono::steady_clock::now();
      if (now - last_publish >= kPublishEvery && projecting_()) {
        publish_progress();
        last_publish = now;
      }
      if (now - last_expiry >= kExpireEvery) {
        log_.expire_answers(toolkit::now_millis() - kReceiptLifetimeMs);
        last_expiry = now;
      }
      lasting_ = false;
      set_problem({});
      if (copied < batch_) {
        caught_up_ = true;
        log_.wait_for_appends(static_cast<int>(kPublishEvery.count()));
      }
    } catch (const std::exception& error) {
      // A log out of reach (503) comes back by itself; a refusal (a copy the log was trimmed past)
      // does not.
      const auto* refusal = dynamic_cast<const sdk::Error*>(&error);
      lasting_ = refusal != nullptr && refusal->status() != 503;
      set_problem(error.what());
      std::unique_lock lock(mutex_);
      wakeup_.wait_for(lock, kRetryEvery, [&] { return stopping_.load(); });
    }
  }
}

}  // namespace eventsvc::plugins::rocksdb_storage
