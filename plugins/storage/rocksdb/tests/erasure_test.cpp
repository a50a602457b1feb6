// Erasures carried out by the projector, driven directly: which versions go, what current state
// falls back to, and that every read path (indexed, by columns, by text, aggregated, after merges
// and a reopen) leaves the erased versions out.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "eventsvc/sdk/error.hpp"
#include "log/log_scrub.hpp"
#include "merge/chunk_merger.hpp"
#include "storage_fixture.hpp"
#include "store/stored_formats.hpp"
#include "support/files_holding.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

using namespace testing_support;

sdk::Condition where(std::string_view field, sdk::Op op, json::value operand) {
  return {*sdk::FieldPath::parse(field), op, std::move(operand)};
}

std::vector<std::string> ids_and_seconds(const std::vector<sdk::Record>& records) {
  std::vector<std::string> ids;
  for (const auto& record : records)
    ids.push_back(record.id + "@" + std::to_string((record.timestamp - kT0) / 1000));
  return ids;
}

class ErasureTest : public StorageFixture {
 protected:
  static sdk::ErasureRequest erasure(std::string key, std::vector<std::string> ids,
                                     std::vector<sdk::Condition> conditions = {},
                                     sdk::Source source = sdk::Source::history) {
    return erasure_of(std::move(key), std::move(ids), std::move(conditions), source);
  }

  // Erases and projects; the erasure's state afterwards.
  sdk::ErasureStatus erase(const sdk::ErasureRequest& request) {
    storage_->erase(request, kRenderErasure);
    project();
    return *storage_->erasure(kTenant, request.erasure_id);
  }

  std::uint64_t count(sdk::Source source, std::vector<sdk::Condition> conditions = {}) {
    sdk::AggregateRequest request;
    request.source = source;
    request.where = std::move(conditions);
    return storage_->aggregate(kTenant, request).total.count;
  }

  // a has three versions (1 s, 2 s, 3 s), b one, c one; one round each.
  void accept_versions() {
    int n = 0;
    for (const auto& [id, second, user] :
         std::vector<std::tuple<std::string, int, std::string>>{{"a", 1, "u-42"},
                                                                {"b", 1, "u-7"},
                                                                {"a", 2, "u-7"},
                                                                {"c", 1, "u-42"},
                                                                {"a", 3, "u-42"}}) {
      storage_->accept(write_of("key-" + std::to_string(n++),
                                {event(id, kT0 + second * 1000,
                                       json::object{{"user", json::object{{"id", user}}},
                                                    {"note", "seen " + user}})}),
                       kRender);
      project();
    }
  }
};

TEST_F(ErasureTest, ByIdsEveryVersionGoesFromHistoryAndCurrent) {
  accept_versions();
  const auto request = erasure("erase-a", {"a", "nobody"});
  storage_->erase(request, kRenderErasure);
  EXPECT_EQ(storage_->erasure(kTenant, request.erasure_id)->state, sdk::ErasureState::accepted);
  project();
  const auto status = *storage_->erasure(kTenant, request.erasure_id);
  EXPECT_EQ(status.state, sdk::ErasureState::hidden);
  EXPECT_EQ(status.erased_versions, 3U);
  EXPECT_TRUE(status.hidden_at.has_value());
  EXPECT_EQ(status.key_id, "k1");

  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::history))),
            (std::vector<std::string>{"b@1", "c@1"}));
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::current))),
            (std::vector<std::string>{"b@1", "c@1"}));
  sdk::RecordQuery by_id = all(sdk::Source::history);
  by_id.where.push_back(where("id", sdk::Op::eq, json::value("a")));
  EXPECT_TRUE(read(by_id).empty());
  EXPECT_EQ(count(sdk::Source::history), 2U);
  EXPECT_EQ(count(sdk::Source::history, {where("payload.user.id", sdk::Op::eq, "u-42")}), 1U);
  sdk::RecordQuery text = all(sdk::Source::history);
  text.text = sdk::TextQuery{};
  text.text->words = {"seen"};
  EXPECT_EQ(ids_and_seconds(read(text)), (std::vector<std::string>{"b@1", "c@1"}));
}

TEST_F(ErasureTest, CurrentFallsBackToTheNewestSurvivingVersion) {
  accept_versions();
  // Every version of user u-42 over history: a@1, c@1 and a@3 (a's current one).
  const auto status =
      erase(erasure("erase-u42", {}, {where("payload.user.id", sdk::Op::eq, "u-42")}));
  EXPECT_EQ(status.erased_versions, 3U);
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::history))),
            (std::vector<std::string>{"b@1", "a@2"}));
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::current))),
            (std::vector<std::string>{"b@1", "a@2"}));
  // The survivor is current by its columns too, and by its indexes.
  EXPECT_EQ(count(sdk::Source::current, {where("payload.user.id", sdk::Op::eq, "u-7")}), 2U);
  EXPECT_EQ(count(sdk::Source::current, {where("payload.user.id", sdk::Op::eq, "u-42")}), 0U);
  sdk::RecordQuery by_id = all(sdk::Source::current);
  by_id.where.push_back(where("id", sdk::Op::eq, json::value("a")));
  EXPECT_EQ(ids_and_seconds(read(by_id)), (std::vector<std::string>{"a@2"}));
  // A newer version replaces the survivor as it would any current version.
  storage_->accept(write_of("key-a4", {event("a", kT0 + 4000, json::object{{"v", 4}})}), kRender);
  project();
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::current))),
            (std::vector<std::string>{"b@1", "a@4"}));
}

