// The storage plugin's ingest, projection and verification, driven directly.
#include <gtest/gtest.h>
#include <rocksdb/write_batch.h>

#include <random>

#include "chunks/column_chunk.hpp"
#include "eventsvc/sdk/error.hpp"
#include "eventsvc/toolkit/record_json.hpp"
#include "eventsvc/toolkit/text.hpp"
#include "eventsvc/toolkit/time.hpp"
#include "merge/chunk_merger.hpp"
#include "storage_fixture.hpp"
#include "store/key_codec.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

using namespace testing_support;

std::vector<std::string> ids_of(const std::vector<sdk::Record>& records) {
  std::vector<std::string> ids;
  for (const auto& record : records)
    ids.push_back(record.id + "@" + std::to_string(record.timestamp - kT0));
  return ids;
}

class StorageTest : public StorageFixture {};

TEST_F(StorageTest, PagesOfTooFewRowsAreAConfigErrorNamingTheKey) {
  testing::TempDir other;
  try {
    RocksdbStorage storage(testing::plugin_context(
        sdk::manifest_of<RocksdbStorage>(), {{"projector", json::object{{"column_page_rows", 63}}}},
        other.path()));
    FAIL() << "accepted column_page_rows of 63";
  } catch (const sdk::Error& error) {
    EXPECT_NE(
        error.message().find("plugins.test.config.projector.column_page_rows: must be at least 64"),
        std::string::npos)
        << error.message();
  }
  EXPECT_FALSE(std::filesystem::exists(other.path() / "db"));
}

TEST_F(StorageTest, FinalChunksSmallerThanSmallOnesAreAConfigErrorNamingTheKey) {
  testing::TempDir other;
  try {
    RocksdbStorage storage(testing::plugin_context(
        sdk::manifest_of<RocksdbStorage>(),
        {{"projector", json::object{{"merge_small_rows", 4096}, {"merge_final_rows", 100}}}},
        other.path()));
    FAIL() << "accepted merge_final_rows below merge_small_rows";
  } catch (const sdk::Error& error) {
    EXPECT_NE(error.message().find("plugins.test.config.projector.merge_final_rows: must be at "
                                   "least merge_small_rows (4096)"),
              std::string::npos)
        << error.message();
  }
  // Nothing was opened or written.
  EXPECT_FALSE(std::filesystem::exists(other.path() / "db"));
}

TEST_F(StorageTest, ABadLagBoundOrPacingMarkIsAConfigErrorNamingTheKey) {
  for (const std::string key : {"max_lag_ms", "pace_from_ms"}) {
    const std::string named = "plugins.test.config.projector." + key;
    const std::pair<json::value, std::string> cases[] = {
        {json::value(-1), named + ": must be at least 0"},
        {json::value("2s"), named + ": must be an integer"},
        {json::value(86400001), named + ": must be at most 86400000"},
    };
    for (const auto& [bound, expected] : cases) {
      testing::TempDir other;
      try {
        RocksdbStorage storage(testing::plugin_context(sdk::manifest_of<RocksdbStorage>(),
                                                       {{"projector", json::object{{key, bound}}}},
                                                       other.path()));
        ADD_FAILURE() << "accepted " << key << " " << sdk::to_json(bound);
      } catch (const sdk::Error& error) {
        EXPECT_NE(error.message().find(expected), std::string::npos) << error.message();
      }
      // Nothing was opened or written.
      EXPECT_FALSE(std::filesystem::exists(other.path() / "db"));
    }
  }
}

TEST_F(StorageTest, ABadCacheSizeIsAConfigErrorNamingTheKey) {
  const std::tuple<std::string, json::value, std::string> cases[] = {
      {"filter_cache_mb", json::value(0),
       "plugins.test.config.filter_cache_mb: must be at least 1"},
      {"filter_cache_mb", json::value("64MB"),
       "plugins.test.config.filter_cache_mb: must be an integer"},
      {"filter_cache_mb", json::value(1 << 21),
       "plugins.test.config.filter_cache_mb: must be at most 1048576"},
      {"value_cache_mb", json::value(-1), "plugins.test.config.value_cache_mb: must be at least 0"},
      {"value_cache_mb", json::value(1.5),
       "plugins.test.config.value_cache_mb: must be an integer"},
      {"page_cache_mb", json::value(-1), "plugins.test.config.page_cache_mb: must be at least 0"},
      {"page_cache_mb", json::value("32MB"),
       "plugins.test.config.page_cache_mb: must be an integer"},
      {"value_cache_mb", json::value(1 << 21),
       "plugins.test.config.value_cache_mb: must be at most 1048576"},
      {"page_cache_mb", json::value(1 << 21),
       "plugins.test.config.page_cache_mb: must be at most 1048576"},
  };
  for (const auto& [key, size, expected] : cases) {
    testing::TempDir other;
    try {
      RocksdbStorage storage(
          testing::plugin_context(sdk::manifest_of<RocksdbStorage>(), {{key, size}}, other.path()));
      ADD_FAILURE() << "accepted " << key << " " << sdk::to_json(size);
    } catch (const sdk::Error& error) {
      EXPECT_NE(error.message().find(expected), std::string::npos) << error.message();
    }
    // Nothing was opened or written.
    EXPECT_FALSE(std::filesystem::exists(other.path() / "db"));
  }
}

