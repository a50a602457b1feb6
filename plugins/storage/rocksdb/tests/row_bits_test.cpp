// A chunk's set of rows, read back as stretches of consecutive rows.
#include "store/row_bits.hpp"

#include <gtest/gtest.h>

#include <set>
#include <utility>
#include <vector>

namespace eventsvc::plugins::rocksdb_storage {
namespace {

std::vector<std::pair<std::uint32_t, std::uint32_t>> runs_of(const RowBits& bits) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> runs;
  bits.for_each_run(
      [&](std::uint32_t first, std::uint32_t count) { runs.emplace_back(first, count); });
  return runs;
}

TEST(RowBits, RunsAreTheLongestStretchesOfSetRowsAcrossWords) {
  RowBits all;
  all.reset(200, true);
  EXPECT_EQ(runs_of(all), (std::vector<std::pair<std::uint32_t, std::uint32_t>>{{0, 200}}));

  RowBits none;
  none.reset(130, false);
  EXPECT_TRUE(runs_of(none).empty());

  RowBits some;
  some.reset(300, false);
  const std::set<std::uint32_t> rows{0, 1, 2, 5, 60, 61, 62, 63, 64, 65, 127, 128, 200, 299};
  for (const auto row : rows)
    some.set(row);
  EXPECT_EQ(runs_of(some), (std::vector<std::pair<std::uint32_t, std::uint32_t>>{
                               {0, 3}, {5, 1}, {60, 6}, {127, 2}, {200, 1}, {299, 1}}));

  // Every row but one in each word: the runs join across words and stop at each gap.
  RowBits gaps;
  gaps.reset(256, true);
  for (std::uint32_t row = 10; row < 256; row += 64)
    gaps.clear(row);
  EXPECT_EQ(runs_of(gaps), (std::vector<std::pair<std::uint32_t, std::uint32_t>>{
                               {0, 10}, {11, 63}, {75, 63}, {139, 63}, {203, 53}}));
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
