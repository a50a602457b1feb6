#include "projection/projector.hpp"

#include <rocksdb/write_batch.h>

#include <bit>
#include <chrono>
#include <cstring>
#include <memory>

#include "chunks/absorbed_chunks.hpp"
#include "chunks/column_chunk.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "merge/chunk_purge.hpp"
#include "projection/erasure_round.hpp"
#include "projection/round_chunks.hpp"
#include "store/erasure_formats.hpp"
#include "store/key_codec.hpp"
#include "write/verdicts.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

const std::string kCursorKey = "projector.cursor";

std::string sequence_key(std::uint64_t sequence) {
  std::string key;
  append_u64(key, sequence);
  return key;
}

std::string embedding_text(const sdk::Record& record) {
  std::string text;
  toolkit::for_each_text_field(record, [&](std::string_view, std::string_view value) {
    if (!text.empty()) text.push_back(' ');
    text += value;
  });
  return text;
}

}  // namespace

// What this round's batch already wrote, since the batch is not readable until committed.
struct Projector::Overlay {
  Overlay(std::uint64_t chunk_number, Database& database, std::uint32_t page_rows)
      : chunk(chunk_number),
        chunks(chunk_number, database.term_filters(), page_rows),
        resolver(database) {}
  std::map<std::string, std::string> versions;  // version key -> digest
  // tenant|id -> current record
  std::map<std::string, std::shared_ptr<const sdk::Record>> current;
  std::uint64_t chunk;                         // this round's chunk number
  RoundChunks chunks;                          // the round's new history versions, per tenant
  std::map<std::string, RowRef> current_rows;  // tenant|id -> where its current version's cells are
  std::map<std::pair<std::string, std::uint64_t>, std::vector<std::uint32_t>>
      replaced;          // (tenant, chunk) -> rows that stopped being current this round
  RowResolver resolver;  // where the rows current_ids point at are since merges
};

Projector::Projector(Database& database, toolkit::AppendSequence& sequence, Backlog& backlog,
                     std::shared_ptr<sdk::Logger> logger, ProjectorOptions options)
    : database_(database),
      sequence_(sequence),
      backlog_(backlog),
      logger_(std::move(logger)),
      options_(options),
      indexer_(database, options.version_indexes),
      merges_(database, options.merge, *logger_, rounds_,
              [this] {
                // Merged while nothing was projected: as after a round when caught up.
                if (idle_) database_.flush_read(kFlushBytes);
              }),
      cursor_(stored_cursor(database)) {}

Projector::~Projector() {
  stop();
}

std::uint64_t Projector::stored_cursor(Database& database) {
  return decode_cursor(database.get(database.meta, kCursorKey));
}

const std::string& Projector::cursor_key() {
  return kCursorKey;
}

std::uint64_t Projector::decode_cursor(const std::optional<std::string>& value) {
  return value ? read_u64(*value) : 0;
}

void Projector::start() {
  if (!options_.enabled || thread_.joinable()) return;
  stopping_ = false;
  merges_.start();
  thread_ = std::thread([this] { run(); });
}

void Projector::stop() {
  stopping_ = true;
  wake();
  if (thread_.joinable()) thread_.join();
  merges_.stop();
}

void Projector::wake() {
  {
    const std::lock_guard lock(mutex_);
    pending_wake_ = true;
  }
  wakeup_.notify_one();
}

