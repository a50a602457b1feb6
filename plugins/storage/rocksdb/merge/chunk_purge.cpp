#include "merge/chunk_purge.hpp"

#include <rocksdb/write_batch.h>

#include "eventsvc/sdk/error.hpp"
#include "store/erasure_formats.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {

namespace {

const std::string kPendingPrefix = "erasure-purge/";

}  // namespace

std::string pending_purge_key(std::string_view tenant, std::string_view erasure_id) {
  std::string key = kPendingPrefix;
  key += tenant;
  key += erasure_id;
  return key;
}

std::vector<std::string> pending_purges(Database& database) {
  const std::string upper = prefix_successor(kPendingPrefix);
  const rocksdb::Slice upper_slice(upper);
  auto it = database.iterator(database.meta, &upper_slice);
  std::vector<std::string> pending;
  for (it->Seek(kPendingPrefix); it->Valid(); it->Next())
    pending.push_back(it->key().ToString());
  check(it->status(), "erasure scan");
  return pending;
}

void mark_purged(Database& database, const std::vector<std::string>& pending, sdk::Millis now) {
  rocksdb::WriteBatch batch;
  for (const auto& key : pending) {
    batch.Delete(database.meta, key);
    // Both keys end <tenant> <id>.
    const std::string status_key =
        erasure_status_key(std::string_view(key).substr(kPendingPrefix.size()), {});
    const auto stored = database.get(database.meta, status_key);
    if (!stored) continue;
    sdk::ErasureStatus status = decode_erasure_status(*stored);
    status.state = sdk::ErasureState::purged;
    status.purged_at = now;
    batch.Put(database.meta, status_key, encode_erasure_status(status));
  }
  database.write(batch, true);
}

}  // namespace eventsvc::plugins::rocksdb_storage