TEST(StorageErrors, AreA503SayingWhatFailedWithoutServerPaths) {
  const std::string path = "/var/lib/eventsvc/rocksdb/db/000012.log";
  const std::pair<rocksdb::Status, const char*> cases[] = {
      {rocksdb::Status::NoSpace("While appending to file: " + path), "no space left on the device"},
      {rocksdb::Status::IOError("While open a file for appending: " + path, "Permission denied"),
       "an input/output error"},
      {rocksdb::Status::Corruption("block checksum mismatch in " + path), "damaged data"},
      {rocksdb::Status::Busy(), "busy"},
      {rocksdb::Status::Aborted(path), "an internal error"}};
  for (const auto& [status, what] : cases) {
    try {
      check(status, "write");
      ADD_FAILURE() << "no error for " << status.ToString();
    } catch (const sdk::Error& error) {
      EXPECT_EQ(error.status(), 503);
      EXPECT_EQ(error.retry_after(), 5);
      EXPECT_EQ(error.message(), std::string("storage is unavailable (write): ") + what);
      EXPECT_EQ(error.message().find("/var"), std::string::npos);
    }
  }
  EXPECT_NO_THROW(check(rocksdb::Status::OK(), "write"));
}

TEST_F(StorageTest, AcceptCountsDuplicatesWithinAndAcrossWrites) {
  auto a = event("a", kT0, 1);
  auto b = event("b", kT0, 2);
  const auto first = storage_->accept(write_of("key-00001", {a, b, a}), kRender);
  EXPECT_FALSE(first.replayed);
  EXPECT_EQ(summary_of(first.body).submitted, 3U);
  EXPECT_EQ(summary_of(first.body).accepted, 2U);
  EXPECT_EQ(summary_of(first.body).duplicates, 1U);
  const auto second = storage_->accept(write_of("key-00002", {b, event("c", kT0, 3)}), kRender);
  EXPECT_EQ(summary_of(second.body).duplicates, 1U);
  EXPECT_EQ(summary_of(second.body).accepted, 1U);
  project();
  EXPECT_EQ(ids_of(read(all(sdk::Source::history))),
            (std::vector<std::string>{"a@0", "b@0", "c@0"}));
}

TEST_F(StorageTest, CompletedKeyReplaysTheOriginalBodyAndWritesNothing) {
  const auto first = storage_->accept(write_of("key-replay", {event("a", kT0, 1)}), kRender);
  const auto again = storage_->accept(write_of("key-replay", {event("zzz", kT0, 9)}), kRender);
  EXPECT_TRUE(again.replayed);
  EXPECT_EQ(again.body, first.body);
  project();
  EXPECT_EQ(ids_of(read(all(sdk::Source::history))), (std::vector<std::string>{"a@0"}));
  // Keys are per tenant.
  const sdk::Tenant other{"acme", sdk::Environment::live};
  EXPECT_FALSE(
      storage_->accept(write_of("key-replay", {event("a", kT0, 1)}, other), kRender).replayed);
}

TEST_F(StorageTest, ReceiptIsVerifiedAfterProjection) {
  auto write = write_of("key-verify", {event("a", kT0, 1), event("b", kT0 + 5, 2)});
  storage_->accept(write, kRender);
  auto receipt = storage_->receipt(kTenant, write.receipt_id);
  ASSERT_TRUE(receipt);
  // The projector of this fixture is disabled: not final yet, and cannot become so.
  EXPECT_EQ(receipt->state, sdk::ReceiptState::verification_unavailable);
  EXPECT_EQ(receipt->event_set_sha256, write.event_set_sha256);
  EXPECT_EQ(receipt->expires_at, receipt->created_at + 24 * 3600 * 1000);
  project();
  receipt = storage_->receipt(kTenant, write.receipt_id);
  EXPECT_EQ(receipt->state, sdk::ReceiptState::verified);
  EXPECT_EQ(receipt->verified_events, 2U);
  EXPECT_TRUE(receipt->conflicts.empty());
  for (const auto& record : read(all(sdk::Source::history))) {
    EXPECT_EQ(record.verification, sdk::Verification::verified);
  }
  EXPECT_FALSE(storage_->receipt({"other", sdk::Environment::test}, write.receipt_id));
  EXPECT_FALSE(storage_->receipt({"acme", sdk::Environment::live}, write.receipt_id));
}

