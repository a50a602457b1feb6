// The merge policy's size classes: a chunk's tier grows by one each time its rows reach the next
// power of the fanout times small_rows, and chunks of final_rows or more are not merged again.
#include "merge/chunk_merger.hpp"

#include <gtest/gtest.h>

namespace eventsvc::plugins::rocksdb_storage {
namespace {

TEST(ChunkMerger, TiersGrowByTheFanoutUpToFinalChunks) {
  const MergePolicy standard;  // 4096 small rows, fanout 4, final at 65536
  const MergePolicy wide{100, 2, 1000000};
  const MergePolicy flat{4096, 4, 4096};  // final at small rows: nothing but small runs merge
  const struct {
    const MergePolicy& policy;
    std::uint32_t rows;
    std::optional<std::uint32_t> tier;
  } cases[] = {
      {standard, 0, 0},
      {standard, 4095, 0},
      {standard, 4096, 0},
      {standard, 16383, 0},
      {standard, 16384, 1},
      {standard, 65535, 1},
      {standard, 65536, std::nullopt},
      {wide, 199, 0},
      {wide, 200, 1},
      {wide, 400, 2},
      {wide, 799, 2},
      {wide, 819199, 12},
      {wide, 819200, 13},
      {wide, 1000000, std::nullopt},
      {flat, 4095, 0},
      {flat, 4096, std::nullopt},
  };
  for (const auto& [policy, rows, tier] : cases) {
    EXPECT_EQ(merge_tier(policy, rows), tier)
        << rows << " rows, small " << policy.small_rows << ", fanout " << policy.fanout
        << ", final " << policy.final_rows;
  }
}

}  // namespace
}  // namespace eventsvc::plugins::rocksdb_storage