void Projector::run() {
  auto backoff = std::chrono::milliseconds(100);
  while (!stopping_) {
    try {
      const auto started = std::chrono::steady_clock::now();
      verify_queued();
      const std::size_t projected = project_once();
      if (projected > 0) note_pace(projected, std::chrono::steady_clock::now() - started);
      if (!healthy_) logger_->info("projection recovered");
      healthy_ = true;
      backoff = std::chrono::milliseconds(100);
      if (projected > 0) projected_since_checkpoint_ = true;
      if (checkpoint_ && projected_since_checkpoint_ &&
          std::chrono::steady_clock::now() - last_checkpoint_ >= kCheckpointEvery) {
        checkpoint_();
        last_checkpoint_ = std::chrono::steady_clock::now();
        projected_since_checkpoint_ = false;
      }
      if (projected > 0) {
        written_since_flush_ = true;
        continue;
      }
      // Caught up: reads are served from table files, not from memtables filled by the rounds
      // just made (see Database::flush_read); the merge thread flushes after its merges.
      if (written_since_flush_ && !merges_.busy()) {
        database_.flush_read(kFlushBytes);
        written_since_flush_ = false;
      }
      idle_ = true;
      std::unique_lock lock(mutex_);
      wakeup_.wait_for(lock, std::chrono::milliseconds(500),
                       [&] { return pending_wake_ || stopping_; });
      pending_wake_ = false;
      idle_ = false;
    } catch (const std::exception& error) {
      ++stats_.failed_rounds;
      if (healthy_) logger_->error(std::string("projection failed, will retry: ") + error.what());
      healthy_ = false;
      std::unique_lock lock(mutex_);
      wakeup_.wait_for(lock, backoff, [&] { return stopping_.load(); });
      backoff = std::min(backoff * 2, std::chrono::milliseconds(5000));
    }
  }
}

void Projector::note_pace(std::size_t writes, std::chrono::steady_clock::duration took) {
  const double seconds = std::chrono::duration<double>(took).count();
  if (seconds <= 0) return;
  const double pace = static_cast<double>(writes) / seconds;
  const double before = stats_.writes_per_second.load(std::memory_order_relaxed);
  // A third of the newest round: a few rounds (a second or two) make the average.
  stats_.writes_per_second.store(before == 0 ? pace : before + (pace - before) / 3,
                                 std::memory_order_relaxed);
}

std::vector<Projector::InboxEntry> Projector::read_inbox(std::uint64_t upper,
                                                         std::size_t& events) const {
  const std::string lower_key = sequence_key(cursor_);
  const std::string upper_key = sequence_key(upper);
  const rocksdb::Slice upper_slice(upper_key);
  std::vector<InboxEntry> entries;
  events = 0;
  auto it = database_.iterator(database_.inbox, &upper_slice);
  for (it->Seek(lower_key); it->Valid(); it->Next()) {
    if (entries.size() >= options_.batch_writes || events >= options_.batch_events) break;
    std::string_view value(it->value().data(), it->value().size());
    const auto tenant = take_string(value);
    if (!tenant) throw sdk::Error::internal("an inbox entry is damaged");
    const std::uint64_t sequence = read_u64(std::string_view(it->key().data(), it->key().size()));
    if (is_erasure_order(value)) {
      // Alone in its round: after every write before it, before every write after it.
      if (entries.empty()) {
        entries.push_back({sequence, std::string(*tenant), {}, decode_erasure_order(value)});
      }
      break;
    }
    InboxEntry entry{sequence, std::string(*tenant), decode_accepted_write(value), std::nullopt};
    events += entry.write.events.size();
    entries.push_back(std::move(entry));
  }
  check(it->status(), "inbox scan");
  return entries;
}