TEST_F(StorageTest, ReusedVersionWithAnotherPayloadIsAConflictAndTheFirstStays) {
  const auto original = event("a", kT0, json::object{{"v", 1}});
  storage_->accept(write_of("key-first", {original}), kRender);
  auto changed =
      write_of("key-second", {event("a", kT0, json::object{{"v", 2}}), event("b", kT0, 5)});
  storage_->accept(changed, kRender);
  project();
  const auto receipt = storage_->receipt(kTenant, changed.receipt_id);
  EXPECT_EQ(receipt->state, sdk::ReceiptState::conflict);
  EXPECT_EQ(receipt->verified_events, 1U);
  ASSERT_EQ(receipt->conflicts.size(), 1U);
  EXPECT_EQ(receipt->conflicts[0].id, "a");
  EXPECT_EQ(receipt->conflicts[0].submitted_digest, changed.events[0].version.digest);
  EXPECT_EQ(receipt->conflicts[0].stored_digest, original.version.digest);
  const auto history = read(all(sdk::Source::history));
  ASSERT_EQ(history.size(), 2U);
  EXPECT_EQ(history[0].payload.at("v"), 1);
  // The other event of the conflicting write is stored but not verified.
  EXPECT_EQ(history[1].id, "b");
  EXPECT_EQ(history[1].verification, sdk::Verification::conflict);
}

TEST_F(StorageTest, OlderVersionGoesToHistoryOnly) {
  storage_->accept(write_of("key-new", {event("a", kT0 + 1000, json::object{{"v", "new"}})}),
                   kRender);
  auto older = write_of("key-old", {event("a", kT0, json::object{{"v", "old"}})});
  storage_->accept(older, kRender);
  project();
  EXPECT_EQ(storage_->receipt(kTenant, older.receipt_id)->state, sdk::ReceiptState::verified);
  EXPECT_EQ(ids_of(read(all(sdk::Source::current))), (std::vector<std::string>{"a@1000"}));
  EXPECT_EQ(ids_of(read(all(sdk::Source::history))), (std::vector<std::string>{"a@0", "a@1000"}));
  // A newer one replaces it in current, within one projection round too.
  storage_->accept(write_of("key-newer", {event("a", kT0 + 2000, 1), event("a", kT0 + 3000, 2)}),
                   kRender);
  project();
  EXPECT_EQ(ids_of(read(all(sdk::Source::current))), (std::vector<std::string>{"a@3000"}));
  sdk::RecordQuery by_value = all(sdk::Source::current);
  by_value.where.push_back({*sdk::FieldPath::parse("payload.v"), sdk::Op::eq, json::value("new")});
  EXPECT_TRUE(read(by_value).empty());  // the replaced version left the current indexes
}

// A merge is built beside the rounds and committed between two: a version that a round replaced
// meanwhile in one of the merged chunks stays replaced, and the ids still current in them are
// found in the new chunk by the next round.
TEST_F(StorageTest, ARoundBetweenAMergesBuildAndItsCommitIsKept) {
  for (const char* id : {"a", "b", "c"}) {
    storage_->accept(write_of(std::string("key-") + id, {event(id, kT0, 1)}), kRender);
    project();  // a chunk per round
  }
  ChunkMerger merger(storage_->database(), MergePolicy{});
  auto merge = merger.prepare();
  ASSERT_TRUE(merge.has_value());
  EXPECT_EQ(merge->rows, 3U);

  storage_->accept(write_of("key-a2", {event("a", kT0 + 1000, 2)}), kRender);
  project();
  merger.commit(*merge);
  EXPECT_EQ(ids_of(read(all(sdk::Source::current))),
            (std::vector<std::string>{"b@0", "c@0", "a@1000"}));

  // Older than a's current version, newer than the one replaced during the merge: history only.
  storage_->accept(write_of("key-b2", {event("b", kT0 + 2000, 3), event("a", kT0 + 500, 4)}),
                   kRender);
  project();
  EXPECT_EQ(ids_of(read(all(sdk::Source::current))),
            (std::vector<std::string>{"c@0", "a@1000", "b@2000"}));
  EXPECT_EQ(ids_of(read(all(sdk::Source::history))),
            (std::vector<std::string>{"a@0", "b@0", "c@0", "a@500", "a@1000", "b@2000"}));
  sdk::RecordQuery old_values = all(sdk::Source::current);
  old_values.where.push_back({*sdk::FieldPath::parse("payload"), sdk::Op::eq, json::value(1)});
  EXPECT_EQ(ids_of(read(old_values)), (std::vector<std::string>{"c@0"}));
}

