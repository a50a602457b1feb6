// The decoded rows of value postings kept between questions (row_set_cache.hpp): kept once
// decoded and found again without a read, small sets decoded every time, and never the rows of a
// chunk that a purge or a merge has since rebuilt under the same number.
#include "store/row_set_cache.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include "storage_fixture.hpp"

namespace eventsvc::plugins::rocksdb_storage {
namespace {

using namespace testing_support;

TEST(RowSetCache, KeepsSetsOfManyRowsAndDecodesSmallOnesAgain) {
  RowSetCache cache(4096);
  int loads = 0;
  // A load of `rows` rows, the first `set` of them set.
  const auto first = [&loads](std::uint32_t rows, std::uint32_t set) {
    return [&loads, rows, set]() -> std::optional<RowBits> {
      ++loads;
      RowBits bits;
      bits.reset(rows, false);
      for (std::uint32_t row = 0; row < set; ++row)
        bits.set(row);
      return bits;
    };
  };
  EXPECT_EQ(cache.get("t", 1, 11, 1000, "sred", first(1000, 100))->count(), 100U);
  EXPECT_EQ(cache.get("t", 1, 11, 1000, "sred", first(1000, 5))->count(), 100U) << "kept";
  EXPECT_EQ(loads, 1);
  EXPECT_EQ(cache.hits(), 1U);
  EXPECT_EQ(cache.misses(), 1U);
  // Fewer than kCachedRows rows: decoded every time.
  cache.get("t", 1, 11, 1000, "sone", first(1000, RowSetCache::kCachedRows - 1));
  cache.get("t", 1, 11, 1000, "sone", first(1000, RowSetCache::kCachedRows - 1));
  EXPECT_EQ(loads, 3);
  // Another id of the chunk's values (rebuilt since), another size, another tenant: other sets.
  EXPECT_EQ(cache.get("t", 1, 12, 1000, "sred", first(1000, 70))->count(), 70U);
  EXPECT_EQ(cache.get("t", 1, 11, 2000, "sred", first(2000, 80))->count(), 80U);
  EXPECT_EQ(cache.get("u", 1, 11, 1000, "sred", first(1000, 90))->count(), 90U);
  EXPECT_EQ(loads, 6);
  // A value no row holds: null, nothing kept.
  EXPECT_EQ(cache.get("t", 2, 21, 1000, "sx", [] { return std::optional<RowBits>(); }), nullptr);
  EXPECT_GT(cache.bytes(), 0U);
  EXPECT_LE(cache.bytes(), 4096U);

  RowSetCache none(0);
  none.get("t", 1, 11, 1000, "sred", first(1000, 100));
  none.get("t", 1, 11, 1000, "sred", first(1000, 100));
  EXPECT_EQ(loads, 8) << "a cache of no bytes keeps nothing";
  EXPECT_EQ(none.bytes(), 0U);
}

class ValueRowsTest : public StorageFixture {
 protected:
  ValueRowsTest() {
    // A chunk per write; chunks under 1,000 rows merge when asked.
    projector_config_ = json::object{{"enabled", false},
                                     {"batch_writes", 1},
                                     {"merge_small_rows", 1000},
                                     {"merge_final_rows", 1000}};
  }

  void SetUp() override {
    open();
    for (int w = 0; w < 2; ++w) {
      std::vector<sdk::IncomingEvent> events;
      for (int n = w * 200; n < (w + 1) * 200; ++n) {
        events.push_back(event("e" + std::to_string(n), kT0 + n * 1000,
                               json::object{{"tag", n % 2 == 0 ? "even" : "odd"},
                                            {"group", n % 3 == 0 ? "three" : "other"}}));
      }
      storage_->accept(write_of("key-values-" + std::to_string(w), std::move(events)), kRender);
      project();  // one chunk of 200 rows per write
    }
  }

  // The ids of the odd events of group "three" in current state, sorted.
  std::vector<std::string> odd_threes() {
    sdk::RecordQuery query = all(sdk::Source::current);
    query.where = {
        {*sdk::FieldPath::parse("payload.tag"), sdk::Op::eq, "odd"},
        {*sdk::FieldPath::parse("payload.group"), sdk::Op::in, json::array{"three", "none"}}};
    std::vector<std::string> ids;
    for (const auto& record : read(query))
      ids.push_back(record.id);
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  static std::vector<std::string> expected(const std::vector<int>& erased) {
    std::vector<std::string> ids;
    for (int n = 0; n < 400; ++n) {
      if (n % 2 == 1 && n % 3 == 0 && std::find(erased.begin(), erased.end(), n) == erased.end())
        ids.push_back("e" + std::to_string(n));
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }
};

TEST_F(ValueRowsTest, RowsAreDecodedOnceAndNeverThoseOfAChunkRebuiltUnderItsNumber) {
  const auto& cache = storage_->database().value_rows();
  // Each question looks up "odd", "three" and "none" (which no row holds: never kept) per chunk.
  EXPECT_EQ(odd_threes(), expected({}));
  EXPECT_EQ(cache.misses(), 6U);
  EXPECT_EQ(cache.hits(), 0U);
  EXPECT_EQ(odd_threes(), expected({}));
  EXPECT_EQ(cache.misses(), 8U);
  EXPECT_EQ(cache.hits(), 4U);

  // A purge rebuilds the first chunk without two of its rows, under its number: the rows after
  // them move up, and its values are read again.
  storage_->erase(erasure_of("erase-e3", {"e3", "e9"}, {}, sdk::Source::history), kRenderErasure);
  project();
  EXPECT_EQ(odd_threes(), expected({3, 9}));
  EXPECT_EQ(cache.hits(), 8U) << "erased rows are hidden beside the values until the purge";
  EXPECT_EQ(storage_->projector().purge_erasures(), 1U);
  EXPECT_EQ(odd_threes(), expected({3, 9}));
  EXPECT_EQ(cache.hits(), 10U) << "the second chunk's";
  EXPECT_EQ(cache.misses(), 14U);
  // A merge makes one chunk of both, under the number of one of them.
  EXPECT_GT(storage_->projector().merge_chunks(), 0U);
  EXPECT_EQ(odd_threes(), expected({3, 9}));
  EXPECT_EQ(cache.hits(), 10U);
  EXPECT_EQ(odd_threes(), expected({3, 9}));
  EXPECT_EQ(cache.hits(), 12U);
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