TEST_F(ErasureTest, OverCurrentEveryVersionOfTheMatchedIdsGoes) {
  accept_versions();
  // a's current version (a@3) and c are u-42 now: every version of a and c goes.
  const auto status = erase(erasure(
      "erase-current", {}, {where("payload.user.id", sdk::Op::eq, "u-42")}, sdk::Source::current));
  EXPECT_EQ(status.erased_versions, 4U);
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::history))), (std::vector<std::string>{"b@1"}));
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::current))), (std::vector<std::string>{"b@1"}));
}

TEST_F(ErasureTest, WritesAcceptedAfterTheErasureAreKeptAndAnErasedEventIsStoredAgain) {
  accept_versions();
  storage_->erase(erasure("erase-b", {"b"}), kRenderErasure);
  // Accepted after the erasure, before it was carried out: not erased.
  storage_->accept(write_of("key-b-2", {event("b", kT0 + 2000, 2)}), kRender);
  project();
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::history))),
            (std::vector<std::string>{"a@1", "c@1", "a@2", "b@2", "a@3"}));
  // The erased version sent again is no duplicate: it is stored again (erasure is not
  // suppression).
  const auto first = event(
      "b", kT0 + 1000, json::object{{"user", json::object{{"id", "u-7"}}}, {"note", "seen u-7"}});
  const auto again = storage_->accept(write_of("key-b-again", {first}), kRender);
  EXPECT_EQ(summary_of(again.body).accepted, 1U);
  project();
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::history))),
            (std::vector<std::string>{"a@1", "b@1", "c@1", "a@2", "b@2", "a@3"}));
}

TEST_F(ErasureTest, TheSameKeyReplaysTheFirstAnswer) {
  accept_versions();
  auto request = erasure("erase-once", {"a"});
  const auto first = storage_->erase(request, kRenderErasure);
  EXPECT_FALSE(first.replayed);
  request.erasure_id = "era_ffffffffffffffff";  // a retry gets a fresh id from the host
  const auto second = storage_->erase(request, kRenderErasure);
  EXPECT_TRUE(second.replayed);
  EXPECT_EQ(second.body, first.body);
  EXPECT_FALSE(storage_->erasure(kTenant, "era_ffffffffffffffff").has_value());
  // An ingest with the same key is another request.
  EXPECT_FALSE(storage_->accept(write_of("erase-once", {event("d", kT0, 1)}), kRender).replayed);
}

TEST_F(ErasureTest, ErasedRowsStayHiddenAcrossMergesAndAReopen) {
  accept_versions();
  erase(erasure("erase-a", {"a"}));
  ChunkMerger merger(storage_->database(), MergePolicy{});
  while (auto merge = merger.prepare())
    merger.commit(*merge);
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::history))),
            (std::vector<std::string>{"b@1", "c@1"}));
  EXPECT_EQ(count(sdk::Source::current), 2U);
  open();
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::history))),
            (std::vector<std::string>{"b@1", "c@1"}));
  EXPECT_EQ(count(sdk::Source::history, {where("payload.user.id", sdk::Op::eq, "u-42")}), 1U);
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::current))),
            (std::vector<std::string>{"b@1", "c@1"}));
  // A new version of an erased id is current again.
  storage_->accept(write_of("key-a9", {event("a", kT0 + 9000, 9)}), kRender);
  project();
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::current))),
            (std::vector<std::string>{"b@1", "c@1", "a@9"}));
}

TEST_F(ErasureTest, APurgeRebuildsTheChunksAndLeavesNoByteOfTheErasedVersions) {
  const std::string marker = "zqxmarker";
  accept_versions();
  for (int n = 0; n < 2; ++n) {
    storage_->accept(
        write_of("key-m" + std::to_string(n),
                 {event("m", kT0 + (10 + n) * 1000,
                        json::object{{"secret", marker + " number " + std::to_string(n)}})}),
        kRender);
    project();
  }
  ChunkMerger merger(storage_->database(), MergePolicy{});
  while (auto merge = merger.prepare())  // m's versions and others' in one chunk
    merger.commit(*merge);
  storage_->database().compact_everything();
  EXPECT_FALSE(eventsvc::testing::files_holding(dir_.path(), marker)
                   .empty());  // the search finds what is there

  const auto request = erasure("erase-m", {"m"});
  EXPECT_EQ(erase(request).state, sdk::ErasureState::hidden);
  EXPECT_EQ(storage_->projector().purge_erasures(), 1U);
  const auto status = *storage_->erasure(kTenant, request.erasure_id);
  EXPECT_EQ(status.state, sdk::ErasureState::purged);
  EXPECT_EQ(status.erased_versions, 2U);
  EXPECT_TRUE(status.purged_at.has_value());
  EXPECT_EQ(eventsvc::testing::files_holding(dir_.path(), marker), std::vector<std::string>{});

  // The rebuilt chunk answers as before, current state and history, by columns and by text.
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::history))),
            (std::vector<std::string>{"a@1", "b@1", "c@1", "a@2", "a@3"}));
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::current))),
            (std::vector<std::string>{"b@1", "c@1", "a@3"}));
  EXPECT_EQ(count(sdk::Source::current, {where("payload.user.id", sdk::Op::eq, "u-42")}), 2U);
  sdk::RecordQuery text = all(sdk::Source::history);
  text.text = sdk::TextQuery{};
  text.text->words = {"seen"};
  EXPECT_EQ(read(text).size(), 5U);
  // Nothing is left to purge; a new version of the id is current again.
  EXPECT_EQ(storage_->projector().purge_erasures(), 0U);
  storage_->accept(write_of("key-m-again", {event("m", kT0 + 20000, 1)}), kRender);
  project();
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::current))),
            (std::vector<std::string>{"b@1", "c@1", "a@3", "m@20"}));
}