// A merge leaves current_ids pointing where they did: a round finds the rows a new version
// replaces through the lists of what merged chunks absorbed, however many merges deep, and through
// the pointers a purge wrote again when it renumbered its chunk's rows. The columns answer current
// state from the rows marked replaced, so a mark on the wrong row shows there.
TEST_F(StorageTest, RowsMergedSeveralTimesOverAreStillReplacedWhereTheyAre) {
  auto v = [](int value) { return json::object{{"v", value}}; };
  for (const char* id : {"a", "b", "c", "d", "e", "f", "g", "h"}) {
    storage_->accept(write_of(std::string("key-") + id, {event(id, kT0, v(1))}), kRender);
    project();  // a chunk per round
  }
  ChunkMerger merger(storage_->database(), MergePolicy{2, 2, 1000});
  std::size_t merges = 0;
  while (auto merge = merger.prepare()) {
    merger.commit(*merge);
    ++merges;
  }
  EXPECT_EQ(merges, 7U);  // four pairs, two of pairs, one of all eight

  // The ids whose current version has payload.v == value, as the columns count them.
  auto current_with = [&](int value) {
    sdk::AggregateRequest request;
    request.source = sdk::Source::current;
    request.where.push_back({*sdk::FieldPath::parse("payload.v"), sdk::Op::eq, json::value(value)});
    request.group_by.push_back(*sdk::FieldPath::parse("id"));
    const auto result = storage_->column_reader().aggregate(kTenant, request);
    std::vector<std::string> ids;
    if (!result) return ids;
    for (const auto& group : result->groups)
      ids.emplace_back(group.key.at("id").as_string());
    return ids;
  };
  using Ids = std::vector<std::string>;
  storage_->accept(write_of("key-new", {event("a", kT0 + 1000, v(2)), event("d", kT0 + 1000, v(2)),
                                        event("h", kT0 + 1000, v(2))}),
                   kRender);
  project();
  EXPECT_EQ(current_with(1), (Ids{"b", "c", "e", "f", "g"}));
  EXPECT_EQ(current_with(2), (Ids{"a", "d", "h"}));

  // A purge renumbers the rows of its chunk (the first of them, c, is gone).
  storage_->erase(erasure_of("erase-c", {"c"}), kRenderErasure);
  project();
  while (auto purge = merger.prepare_purge())
    merger.commit(*purge);
  storage_->accept(
      write_of("key-newer", {event("g", kT0 + 2000, v(3)), event("b", kT0 + 2000, v(3))}), kRender);
  project();
  EXPECT_EQ(current_with(1), (Ids{"e", "f"}));
  EXPECT_EQ(current_with(3), (Ids{"b", "g"}));
  EXPECT_EQ(ids_of(read(all(sdk::Source::current))),
            (Ids{"e@0", "f@0", "a@1000", "d@1000", "h@1000", "b@2000", "g@2000"}));
}

TEST_F(StorageTest, ABulkReadLeavesTheBlockCacheAsItWas) {
  std::vector<sdk::IncomingEvent> events;
  for (int i = 0; i < 2000; ++i)
    events.push_back(event("e-" + std::to_string(i), kT0 + i, json::object{{"n", i}}));
  storage_->accept(write_of("key-bulk", std::move(events)), kRender);
  project();
  Database& database = storage_->database();
  database.compact_everything();  // history in table files, none of their blocks cached
  const auto cached = [&] { return database.int_property("rocksdb.block-cache-usage"); };
  auto query = all(sdk::Source::history);
  query.bulk = true;
  ASSERT_EQ(read(query).size(), 2000U);  // whatever opening the files caches, whatever the read
  const std::uint64_t before = cached();
  ASSERT_EQ(read(query).size(), 2000U);
  EXPECT_EQ(cached(), before);
  query.bulk = false;
  ASSERT_EQ(read(query).size(), 2000U);
  EXPECT_GT(cached(), before);
}