std::size_t Projector::project_once() {
  const std::lock_guard round(rounds_);
  const std::uint64_t upper = sequence_.safe_upper();
  if (cursor_ >= upper) return 0;
  std::size_t events = 0;
  const std::vector<InboxEntry> entries = read_inbox(upper, events);
  if (entries.empty()) {
    // Every number below `upper` is committed or abandoned: nothing is left behind the cursor.
    cursor_ = upper;
    return 0;
  }
  indexer_.discard();  // what a failed round counted
  if (entries.front().erasure) return erase_once(entries.front());

  rocksdb::WriteBatch batch;
  OrderedBatch records;
  // One column chunk per tenant, numbered by the round's first inbox entry: unique, and the same
  // number again only if this batch never committed.
  Overlay overlay(entries.front().sequence, database_, options_.merge.page_rows);
  const sdk::Millis now = toolkit::now_millis();
  std::optional<ChangeFeed::Round> feed;
  if (feed_ != nullptr) feed.emplace(*feed_, now);
  for (const auto& entry : entries) {
    const auto stored = project_write(records, overlay, entry.tenant, entry.sequence, entry.write);
    if (feed) {
      feed->add(batch, entry.tenant,
                feed_->place_of(entry.sequence, entry.tenant, entry.write.receipt_id),
                entry.write.receipt_id, stored);
    }
    queue_for_verification(batch, entry, now);
  }
  const bool wrote_chunks = !overlay.chunks.empty();
  mark_replaced_rows(batch, overlay);
  indexer_.flush(records);
  records.move_into(batch);
  for (const auto& [key, value] : overlay.chunks.finish())
    batch.Put(database_.columns, key, value);
  const std::uint64_t next = entries.back().sequence + 1;
  batch.Put(database_.meta, kCursorKey, sequence_key(next));
  try {
    database_.write(batch, false);
  } catch (...) {
    if (feed_ != nullptr) feed_->forget_recent();
    throw;
  }
  cursor_ = next;
  for (const auto& entry : entries)
    backlog_.projected(entry.tenant, entry.sequence);
  if (wrote_chunks) merges_.wake();
  if (feed && !feed->empty()) {
    feed->commit();
    if (changed_) changed_();
  }
  ++stats_.rounds;
  stats_.writes += entries.size();
  stats_.events += events;
  return entries.size();
}

void Projector::queue_for_verification(rocksdb::WriteBatch& batch, const InboxEntry& entry,
                                       sdk::Millis now) const {
  const std::string receipt_key = entry.tenant + entry.write.receipt_id;
  if (const auto stored = database_.get(database_.receipts, receipt_key)) {
    StoredReceipt receipt = decode_receipt(*stored);
    receipt.receipt.state = sdk::ReceiptState::projecting;
    receipt.receipt.updated_at = now;
    batch.Put(database_.receipts, receipt_key, encode_receipt(receipt));
  }
  std::string queued;
  append_string(queued, entry.tenant);
  queued += entry.write.receipt_id;
  const std::string key = sequence_key(entry.sequence);
  batch.Put(database_.verify_queue, key, queued);
  batch.Delete(database_.inbox, key);
}

void Projector::mark_replaced_rows(rocksdb::WriteBatch& batch, const Overlay& overlay) const {
  // Each chunk's bitmap, read and rewritten (a merge commits only between rounds).
  for (const auto& [where, rows] : overlay.replaced) {
    const std::string key = replaced_key(where.first, where.second);
    std::vector<bool> bits;
    if (const auto stored = database_.get(database_.columns, key)) {
      bits.assign(stored->size() * 8, false);
      if (!mark_replaced({}, *stored, bits))
        throw sdk::Error::internal("replaced rows are damaged");
    }
    for (const auto row : rows) {
      if (row >= bits.size()) bits.resize(row + 1, false);
      bits[row] = true;
    }
    batch.Put(database_.columns, key, encode_replaced(bits));
  }
}

