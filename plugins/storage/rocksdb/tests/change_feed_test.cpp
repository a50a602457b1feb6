// The change feed (feed/change_feed.hpp) through the storage plugin, its projector driven by hand:
// versions in acceptance order with positions that resume right after them, ordinals that count
// them, a duplicate not fed twice, an erased version read but not delivered, spans bounded by
// `until`, reads from an instant, and the watcher told after each round that fed something.
#include <gtest/gtest.h>

#include "storage_fixture.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

using namespace testing_support;


class ChangeFeedTest : public StorageFixture {
 protected:
  // Accepts one write of `ids` (one event each, at kT0 + its number of seconds).
  void write(const std::string& key, const std::vector<std::string>& ids, int second = 1) {
    std::vector<sdk::IncomingEvent> events;
    for (const auto& id : ids)
      events.push_back(event(id, kT0 + second * 1000, json::object{{"name", id}}));
    storage_->accept(write_of(key, std::move(events)), kRender);
  }

  struct Read {
    std::vector<std::string> ids;
    std::vector<sdk::ChangePosition> positions;
    sdk::ChangeScan scan;
  };
  Read read(sdk::ChangeQuery query) {
    Read out;
    out.scan = storage_->changes(
        kTenant, query, [&](const sdk::ChangePosition& position, const sdk::Record& record) {
          out.ids.push_back(record.id);
          out.positions.push_back(position);
          return true;
        });
    return out;
  }
};

TEST_F(ChangeFeedTest, VersionsInAcceptanceOrderResumeRightAfterEachPosition) {
  EXPECT_EQ(storage_->change_head(kTenant).bytes, "");
  write("k1", {"a", "b"});
  write("k2", {"c"});
  project();
  write("k3", {"d", "a"}, 2);  // a again at another instant: a new version
  write("k4", {"a"}, 2);       // a duplicate: not stored, not fed
  project();

  const Read all = read({});
  EXPECT_EQ(all.ids, (std::vector<std::string>{"a", "b", "c", "d", "a"}));
  EXPECT_TRUE(all.scan.at_end);
  for (std::size_t i = 0; i < all.positions.size(); ++i) {
    EXPECT_EQ(all.positions[i].ordinal, i + 1);
    if (i > 0) {
      EXPECT_LT(all.positions[i - 1].bytes, all.positions[i].bytes);
    }
    sdk::ChangeQuery after;
    after.after = all.positions[i].bytes;
    EXPECT_EQ(read(after).ids, std::vector<std::string>(all.ids.begin() + i + 1, all.ids.end()));
  }
  const sdk::ChangePosition head = storage_->change_head(kTenant);
  EXPECT_EQ(head.bytes, all.positions.back().bytes);
  EXPECT_EQ(head.ordinal, 5U);

  // Bounded: up to and including `until`; limits stop after a match.
  sdk::ChangeQuery span;
  span.after = all.positions[0].bytes;
  span.until = all.positions[2].bytes;
  const Read middle = read(span);
  EXPECT_EQ(middle.ids, (std::vector<std::string>{"b", "c"}));
  EXPECT_TRUE(middle.scan.at_end);
  sdk::ChangeQuery two;
  two.limit = 2;
  const Read first_two = read(two);
  EXPECT_EQ(first_two.ids, (std::vector<std::string>{"a", "b"}));
  EXPECT_FALSE(first_two.scan.at_end);
  EXPECT_EQ(first_two.scan.last.bytes, all.positions[1].bytes);

  // Filtered: non-matching versions are read (the position moves on) but not visited.
  sdk::ChangeQuery named_a;
  named_a.where.push_back({*sdk::FieldPath::parse("payload.name"), sdk::Op::eq, json::value("a")});
  const Read only_a = read(named_a);
  EXPECT_EQ(only_a.ids, (std::vector<std::string>{"a", "a"}));
  EXPECT_EQ(only_a.scan.read, 5U);

  // Read from the database (a reopened storage holds no recent entries in memory): the same.
  open();
  const Read reread = read({});
  EXPECT_EQ(reread.ids, all.ids);
  ASSERT_EQ(reread.positions.size(), all.positions.size());
  for (std::size_t i = 0; i < all.positions.size(); ++i) {
    EXPECT_EQ(reread.positions[i].bytes, all.positions[i].bytes);
    EXPECT_EQ(reread.positions[i].ordinal, all.positions[i].ordinal);
  }
  EXPECT_EQ(read(span).ids, middle.ids);
  EXPECT_EQ(read(named_a).ids, only_a.ids);

  // Another tenant's feed is its own.
  const sdk::Tenant other{"other", sdk::Environment::live};
  EXPECT_EQ(storage_->change_head(other).bytes, "");

  // A position that is not one of this feed's is a 400.
  sdk::ChangeQuery foreign;
  foreign.after = std::string("\x07garbage-position", 17);
  EXPECT_THROW(read(foreign), sdk::Error);
}

TEST_F(ChangeFeedTest, AnErasedVersionIsReadButNotDeliveredAndTheFeedSurvivesAReopen) {
  write("k0", {"solo"});
  write("k1", {"keep", "gone"});
  write("k2", {"later"});
  project();
  storage_->erase(erasure_of("erase-1", {"gone", "solo"}), kRenderErasure);
  project();
  // The write whose every version was erased leaves the feed; the other keeps its place.
  const Read after_erasure = read({});
  EXPECT_EQ(after_erasure.ids, (std::vector<std::string>{"keep", "later"}));
  EXPECT_EQ(after_erasure.scan.read, 3U);
  EXPECT_EQ(after_erasure.positions.back().ordinal, 4U);
  {  // The feed no longer names the erased version.
    Database& database = storage_->database();
    auto it = database.iterator(database.changes);
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      EXPECT_EQ(it->value().ToString().find("gone"), std::string::npos);
      EXPECT_EQ(it->value().ToString().find("solo"), std::string::npos);
    }
  }

  open();
  project();
  EXPECT_EQ(read({}).ids, (std::vector<std::string>{"keep", "later"}));
  write("k3", {"new"});
  project();
  const Read reopened = read({});
  EXPECT_EQ(reopened.ids, (std::vector<std::string>{"keep", "later", "new"}));
  EXPECT_EQ(reopened.positions.back().ordinal, 5U);  // ordinals go on, never reused
}

TEST_F(ChangeFeedTest, ReadsFromAnInstantAndTellsTheWatcherAfterEachRound) {
  int told = 0;
  storage_->watch_changes([&] { ++told; });
  write("k1", {"early"});
  project();
  EXPECT_EQ(told, 1);
  project();  // nothing new: nothing told
  EXPECT_EQ(told, 1);
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  const sdk::Millis between = toolkit::now_millis();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  write("k2", {"late"});
  project();
  EXPECT_EQ(told, 2);
  sdk::ChangeQuery since;
  since.since = between;
  EXPECT_EQ(read(since).ids, (std::vector<std::string>{"late"}));
  storage_->watch_changes({});
  write("k3", {"unwatched"});
  project();
  EXPECT_EQ(told, 2);
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