// Ids and timestamps of history or current state within time bounds are answered from the
// versions' keys, which hold both: records damaged in place (a decode would report them) are not
// read, and the bounds, the order and a later page hold as they do on whole records.
TEST_F(StorageTest, IdsAndTimestampsWithinTimeBoundsAreAnsweredFromTheKeys) {
  std::vector<sdk::IncomingEvent> events;
  for (int i = 0; i < 10; ++i)
    events.push_back(event("e-" + std::to_string(i), kT0 + i, json::object{{"n", i}}));
  storage_->accept(write_of("key-versions", std::move(events)), kRender);
  // e-3's current version lies past the bounds asked below; its first stays in history.
  storage_->accept(write_of("key-newer", {event("e-3", kT0 + 30, json::object{{"n", 30}})}),
                   kRender);
  project();
  Database& database = storage_->database();
  rocksdb::WriteBatch damage;
  std::size_t damaged = 0;
  auto it = database.iterator(database.history);
  for (it->SeekToFirst(); it->Valid(); it->Next(), ++damaged)
    damage.Put(database.history, it->key(), "not a record");
  ASSERT_EQ(damaged, 11U);
  database.write(damage, false);

  const auto timestamp = *sdk::FieldPath::parse("timestamp");
  sdk::RecordQuery query;
  query.source = sdk::Source::history;
  query.where = {{timestamp, sdk::Op::gte, json::value(kT0 + 2)},
                 {timestamp, sdk::Op::lt, json::value(kT0 + 8)}};
  query.order = sdk::Order::desc;
  query.limit = 3;
  query.fields = {*sdk::FieldPath::parse("id"), timestamp};
  EXPECT_EQ(ids_of(read(query)), (std::vector<std::string>{"e-7@7", "e-6@6", "e-5@5"}));
  query.after = sdk::ReadPosition{0, kT0 + 5, "e-5"};
  EXPECT_EQ(ids_of(read(query)), (std::vector<std::string>{"e-4@4", "e-3@3", "e-2@2"}));
  query.after.reset();
  query.order = sdk::Order::asc;
  query.limit = 0;
  EXPECT_EQ(read(query).size(), 6U);

  query.source = sdk::Source::current;
  EXPECT_EQ(ids_of(read(query)),
            (std::vector<std::string>{"e-2@2", "e-4@4", "e-5@5", "e-6@6", "e-7@7"}));
  query.order = sdk::Order::desc;
  query.limit = 2;
  query.after = sdk::ReadPosition{0, kT0 + 5, "e-5"};
  EXPECT_EQ(ids_of(read(query)), (std::vector<std::string>{"e-4@4", "e-2@2"}));

  query.fields.push_back(*sdk::FieldPath::parse("stream"));  // not in a key: records are read
  for (const auto source : {sdk::Source::history, sdk::Source::current}) {
    query.source = source;
    try {
      read(query);
      ADD_FAILURE() << "a field beyond the version's did not read the damaged records";
    } catch (const sdk::Error& error) {
      EXPECT_EQ(error.status(), 500) << error.message();
    }
  }
}

TEST_F(StorageTest, StoredRecordHasTheDocumentedLayout) {
  auto write = write_of("key-layout",
                        {event("a", kT0, json::object{{"t", 1}},
                               {{"metrics", json::object{{"cpu", 0.5}}}, {"source", "probe"}})});
  write.envelope.namespace_name = "plant";
  write.envelope.site_id = "site-1";
  write.envelope.extras = {{"batch_note", "x"}};
  storage_->accept(write, kRender);
  project();
  const auto records = read(all(sdk::Source::current));
  ASSERT_EQ(records.size(), 1U);
  const auto json = toolkit::record_to_json(records[0]);
  EXPECT_EQ(json.at("payload"), (json::object{{"t", 1}}));
  EXPECT_EQ(json.at("metrics"), (json::object{{"cpu", 0.5}}));
  EXPECT_EQ(json.at("attributes"), (json::object{{"source", "probe"}}));
  EXPECT_EQ(json.at("envelope"), (json::object{{"batch_note", "x"}}));
  EXPECT_EQ(json.at("namespace"), "plant");
  EXPECT_EQ(json.at("site_id"), "site-1");
  EXPECT_FALSE(json.contains("source_id"));
  EXPECT_EQ(json.at("timestamp"), "2026-11-22T08:30:00.000Z");
  EXPECT_EQ(json.at("proof_digest").as_string(), write.events[0].version.digest);
  EXPECT_EQ(json.at("receipt_id").as_string(), write.receipt_id);
}