std::vector<std::shared_ptr<const sdk::Record>> Projector::project_write(
    OrderedBatch& batch, Overlay& overlay, const std::string& tenant, std::uint64_t sequence,
    const AcceptedWrite& write) {
  std::vector<std::shared_ptr<const sdk::Record>> stored;
  stored.reserve(write.events.size());
  std::uint64_t index = 0;
  for (const auto& event : write.events) {
    auto made = std::make_shared<sdk::Record>(record_of(event.event, event.version, write));
    made->sequence = sequence * 128 + index++;  // acceptance order
    const std::shared_ptr<const sdk::Record> shared = std::move(made);
    const sdk::Record& record = *shared;

    const std::string key = version_key(tenant, record.timestamp, record.id);
    if (overlay.versions.contains(key) || database_.exists(database_.history, key)) {
      continue;  // the first version of (id, occurred_at) stays; verification reports a conflict
    }
    batch.put(database_.history, key, encode_record(record));
    stored.push_back(shared);
    overlay.versions.emplace(key, record.proof_digest);
    const auto counted = std::make_shared<const TokenCounts>(TokenCounts::of(record));
    const TokenCounts& tokens = *counted;
    const RowRef row{overlay.chunk, overlay.chunks.add(tenant, shared, counted)};
    indexer_.add(batch, tenant, Scope::history, record, tokens);
    if (embedder_ != nullptr) {
      batch.put(database_.vectors, key,
                encode_embedding(embedder_->model(), embedder_->embed(embedding_text(record))));
    }

    // Current: the version with the greatest occurred_at per id.
    const std::string id_key = tenant + record.id;
    // A plain instant and a flag, not an optional: GCC 12 -O2 wrongly finds an optional<Millis>
    // read uninitialized here.
    bool has_previous = false;
    sdk::Millis previous_at = 0;
    std::shared_ptr<const sdk::Record> previous;  // read only when removing it needs its tokens
    std::optional<RowRef> previous_row;
    if (const auto it = overlay.current.find(id_key); it != overlay.current.end()) {
      previous = it->second;
      has_previous = true;
      previous_at = previous->timestamp;
      previous_row = overlay.current_rows.at(id_key);
    } else if (const auto stored_current = database_.get(database_.current_ids, id_key)) {
      has_previous = true;
      previous_at = read_instant(*stored_current);
      if (indexer_.removal_needs_tokens()) {
        const auto stored =
            database_.get(database_.history, version_key(tenant, previous_at, record.id));
        if (stored) {
          previous = std::make_shared<const sdk::Record>(decode_record(*stored));
        } else {
          has_previous = false;
        }
      }
      if (const auto pointed = decode_current_row(*stored_current))
        previous_row = overlay.resolver.resolve(tenant, *pointed);
    }
    if (has_previous && previous_at >= record.timestamp) {
      overlay.replaced[{tenant, row.chunk}].push_back(row.row);  // never current
      continue;
    }
    if (previous_row) overlay.replaced[{tenant, previous_row->chunk}].push_back(previous_row->row);
    if (has_previous) {
      batch.remove(database_.current, version_key(tenant, previous_at, record.id));
      if (indexer_.removal_needs_tokens()) {
        indexer_.remove(batch, tenant, Scope::current, *previous, TokenCounts::of(*previous));
      } else {
        indexer_.remove_id(batch, tenant, Scope::current, record.id, previous_at);
      }
    }
    batch.put(database_.current, key, {});
    batch.put(database_.current_ids, id_key, encode_current(record.timestamp, row));
    indexer_.add(batch, tenant, Scope::current, record, tokens);
    overlay.current.insert_or_assign(id_key, shared);
    overlay.current_rows.insert_or_assign(id_key, row);
  }
  return stored;
}

std::size_t Projector::erase_once(const InboxEntry& entry) {
  // Verification reads the versions back from history: the writes before the erasure are
  // verified before any of their versions leaves it.
  while (verify_queued() > 0) {
  }
  const ErasureOrder& order = *entry.erasure;
  const std::string status_key = erasure_status_key(entry.tenant, order.erasure_id);
  sdk::ErasureStatus status;
  if (const auto stored = database_.get(database_.meta, status_key)) {
    status = decode_erasure_status(*stored);
  } else {
    status.erasure_id = order.erasure_id;
    status.accepted_at = order.received_at;
  }
  rocksdb::WriteBatch batch;
  OrderedBatch records;
  const sdk::Millis now = toolkit::now_millis();
  try {
    const ErasedVersions erased =
        erase_versions(database_, indexer_, records, batch, entry.tenant, order, find_versions_);
    if (on_erased_) on_erased_(entry.tenant, erased);
    if (feed_ != nullptr) feed_->scrub(batch, entry.tenant, erased.by_receipt);
    status.erased_versions = erased.count;
    status.state = sdk::ErasureState::hidden;
    status.hidden_at = now;
    batch.Put(database_.meta, pending_purge_key(entry.tenant, order.erasure_id), {});
    indexer_.flush(records);
    records.move_into(batch);
  } catch (const sdk::Error& error) {
    if (error.status() == 503) throw;  // the disk: the round is tried again
    logger_->error("erasure " + order.erasure_id + " failed: " + error.what());
    batch.Clear();
    indexer_.discard();
    status.state = sdk::ErasureState::failed;
    status.reason = error.what();
    status.failed_at = now;
  }
  batch.Put(database_.meta, status_key, encode_erasure_status(status));
  batch.Delete(database_.inbox, sequence_key(entry.sequence));
  const std::uint64_t next = entry.sequence + 1;
  batch.Put(database_.meta, kCursorKey, sequence_key(next));
  database_.write(batch, false);
  cursor_ = next;
  backlog_.projected(entry.tenant, entry.sequence);
  if (status.state == sdk::ErasureState::hidden) merges_.request_purge();
  ++stats_.rounds;
  ++stats_.erasures;
  return 1;
}