// A chunk whose columns are in pages finds, hides and purges its erased rows like any other.
TEST_F(ErasureTest, AChunkInPagesFindsHidesAndPurgesItsErasedRows) {
  projector_config_["column_page_rows"] = 64;
  open();
  std::vector<sdk::IncomingEvent> events;
  for (int n = 0; n < 200; ++n) {
    events.push_back(event("p" + std::to_string(n), kT0 + n * 1000,
                           json::object{{"n", n}, {"tag", n % 2 == 0 ? "even" : "odd"}}));
  }
  storage_->accept(write_of("key-pages", std::move(events)), kRender);
  project();  // one chunk of 200 rows: 4 pages
  const auto odd = [&] {
    return count(sdk::Source::history, {where("payload.tag", sdk::Op::eq, "odd")});
  };
  EXPECT_EQ(odd(), 100U);
  // Rows on the first, second and last page.
  EXPECT_EQ(erase(erasure("erase-p", {"p7", "p70", "p199"})).state, sdk::ErasureState::hidden);
  std::vector<std::string> kept;
  for (int n = 0; n < 200; ++n) {
    if (n != 7 && n != 70 && n != 199)
      kept.push_back("p" + std::to_string(n) + "@" + std::to_string(n));
  }
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::history))), kept);
  EXPECT_EQ(odd(), 98U);
  EXPECT_EQ(storage_->projector().purge_erasures(), 1U);
  EXPECT_EQ(ids_and_seconds(read(all(sdk::Source::current))), kept);
  EXPECT_EQ(odd(), 98U);
  EXPECT_EQ(count(sdk::Source::history, {where("payload.n", sdk::Op::gte, 190)}), 9U);
}

TEST(LogScrub, AWriteAndItsReceiptLoseTheErasedEventsAndKeepTheRest) {
  AcceptedWrite write;
  write.tenant = {"acme", sdk::Environment::live};
  write.receipt_id = "req_0000000000000001";
  write.envelope.stream = "notes";
  write.received_at = kT0;
  for (const auto& [id, at] : {std::pair{"a", kT0}, std::pair{"a", kT0 + 1}, std::pair{"b", kT0}}) {
    AcceptedEvent event;
    event.version = {id, at, "digest-" + std::string(id)};
    event.event = json::object{{"id", id}, {"data", json::object{{"secret", "zqx"}}}};
    write.events.push_back(std::move(event));
  }
  const std::string bytes = encode_accepted_write(write);
  const AcceptedWrite scrubbed = decode_accepted_write(write_without(bytes, {{kT0, "a"}}));
  ASSERT_EQ(scrubbed.events.size(), 2U);
  EXPECT_EQ(scrubbed.events[0].version.id, "a");
  EXPECT_EQ(scrubbed.events[0].version.occurred_at, kT0 + 1);
  EXPECT_EQ(scrubbed.events[1].version.id, "b");
  EXPECT_EQ(scrubbed.receipt_id, write.receipt_id);
  EXPECT_EQ(scrubbed.envelope.stream, "notes");
  EXPECT_EQ(write_without(bytes, {{kT0 + 5, "a"}}), bytes);  // nothing of it erased

  StoredReceipt receipt;
  receipt.receipt.submitted = 3;
  for (const auto& event : write.events)
    receipt.events.push_back(event.version);
  const StoredReceipt left =
      decode_receipt(receipt_without(encode_receipt(receipt), {{kT0, "a"}, {kT0, "b"}}));
  ASSERT_EQ(left.events.size(), 1U);
  EXPECT_EQ(left.events[0].id, "a");
  EXPECT_EQ(left.events[0].occurred_at, kT0 + 1);
  EXPECT_EQ(left.receipt.submitted, 3U);  // what the write was told stays
}

TEST_F(ErasureTest, AnUnknownErasureIsNone) {
  EXPECT_FALSE(storage_->erasure(kTenant, "era_0123456789abcdef").has_value());
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