TEST_F(StorageTest, AcceptedWritesSurviveAReopenBeforeProjection) {
  storage_->accept(write_of("key-durable", {event("a", kT0, 1)}), kRender);
  EXPECT_EQ(storage_->status(kTenant).projection_backlog, 1U);
  open();  // a restart
  EXPECT_EQ(storage_->status(kTenant).projection_backlog, 1U);
  EXPECT_TRUE(storage_->accept(write_of("key-durable", {}), kRender).replayed);
  project();
  EXPECT_EQ(storage_->status(kTenant).projection_backlog, 0U);
  EXPECT_EQ(ids_of(read(all(sdk::Source::current))), (std::vector<std::string>{"a@0"}));
  // Sequence numbers continue: a new write after the restart is projected too.
  storage_->accept(write_of("key-after", {event("b", kT0, 1)}), kRender);
  project();
  EXPECT_EQ(read(all(sdk::Source::current)).size(), 2U);
}

TEST_F(StorageTest, TenantsNeverSeeEachOther) {
  const sdk::Tenant live{"acme", sdk::Environment::live};
  const sdk::Tenant other{"acme2", sdk::Environment::test};
  storage_->accept(write_of("key-t1", {event("a", kT0, 1)}), kRender);
  storage_->accept(write_of("key-t2", {event("a", kT0, 2)}, live), kRender);
  project();
  EXPECT_EQ(read(all(sdk::Source::history)).at(0).payload, 1);
  EXPECT_EQ(read(all(sdk::Source::history), live).at(0).payload, 2);
  EXPECT_TRUE(read(all(sdk::Source::history), other).empty());
  sdk::RecordQuery text = all(sdk::Source::history);
  text.text = toolkit::parse_text_query("reading");
  EXPECT_EQ(read(text).size(), 1U);
  EXPECT_TRUE(read(text, other).empty());
}

TEST_F(StorageTest, StatusReportsNewestTimes) {
  EXPECT_FALSE(storage_->status(kTenant).newest_timestamp);
  storage_->accept(write_of("key-status", {event("a", kT0, 1), event("b", kT0 + 7, 1)}), kRender);
  project();
  const auto status = storage_->status(kTenant);
  EXPECT_EQ(status.newest_timestamp, kT0 + 7);
  ASSERT_TRUE(status.newest_ingested_at);
  EXPECT_LE(*status.newest_ingested_at, toolkit::now_millis());
  EXPECT_FALSE(status.projector_available);  // disabled in this fixture
}

TEST_F(StorageTest, NeighborsAreAdjacentInTimeWithinTheStream) {
  std::vector<sdk::IncomingEvent> events;
  for (int i = 0; i < 6; ++i)
    events.push_back(event("e" + std::to_string(i), kT0 + i * 10, i));
  events.push_back(event("e3b", kT0 + 30, 9));  // the anchor's instant: after it by id
  storage_->accept(write_of("key-nb", events), kRender);
  storage_->accept(write_of("key-nb2", {event("x", kT0 + 25, 1)}, kTenant, "other"), kRender);
  project();
  sdk::Record anchor;
  anchor.id = "e3";
  anchor.timestamp = kT0 + 30;
  anchor.stream = "s";
  for (const auto source : {sdk::Source::history, sdk::Source::current}) {
    const auto around = storage_->neighbors(kTenant, source, anchor, 2, 5, 0);
    EXPECT_EQ(around.before, (std::vector<std::string>{"e1", "e2"}));
    EXPECT_EQ(around.after, (std::vector<std::string>{"e3b", "e4", "e5"}));
    // Nothing older than the caller's horizon.
    const auto within = storage_->neighbors(kTenant, source, anchor, 2, 5, kT0 + 20);
    EXPECT_EQ(within.before, (std::vector<std::string>{"e2"}));
    EXPECT_EQ(within.after, around.after);
  }
}