std::size_t Projector::verify_queued() {
  rocksdb::WriteBatch batch;
  const sdk::Millis now = toolkit::now_millis();
  // The queue is in sequence order and this thread both fills and empties it: start past what was
  // taken already, not at the first key, which would step over every deletion not yet compacted.
  const rocksdb::Slice lower(verify_from_);
  auto it = database_.iterator(database_.verify_queue, nullptr, &lower);
  std::string next_from = verify_from_;  // moves on only once this round's batch is written
  std::size_t verified = 0;
  struct Verdict {
    bool clean;
    sdk::Millis lag_ms;
  };
  std::vector<Verdict> verdicts;
  std::vector<std::string> keys;  // of one receipt's versions, read in one batch
  std::vector<rocksdb::PinnableSlice> records;
  std::vector<bool> found;
  for (it->Seek(lower); it->Valid() && verified < 1024; it->Next(), ++verified) {
    batch.Delete(database_.verify_queue, it->key());
    next_from = sequence_key(read_u64(std::string_view(it->key().data(), it->key().size())) + 1);
    std::string_view value(it->value().data(), it->value().size());
    const auto tenant = take_string(value);
    if (!tenant) continue;
    const std::string receipt_key = std::string(*tenant) + std::string(value);
    const auto stored = database_.get(database_.receipts, receipt_key);
    if (!stored) continue;  // expired before it could be verified
    StoredReceipt receipt = decode_receipt(*stored);
    receipt.receipt.conflicts.clear();
    receipt.receipt.verified_events = 0;
    keys.clear();
    for (const auto& version : receipt.events)
      keys.push_back(version_key(*tenant, version.occurred_at, version.id));
    database_.get_many(database_.history, keys, records, found);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto& version = receipt.events[i];
      const std::string_view stored_digest =
          found[i] ? record_digest(std::string_view(records[i].data(), records[i].size()))
                   : std::string_view();
      if (stored_digest == version.digest) {
        ++receipt.receipt.verified_events;
      } else {
        receipt.receipt.conflicts.push_back(
            {version.id, version.occurred_at, version.digest, std::string(stored_digest)});
      }
    }
    const bool clean = receipt.receipt.conflicts.empty();
    receipt.receipt.state = clean ? sdk::ReceiptState::verified : sdk::ReceiptState::conflict;
    verdicts.push_back({clean, now - receipt.receipt.created_at});
    receipt.receipt.updated_at = now;
    batch.Put(database_.receipts, receipt_key, encode_receipt(receipt));
    batch.Put(database_.verdicts, receipt_key,
              Verdicts::encode(clean ? sdk::Verification::verified : sdk::Verification::conflict));
  }
  check(it->status(), "verification queue scan");
  if (batch.Count() > 0) database_.write(batch, false);
  verify_from_ = std::move(next_from);
  // Counted once written: a failed batch is verified again.
  for (const auto& [clean, lag_ms] : verdicts) {
    ++(clean ? stats_.verified : stats_.conflicts);
    stats_.verification_lag.observe(static_cast<double>(std::max<sdk::Millis>(lag_ms, 0)) / 1000);
  }
  return verified;
}

}  // namespace eventsvc::plugins::rocksdb_storage
