// A chunk's set of rows, read back as stretches of consecutive rows.
#include "store/row_bits.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
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

// A chunk's replaced rows are a bitmap in bytes, cleared from the candidates as it is read: the
// same rows as set_bytes() gives, and a row past the end is damage either way.
TEST(RowBits, ABitmapInBytesClearsTheRowsSetBytesWouldSet) {
  for (const std::uint32_t rows : {1U, 63U, 64U, 65U, 200U, 4096U}) {
    SCOPED_TRACE(std::to_string(rows) + " rows");
    std::string bytes((rows + 7) / 8, '\0');
    for (std::uint32_t row = 0; row < rows; row += 3)
      bytes[row / 8] = static_cast<char>(bytes[row / 8] | (1 << (row % 8)));
    bytes[(rows - 1) / 8] = static_cast<char>(bytes[(rows - 1) / 8] | (1 << ((rows - 1) % 8)));

    RowBits replaced;
    replaced.reset(rows, false);
    ASSERT_TRUE(replaced.set_bytes(bytes.data(), bytes.size()));
    RowBits kept;
    kept.reset(rows, true);
    ASSERT_TRUE(kept.and_not_bytes(bytes.data(), bytes.size()));
    for (std::uint32_t row = 0; row < rows; ++row)
      ASSERT_NE(kept.test(row), replaced.test(row)) << "row " << row;

    // A bit past the last row, in the last byte or a byte after it.
    std::string past = bytes;
    if (rows % 8 != 0) {
      past.back() = static_cast<char>(past.back() | (1 << (rows % 8)));
    } else {
      past.push_back('\x01');
    }
    RowBits damaged;
    damaged.reset(rows, true);
    EXPECT_FALSE(damaged.and_not_bytes(past.data(), past.size()));
    damaged.reset(rows, false);
    EXPECT_FALSE(damaged.set_bytes(past.data(), past.size()));
    // Shorter than the rows: the rows it does not reach stay.
    RowBits shorter;
    shorter.reset(rows, true);
    ASSERT_TRUE(shorter.and_not_bytes(bytes.data(), bytes.size() / 2));
    EXPECT_TRUE(shorter.test(rows - 1));
  }
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