TEST_F(StorageTest, ScoringFromPostingsRanksLikeScoringRecords) {
  // Plain-word searches with index-decided conditions are scored from the postings and read only
  // the best records; with limit 0 every record is read and scored. Both must agree exactly.
  std::mt19937 random(3);
  const char* words[] = {"disk", "full", "net", "down", "slow", "cpu", "hot", "fan"};
  for (int w = 0; w < 8; ++w) {
    std::vector<sdk::IncomingEvent> events;
    for (int i = 0; i < 50; ++i) {
      std::string text;
      for (int k = 0, n = 1 + static_cast<int>(random() % 12); k < n; ++k) {
        text += std::string(words[random() % 8]) + " ";
      }
      events.push_back(event("e" + std::to_string(w * 50 + i),
                             kT0 + static_cast<sdk::Millis>(random() % 100000),
                             json::object{{"text", text}}));
    }
    auto write = write_of("key-scoring-" + std::to_string(w), events);
    write.envelope.namespace_name = w % 2 == 0 ? "even" : "odd";
    storage_->accept(write, kRender);
  }
  project();
  for (const char* text : {"disk", "disk full", "hot fan cpu", "down"}) {
    for (const bool filtered : {false, true}) {
      sdk::RecordQuery query;
      query.source = sdk::Source::history;
      query.text = toolkit::parse_text_query(text);
      query.rank_by_text = true;
      query.where.push_back(
          {*sdk::FieldPath::parse("timestamp"), sdk::Op::gte, json::value(kT0 + 20000)});
      if (filtered)
        query.where.push_back(
            {*sdk::FieldPath::parse("namespace"), sdk::Op::eq, json::value("even")});
      auto scored = [&](std::size_t limit) {
        query.limit = limit;
        std::vector<std::pair<std::string, double>> out;
        storage_->scan(kTenant, query, [&](const sdk::Record& record, double score) {
          out.emplace_back(record.id + "@" + std::to_string(record.timestamp), score);
          return out.size() < 10;
        });
        return out;
      };
      const auto fast = scored(10);
      const auto full = scored(0);
      ASSERT_FALSE(fast.empty()) << text;
      EXPECT_EQ(fast, full) << text << (filtered ? " (namespace even)" : "");
    }
  }
}

// A word's documents per chunk are kept across searches (text_scorer.hpp, ChunkWordCounts): as
// merges rewrite chunks under the first one's number, the scores must stay those a restarted
// server, keeping nothing yet, computes.
TEST_F(StorageTest, RankedScoresThroughMergesAreThoseOfARestartedServer) {
  const char* words[] = {"disk full", "disk", "fan hot disk", "net down", "disk disk slow"};
  auto ranked = [&] {
    sdk::RecordQuery query = all(sdk::Source::history);
    query.text = toolkit::parse_text_query("disk");
    query.rank_by_text = true;
    query.limit = 0;
    std::vector<std::pair<std::string, double>> out;
    storage_->scan(kTenant, query, [&](const sdk::Record& record, double score) {
      out.emplace_back(record.id, score);
      return true;
    });
    return out;
  };
  for (int round = 0; round < 8; ++round) {
    storage_->accept(
        write_of(
            "key-rank-" + std::to_string(round),
            {event("r" + std::to_string(round), kT0 + round, json::object{{"m", words[round % 5]}}),
             event("s" + std::to_string(round), kT0 + round, json::object{{"m", "idle"}})}),
        kRender);
    project();  // a chunk per round
    const auto before_merges = ranked();
    ChunkMerger merger(storage_->database(), MergePolicy{2, 2, 1000});
    while (auto merge = merger.prepare())
      merger.commit(*merge);
    const auto merged = ranked();
    open();  // a restart: nothing kept
    ASSERT_EQ(merged, ranked()) << "round " << round;
    ASSERT_EQ(before_merges.size(), merged.size());
  }
}

TEST_F(StorageTest, DataDirFromBeforeChunkPostingsKeepsSearchingItsPostingKeys) {
  // A database made before chunks carried postings lacks the mark that they do: its projector
  // keeps writing a posting key per (token, version), and its searches read those.
  storage_->accept(write_of("key-before", {event("a", kT0, json::object{{"m", "alpha"}})}),
                   kRender);
  project();
  rocksdb::WriteBatch unmark;
  unmark.Delete(storage_->database().meta, "columns.indexed");
  storage_->database().write(unmark, true);
  open();
  ASSERT_FALSE(storage_->column_reader().chunk_indexed());
  storage_->accept(write_of("key-after", {event("b", kT0 + 1, json::object{{"m", "legacy word"}}),
                                          event("c", kT0 + 2, json::object{{"m", "word"}})}),
                   kRender);
  project();
  for (const bool ranked : {false, true}) {
    sdk::RecordQuery query = all(sdk::Source::history);
    query.text = toolkit::parse_text_query("legacy word");
    query.rank_by_text = ranked;
    query.limit = 5;
    EXPECT_EQ(ids_of(read(query)), (std::vector<std::string>{"b@1"}));
  }
  sdk::AggregateRequest request;
  request.text = toolkit::parse_text_query("word");
  EXPECT_FALSE(storage_->column_reader().aggregate(kTenant, request).has_value());
  EXPECT_EQ(storage_->aggregate(kTenant, request).total.count, 2U);
}

TEST_F(StorageTest, ChunkHeadersFromBeforeTheCatalogueMoveThereOnOpen) {
  for (int w = 0; w < 3; ++w) {
    storage_->accept(
        write_of("key-cat-" + std::to_string(w), {event("a" + std::to_string(w), kT0 + w, w),
                                                  event("b" + std::to_string(w), kT0 + w, w)}),
        kRender);
    project();  // a chunk per write
  }
  sdk::AggregateRequest request;
  ASSERT_EQ(storage_->column_reader().aggregate(kTenant, request)->total.count, 6U);

  // Put the headers back where data directories from before the catalogue kept them.
  auto& database = storage_->database();
  const std::string tenant = tenant_prefix(kTenant);
  const std::string catalogue = catalogue_prefix(tenant);
  rocksdb::WriteBatch old_layout;
  auto it = database.iterator(database.columns);
  int headers = 0;
  for (it->Seek(catalogue); it->Valid() && it->key().starts_with(catalogue); it->Next()) {
    std::string old_key = chunk_prefix(tenant);
    old_key.append(it->key().data() + catalogue.size(), 8);
    old_key.push_back('\0');
    old_layout.Put(database.columns, old_key, it->value());
    old_layout.Delete(database.columns, it->key());
    ++headers;
  }
  it.reset();
  ASSERT_EQ(headers, 3);
  old_layout.Delete(database.meta, "columns.catalogue");
  database.write(old_layout, true);
  ASSERT_EQ(storage_->column_reader().aggregate(kTenant, request)->total.count, 0U);

  open();
  EXPECT_EQ(storage_->column_reader().aggregate(kTenant, request)->total.count, 6U);
  EXPECT_EQ(storage_->status(kTenant).newest_timestamp, kT0 + 2);
  EXPECT_TRUE(storage_->database().get(storage_->database().meta, "columns.catalogue"));
}

TEST_F(StorageTest, ReplacedRowsListedPerRoundFromBeforeBitmapsStillCount) {
  storage_->accept(write_of("key-r1", {event("a", kT0, 1), event("b", kT0, 1), event("c", kT0, 1)}),
                   kRender);
  project();
  storage_->accept(write_of("key-r2", {event("a", kT0 + 1, 2), event("b", kT0 + 1, 2)}), kRender);
  project();
  const std::vector<std::string> expected{"c@0", "a@1", "b@1"};
  ASSERT_EQ(ids_of(read(all(sdk::Source::current))), expected);

  // Rewrite each chunk's bitmap as the per-round lists of 4-byte rows that data directories from
  // before chunk indexes kept.
  auto& database = storage_->database();
  const std::string prefix = tenant_prefix(kTenant) + "S";
  rocksdb::WriteBatch old_layout;
  auto it = database.iterator(database.columns);
  int bitmaps = 0;
  for (it->Seek(prefix); it->Valid() && it->key().starts_with(prefix); it->Next()) {
    std::vector<bool> rows(64, false);
    ASSERT_TRUE(mark_replaced({}, std::string_view(it->value().data(), it->value().size()), rows));
    std::string list;
    for (std::uint32_t row = 0; row < rows.size(); ++row) {
      if (!rows[row]) continue;
      for (int b = 0; b < 4; ++b)
        list.push_back(static_cast<char>((row >> (8 * b)) & 0xFFU));
    }
    std::string key = it->key().ToString();
    append_u64(key, 7);  // the round that listed them
    old_layout.Delete(database.columns, it->key());
    old_layout.Put(database.columns, key, list);
    ++bitmaps;
  }
  it.reset();
  ASSERT_EQ(bitmaps, 1);
  old_layout.Delete(database.meta, "columns.indexed");  // lists were kept before chunk indexes
  database.write(old_layout, true);
  open();
  EXPECT_EQ(ids_of(read(all(sdk::Source::current))), expected);
  sdk::AggregateRequest request;
  request.source = sdk::Source::current;
  EXPECT_EQ(storage_->column_reader().aggregate(kTenant, request)->total.count, 3U);
  // A later round adds a bitmap beside them; both count.
  storage_->accept(write_of("key-r3", {event("c", kT0 + 2, 3)}), kRender);
  project();
  EXPECT_EQ(ids_of(read(all(sdk::Source::current))),
            (std::vector<std::string>{"a@1", "b@1", "c@2"}));
  EXPECT_EQ(storage_->column_reader().aggregate(kTenant, request)->total.count, 3U);
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
